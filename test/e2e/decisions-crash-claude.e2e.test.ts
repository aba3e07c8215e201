import type {ChildProcess} from 'node:child_process';
import {spawn} from 'node:child_process';
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {
	decisionsOf,
	isAlive,
	paneEnv,
	promptUntilDialog,
	startBoard as startBoardIn,
	startClaudeTui,
} from '../helpers/claude-tui.ts';
import {HELD_PROMPT, RM_BUILD, endStarted, question, startHeld, taskOf, toolResults} from '../helpers/held-runs.ts';
import {runAsPerson} from '../helpers/person.ts';
import {realClientBox} from '../helpers/realclients.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onExit, onFileChange, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// Crash safety of the decision queue (docs/decisions.md, "Crash safety"), with the real Claude
// Code offline: three questions wait at once (the TUI's permission dialog, whose hook waits beside
// it, and two wrapped `claude -p` runs deferred by the hold policy), then every controlroom process
// is killed with SIGKILL: the board, a reconciler, the waiting hook, both wrappers. The agents'
// own Claude TUI is left alone, as a crash of controlroom would leave it.

let tmux: Tmux | undefined;
const started: ChildProcess[] = [];
afterEach(() => {
	endStarted(started);
	tmux?.kill();
});

/** The processes of controlroom working on this ledger: `node bin/controlroom ...` and the spool hook, by PID. */
function controlroomProcesses(home: string): {pid: number; argv: string[]}[] {
	const found: {pid: number; argv: string[]}[] = [];
	for (const entry of readdirSync('/proc')) {
		const pid = Number(entry);
		if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
		try {
			const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
			const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
			if (!environ.includes(`CONTROLROOM_HOME=${home}`)) continue;
			if (argv.includes(BIN) || argv.some(arg => arg.endsWith('spool-hook.sh'))) found.push({pid, argv});
		} catch {
			// gone meanwhile, or not ours to read
		}
	}
	return found;
}

