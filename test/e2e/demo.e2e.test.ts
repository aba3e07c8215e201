import {spawn, type ChildProcess} from 'node:child_process';
import {existsSync, readFileSync, symlinkSync} from 'node:fs';
import {loadavg} from 'node:os';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {Tmux} from '../helpers/tmux.ts';
import {waitFor} from '../helpers/wait-for.ts';

const tmux = new Tmux();
let decoy: ChildProcess | undefined;

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

afterAll(() => {
	tmux.kill();
	if (decoy?.pid !== undefined && decoy.exitCode === null) decoy.kill('SIGKILL');
});

/** The rows whose tokens and cost the agents reported: `125k  $0.089`, `34k/30k  $0.048*`. */
function spendRows(pane: string): {id: string}[] {
	return [...pane.matchAll(/^[›● ] (\S+) .* \d+(?:\.\d+)?k(?:\/\S+)?\+? +\$\d+\.\d{3}\*? +\d+$/gm)].map(match => ({
		id: match[1] ?? '',
	}));
}

/** The path of the demo's scratch ledger, as its header names it. */
function demoHome(pane: string): string {
	const match = /controlroom (\S*controlroom-demo-\w+)\/ledger\.db/.exec(pane);
	if (!match?.[1]) throw new Error(`no demo ledger in the header:\n${pane}`);
	return match[1];
}

describe('the demo in tmux', () => {
	it('shows only its own agents, approves its held write with a and sends its review back with x', async () => {
		// Given a process named codex that the demo did not start (another user's agent, another demo's)
		const dir = scratchDir('cr-decoy-');
		const codex = join(dir, 'codex');
		symlinkSync(process.execPath, codex);
		decoy = spawn(codex, ['-e', 'setInterval(() => {}, 1 << 30)'], {stdio: 'ignore'});
		const decoyPid = String(decoy.pid);

		// When the demo runs at 160×45
		tmux.start('demo', 160, 45, {HOME: scratchDir('cr-home-')});
		tmux.type('demo', `node ${BIN} demo`);
		const launched = Date.now();
		tmux.send('demo', 'Enter');
		// Its agents' spend shows as real agents report it (tokens and dollars on three rows or more, a
		// helper tree, the burn rate) and a run that crossed its budget asks in Decisions. The promise is
		// 10 s on a quiet machine (7.4 s at load 2); the figure is printed, and the wait allows a CI run's
		// load (load 15 on two cores starts the demo's twenty processes 5 s late), so timing never fails it.
		const spend = await tmux.waitFor(
			'demo',
			current =>
				spendRows(current).length >= 3 && /^DECISIONS \(1\)/m.test(current) && /claude \(budget\) +budget: /.test(current),
			60_000,
		);
		console.log(
			`demo: three rows with spend and the budget question ${spend.at - launched} ms after launch (load ${loadavg()[0]?.toFixed(1)})`,
		);
		expect(spendRows(spend.pane).map(row => row.id)).toEqual(expect.arrayContaining(['w-tests']));
		expect(spend.pane).toMatch(/w-tests +run the test shards \(budget 30k\) .* \d+k\/30k +\$\d+\.\d{3}\*/);
		await tmux.waitFor(
			'demo',
			current => /c-\w+ +▸ 2 helpers: 2 ended · add a retry/.test(current) && / burn \d/.test(current),
			20_000,
		);
		// Its write is held, its review needs a person, and its own codex is found untracked.
		const {pane} = await tmux.waitFor(
			'demo',
			current =>
				current.includes('HELD EFFECTS (1)') &&
				/reviews \(1\)/.test(current) &&
				/w-notes +waiting/.test(current) &&
				/u-\d+-\d+ .*controlroom-demo-\w+\/bin\/codex/.test(current),
			60_000,
		);
		const home = demoHome(pane);
		// Then no process outside the demo shows, though the machine has one named codex
		expect(pane).not.toContain(decoyPid);
		expect(pane).toMatch(/^ {2}ID +TITLE +SOURCE +STATUS +AGE +LAST SEEN +PROGRESS +TOKENS +COST +PID$/m);

		// a, in Held effects, asks with the whole call and runs it on y
		tmux.send('demo', 'Tab');
		await tmux.waitFor('demo', current => current.includes('tab effects'));
		tmux.send('demo', 'Tab');
		await tmux.waitFor('demo', current => current.includes('space mark'));
		tmux.send('demo', 'a');
		await tmux.waitFor('demo', current => current.includes('APPROVE 1 HELD EFFECT') && current.includes('fs/write_file#'));
		tmux.send('demo', 'y');
		await tmux.waitFor('demo', current => /o-changelog: fs\/write_file#\d finished/.test(current), 30_000);
		expect(readFileSync(join(home, 'work', 'release', 'CHANGELOG.md'), 'utf8')).toContain('## 0.2.0');

		// a, in Needs you on the budget question, asks how many tokens to add; Enter gives what it offers,
		// and the run resumes its session, runs the held call, and ends within it
		tmux.send('demo', 'Escape');
		await tmux.waitFor('demo', current => current.includes('tab queue'));
		tmux.send('demo', 'Tab');
		await tmux.waitFor('demo', current => current.includes('k ack'));
		tmux.send('demo', 'a');
		await tmux.waitFor('demo', current => /allow d-\w+ — 34300 spent of 30000, 34300 a turn; tokens to add/.test(current));
		tmux.send('demo', 'Enter');
		await tmux.waitFor('demo', current => /allowed d-\w+ with \+\d+ tokens: Bash for w-tests/.test(current));
		const ended = await tmux.waitFor(
			'demo',
			current =>
				/w-tests +run the test shards .* done .* \d+k\/30k +\$\d+\.\d{3}\*/.test(current) && !current.includes('DECISIONS ('),
			30_000,
		);
		expect(ended.pane).not.toMatch(/claude asks \(budget\)/);

		// x, in Needs you on the review, asks for a reason and sends the worker back
		await tmux.waitFor('demo', current => /reviews \(1\).*\n +w-notes +waiting/.test(current));
		tmux.send('demo', 'x');
		await tmux.waitFor('demo', current => current.includes('send w-notes back — reason'));
		tmux.type('demo', 'list Node 20 and 22');
		tmux.send('demo', 'Enter');
		// The entry leaves Needs you once the board has read the send-back back from the ledger.
		await tmux.waitFor(
			'demo',
			current => /sent back w-notes: the worker runs again as w-\w+/.test(current) && !/w-notes +waiting/.test(current),
			30_000,
		);

		tmux.send('demo', 'q');
		await tmux.waitFor('demo', current => current.includes('demo ledger kept at'), 20_000);
		expect(existsSync(join(home, 'ledger.db'))).toBe(true);
	}, 240_000);

	it('ends its agents when its terminal is closed under it', async () => {
		const demo = new Tmux();
		try {
			demo.start('closing', 120, 30, {HOME: scratchDir('cr-home-')});
			demo.type('closing', `node ${BIN} demo`);
			demo.send('closing', 'Enter');
			const {pane} = await demo.waitFor('closing', current => /w-parser .*running/.test(current), 60_000);
			const pids = [...pane.matchAll(/ (\d{3,})$/gm)].map(match => Number(match[1]));
			expect(pids.length).toBeGreaterThan(0);
			// When the terminal goes away (a window closed, tmux killed)
			demo.kill();
			// Then every agent the demo showed ends with it
			await waitFor(() => pids.every(pid => !isAlive(pid)), {what: "the demo's agents to end", timeoutMs: 20_000});
		} finally {
			demo.kill();
		}
	}, 90_000);
});
