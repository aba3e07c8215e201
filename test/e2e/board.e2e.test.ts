import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {boardFixtureEvents, ingestAgentFixtures} from '../helpers/board-fixture.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const SESSION = 'board';
const tmux = new Tmux();
const home = scratchDir('cr-e2e-home-');
const ledgerFile = join(home, 'ledger.db');
const children: ChildProcess[] = [];

/** Whether every process of a group is gone. */
function groupIsGone(pgid: number): boolean {
	const ps = spawnSync('ps', ['-o', 'pid=,stat=', '-g', String(pgid)], {encoding: 'utf8'});
	return ps.stdout.split('\n').filter(line => line.trim() && !/\sZ/.test(line)).length === 0;
}

beforeAll(async () => {
	// A real ledger with tasks in every status, the real agent payloads ingested, and one task the
	// real wrapper is running right now (a shell with a child, so stopping must end a whole group).
	const ledger = openLedger(ledgerFile);
	const now = Date.now();
	ledger.writer.append(boardFixtureEvents(now));
	ingestAgentFixtures(ledger, now - 60_000);
	ledger.close();
	const wrapped = spawn(
		process.execPath,
		[BIN, 'run', '--ledger', ledgerFile, '--title', 'wrapped sleeper', '--', 'sh', '-c', 'sleep 300 & sleep 300; wait'],
		{
			env: {...process.env, CONTROLROOM_HOME: home},
			stdio: 'ignore',
			detached: true,
		},
	);
	children.push(wrapped);
	await waitFor(
		() => {
			const reader = openLedger(ledgerFile);
			const task = reader.reader.tasksForView(null).find(candidate => candidate.title === 'wrapped sleeper');
			reader.close();
			return task?.status === 'running' && task.pid !== null;
		},
		{what: 'the wrapper to record its child as running', on: [onLedgerChange(ledgerFile)]},
	);
	tmux.start(SESSION, 160, 45, {CONTROLROOM_HOME: home, PATH: process.env['PATH'] ?? ''});
	// The reconciler pass is pinned off (an hour) so the fixture PIDs, which are not real processes, stay as written.
	tmux.type(SESSION, `node ${BIN} --ledger ${ledgerFile} --reconcile 3600`);
	tmux.send(SESSION, 'Enter');
	await tmux.waitFor(SESSION, pane => pane.includes('RECENTLY ENDED (3)'));
	// As a person would: the first key comes once the board reads keys (its terminal in raw mode),
	// not while the shell's line editing would still hold it. Nothing announces a terminal's mode: polled.
	await waitFor(() => tmux.readsKeys(SESSION), {what: 'the board to read keys', timeoutMs: 8000});
}, 30_000);

afterAll(() => {
	tmux.kill();
	for (const child of children) {
		try {
			if (child.pid) process.kill(-child.pid, 'SIGKILL');
		} catch {
			// Already gone: the test stopped it.
		}
	}
});