describe('kill -9 of every controlroom process with three questions open (real Claude Code)', () => {
	it('nothing has run; both deferred runs are still open and each answer resumes and runs it once; the interactive one is no longer waiting and its own dialog answers it', async () => {
		const box = realClientBox({SCENARIO: 'script', CLAUDE_TIMEOUT: '280'});
		const home = String(box.env['CONTROLROOM_HOME']);
		const ledgerFile = join(home, 'ledger.db');
		// One script for every agent: the TUI's turns, and the held runs' under their prompt.
		const script = join(box.dir, 'script.json');
		writeFileSync(
			script,
			JSON.stringify({
				main: [{tool: 'Bash', input: {command: 'touch hi.txt', description: 'Create hi.txt'}}, {text: 'created'}],
				sub: {[HELD_PROMPT]: [RM_BUILD, {text: 'cleaned'}]},
			}),
		);
		const claudeHome = join(box.dir, 'home');
		const install = box.cli(['hooks', 'install', '--claude'], {HOME: claudeHome, CLAUDE_CONFIG_DIR: join(claudeHome, '.claude')});
		expect(install.status, install.stderr).toBe(0);
		expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
		const decisions = () => decisionsOf(box);

		tmux = new Tmux();
		const env = paneEnv(box, script);
		const startBoard = (session: string) => startBoardIn(tmux as Tmux, session, env);
		await startBoard('board1');
		// A reconciler of its own beside the board, as a person may run one.
		const reconciler = spawn(process.execPath, [BIN, 'reconcile', '--interval', '2', '--agents', 'cr-no-such-agent'], {
			env: {...box.env, SCRIPT_FILE: script},
			stdio: 'ignore',
		});
		started.push(reconciler);

		// Two headless runs held by the policy, each in its own folder
		const dirs = [scratchDir('cr-rc-held1-'), scratchDir('cr-rc-held2-')];
		const runs = dirs.map(dir => startHeld(box, [], started, {dir, scriptFile: script}));
		const ids = [await question(runs[0]!), await question(runs[1]!)];
		// In the queue's order (the board's, oldest first): the two runs race to ask
		const lane = box.snapshot().queue.lanes.find(candidate => candidate.name === 'decisions');
		const queued = (lane?.items ?? []).map(item => (item as {taskId: string}).taskId);
		const order = [0, 1].sort((one, other) => queued.indexOf(ids[one]!) - queued.indexOf(ids[other]!));
		expect(order.map(index => ids[index])).toEqual(queued);
		const held = order.map(index => ids[index]!);
		const heldTasks = order.map(index => taskOf(runs[index]!));
		const heldDirs = order.map(index => dirs[index]!);

		// The interactive one: the TUI's dialog, its hook waiting beside it
		await startClaudeTui(tmux, 'agent', env, box.dir);
		await promptUntilDialog(tmux, 'agent', 'create hi.txt', 'touch hi.txt');
		await tmux.waitFor('board1', pane => /decisions \(3\)/.test(pane), 10_000);
		const asked = decisions().find(decision => decision.kind === 'permission');
		if (!asked) throw new Error('no permission question');
		expect(asked).toMatchObject({state: 'open', isWaiting: true, tool: 'Bash', args: {command: 'touch hi.txt'}});
		// Every question names the call it is about (the interactive one by the PreToolUse before it)
		for (const decision of decisions()) expect(decision.toolUseId).toMatch(/^toolu_/);

		// kill -9 of every controlroom process, by PID: board, reconciler, both wrappers, the waiting hook
		const victims = controlroomProcesses(home);
		const roles = victims.map(victim => victim.argv[victim.argv.indexOf(BIN) + 1] ?? victim.argv.join(' '));
		expect(roles.filter(role => role === 'board')).toHaveLength(1);
		expect(roles.filter(role => role === 'reconcile')).toHaveLength(1);
		expect(roles.filter(role => role === 'run')).toHaveLength(2);
		expect(roles.filter(role => role === 'permission-hook')).toHaveLength(1);
		for (const victim of victims) {
			try {
				process.kill(victim.pid, 'SIGKILL');
			} catch {
				// a spool hook caught in the scan ended by itself meanwhile
			}
		}
		await waitFor(() => victims.every(victim => !isAlive(victim.pid)), {
			what: 'every controlroom process gone',
			timeoutMs: 10_000,
			on: [...runs.map(run => onExit(run.child)), onExit(reconciler), onLedgerChange(ledgerFile)],
		});
		expect(controlroomProcesses(home)).toEqual([]);
		// The agent's dialog is still on screen, and nothing ran
		expect(tmux.capture('agent')).toContain('Do you want to proceed?');
		expect(existsSync(join(box.dir, 'project', 'hi.txt'))).toBe(false);
		for (const dir of dirs) expect(existsSync(join(dir, 'project', 'build', 'f'))).toBe(true);

		// Restart: the board, as a person would. Its reconciler pass settles what the crash left.
		await startBoard('board2');
		await waitFor(() => decisions().find(decision => decision.id === asked.id)?.state === 'withdrawn', {
			what: 'the interactive question withdrawn after its hook died',
			on: [onLedgerChange(ledgerFile)],
			timeoutMs: 30_000,
			explain: () => JSON.stringify(decisions()),
		});
		const after = decisions();
		expect(after.find(decision => decision.id === asked.id)).toMatchObject({
			isWaiting: false,
			answer: null,
			withdrawn: {why: 'its hook died; the agent asks in its own pane'},
		});
		for (const id of held) expect(after.find(decision => decision.id === id)).toMatchObject({kind: 'deferred', state: 'open'});
		const statusOf = (task: string | undefined) => box.snapshot().tasks.find(row => row['id'] === task)?.['status'];
		expect(heldTasks.map(statusOf)).toEqual(['running', 'running']);
		// On screen: the two deferred questions wait on the board, the interactive one is gone from it,
		// decide refuses it, and its session's timeline says it is no longer waiting
		const board = await tmux.waitFor(
			'board2',
			pane => /decisions \(2\)/.test(pane) && held.every(id => pane.includes(id)),
			20_000,
		);
		expect(board.pane).not.toContain(asked.id);
		// The session itself still needs the person, in its own pane (Claude's own notification)
		await tmux.waitFor('board2', pane => /needs \(1\)/.test(pane) && pane.includes('Claude needs your permission'), 20_000);
		const late = runAsPerson(['decide', asked.id, 'allow'], {env: box.env});
		expect(late.status).toBe(1);
		expect(late.stderr).toContain('no longer waiting');
		const timeline = box.cli(['timeline', asked.task]);
		expect(timeline.stdout).toContain(`${asked.id} no longer waiting: its hook died; the agent asks in its own pane`);
		expect(existsSync(join(box.dir, 'project', 'hi.txt'))).toBe(false);
		for (const dir of dirs) expect(existsSync(join(dir, 'project', 'build', 'f'))).toBe(true);

		// Each deferred one answered from the board: its run resumes (the board's reconciler starts
		// it), runs its call once and ends done
		tmux.send('board2', 'Tab');
		await tmux.waitFor('board2', pane => pane.includes('k acknowledges'));
		for (const [index, id] of held.entries()) {
			tmux.send('board2', 'a');
			// As for a held effect, the call is shown whole before y allows it (docs/decisions.md).
			await tmux.waitFor('board2', pane => pane.includes(`Allow ${id} exactly as shown above?`));
			tmux.send('board2', 'y');
			await tmux.waitFor('board2', pane => pane.includes(`allowed ${id}`), 10_000);
			const dir = heldDirs[index] as string;
			await waitFor(() => !existsSync(join(dir, 'project', 'build')) && statusOf(heldTasks[index]) === 'done', {
				what: `held run ${index + 1} resumed, its call run, done`,
				timeoutMs: 90_000,
				on: [onLedgerChange(ledgerFile), onFileChange(join(dir, 'project'))],
				explain: () => JSON.stringify(box.snapshot().tasks.map(task => [task['id'], task['status']])),
			});
			expect(toolResults(dir)).toEqual(['(Bash completed with no output)']);
			expect(existsSync(join(dir, 'project', 'keep.txt'))).toBe(true);
		}
		expect(
			decisions()
				.filter(decision => held.includes(decision.id))
				.map(decision => decision.state),
		).toEqual(['used', 'used']);

		// The interactive one: still nothing ran, and the agent's own dialog answers it
		expect(existsSync(join(box.dir, 'project', 'hi.txt'))).toBe(false);
		tmux.send('agent', '1');
		await waitFor(() => existsSync(join(box.dir, 'project', 'hi.txt')), {
			what: 'hi.txt from the pane',
			on: [onFileChange(join(box.dir, 'project'))],
			timeoutMs: 20_000,
		});
		await tmux.waitFor('agent', pane => pane.includes('created'), 30_000);
	}, 500_000);
});