describe('the board in tmux, on a real ledger', () => {
	it('shows each lane, progress not reported, unknown and the queue panel', () => {
		const pane = tmux.capture(SESSION);
		for (const lane of ['RUNNING (', 'STALLED (1)', 'LOST (1)', 'UNTRACKED (1)', 'RECENTLY ENDED (3)'])
			expect(pane).toContain(lane);
		// What was never reported reads so under its column's heading: never 0, never blank.
		const lines = pane.split('\n');
		const headings = lines.find(line => /^ {2}ID +TITLE/.test(line)) ?? '';
		const queued = lines.find(line => line.includes('t-queued')) ?? '';
		const under = (heading: string): string => queued.slice(headings.indexOf(heading));
		expect(headings, pane).toMatch(/PROGRESS +TOKENS +COST +PID$/);
		expect(under('PROGRESS')).toMatch(/^not reported /);
		expect(under('TOKENS')).toMatch(/^unknown /);
		expect(under('COST')).toMatch(/^unknown /);
		expect(under('PID')).toBe('unknown');
		expect(pane).toContain('NEEDS YOU (2)');
		expect(pane).toContain('which branch should I target?');
	});

	it('moves with j and k', async () => {
		// The id under the cursor (the rest of the line moves on with the clock).
		const cursorLine = (pane: string) => (pane.split('\n').find(line => line.startsWith('›')) ?? '').split(/\s+/)[1] ?? '';
		const before = cursorLine(tmux.capture(SESSION));
		tmux.send(SESSION, 'j');
		const {pane} = await tmux.waitFor(SESSION, current => cursorLine(current) !== before);
		expect(cursorLine(pane)).not.toBe(before);
		tmux.send(SESSION, 'k');
		await tmux.waitFor(SESSION, current => cursorLine(current) === before);
	});

	it('opens the timeline with Enter and returns with Esc', async () => {
		tmux.send(SESSION, 'Enter');
		await tmux.waitFor(SESSION, pane => pane.includes('TIMELINE ') && pane.includes('contract:'));
		tmux.send(SESSION, 'Escape');
		await tmux.waitFor(SESSION, pane => pane.includes('RECENTLY ENDED') && !pane.includes('TIMELINE '));
	});

	it('shows help with ?', async () => {
		tmux.send(SESSION, '?');
		await tmux.waitFor(SESSION, pane => pane.includes('KEYS') && pane.includes('acknowledge'));
		tmux.send(SESSION, 'Escape');
		await tmux.waitFor(SESSION, pane => pane.includes('RECENTLY ENDED'));
	});

	it('shows an event another process writes within 500 ms', async () => {
		const title = `late arrival ${Date.now()}`;
		const writer = openLedger(ledgerFile);
		const written = Date.now();
		writer.writer.append([{taskId: 't-late', type: EventType.registered, at: written, source: 'wrapper', data: {title}}]);
		writer.close();
		const {at} = await tmux.waitFor(SESSION, pane => pane.includes(title), 5000);
		const latency = at - written;
		process.stdout.write(`board e2e: event on screen ${latency} ms after it was written\n`);
		expect(latency).toBeLessThan(500);
	});

	it('stops a wrapped task after confirmation and leaves no process of its group', async () => {
		const reader = openLedger(ledgerFile);
		const task = reader.reader.tasksForView(null).find(candidate => candidate.title === 'wrapped sleeper');
		reader.close();
		expect(task?.pid).toBeTypeOf('number');
		const pgid = task?.pgid ?? task?.pid ?? 0;
		expect(groupIsGone(pgid)).toBe(false);
		tmux.send(SESSION, '/');
		await tmux.waitFor(SESSION, pane => pane.includes('enter keep'));
		tmux.type(SESSION, 'wrapped sleeper');
		await tmux.waitFor(SESSION, pane => pane.includes('/wrapped sleeper'));
		tmux.send(SESSION, 'Enter');
		await tmux.waitFor(SESSION, pane => pane.includes('/wrapped sleeper (esc clears)'));
		const filtered = tmux.capture(SESSION);
		expect(filtered.split('\n').find(line => line.startsWith('›'))).toContain('wrapped sleeper');
		tmux.send(SESSION, 's');
		await tmux.waitFor(SESSION, pane => pane.includes(`Stop ${task?.id}`));
		expect(groupIsGone(pgid)).toBe(false);
		tmux.send(SESSION, 'y');
		await tmux.waitFor(SESSION, pane => pane.includes(`stopped ${task?.id}`), 15_000);
		await tmux.waitFor(SESSION, pane => pane.includes('stopped (SIGTERM)') || pane.includes('stopped (SIGKILL)'));
		expect(groupIsGone(pgid)).toBe(true);
		const ledger = openLedger(ledgerFile);
		const requests = ledger.reader.eventsOf(task?.id ?? '').filter(event => event.type === EventType.stopRequested);
		ledger.close();
		expect(requests.map(event => event.source)).toEqual(['board']);
	});

	it('quits with q and gives the shell back', async () => {
		expect(tmux.foreground(SESSION)).toBe('node');
		tmux.send(SESSION, 'q');
		// The alternate screen is gone and the shell is the pane's foreground process again.
		await tmux.waitFor(SESSION, pane => !pane.includes('RECENTLY ENDED') && tmux.foreground(SESSION) === 'sh');
		tmux.type(SESSION, 'echo shell-is-back-$((40+2))');
		tmux.send(SESSION, 'Enter');
		await tmux.waitFor(SESSION, pane => pane.includes('shell-is-back-42'));
	});
});
