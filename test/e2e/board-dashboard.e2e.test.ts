import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {helpLines} from '../../src/core/board/keymap.ts';
import {EventType} from '../../src/core/events.ts';
import type {Task} from '../../src/core/task.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {boardFixtureEvents} from '../helpers/board-fixture.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// The board as a k9s or htop user tries it: the real binary in tmux, on a real ledger, with a task
// the real wrapper runs. WIDE is 160×45; NARROW is 80×24 and runs with --no-bell.
const WIDE = 'wide';
const NARROW = 'narrow';
const tmux = new Tmux();
const home = scratchDir('cr-e2e-dash-');
const ledgerFile = join(home, 'ledger.db');
const LOG_TITLE = 'log me please: tail the output of a long running build and keep an eye on it';
/** Two ids longer than the id column at 80 columns, told apart early. */
const LONG_IDS = ['session-alpha-0123456789abcdef', 'session-beta-0123456789abcdef'] as const;
const children: ChildProcess[] = [];
let logged: Task;
const claims: string[] = [];
/** `RUNNING (N)` with no filter, read when the board first opens. */
let running = '';
/** The narrow pane's shell before its board opened. */
let shellBefore: string[] = [];

function cli(...args: string[]): string {
	const result = spawnSync(process.execPath, [BIN, ...args, '--ledger', ledgerFile], {
		encoding: 'utf8',
		env: {...process.env, CONTROLROOM_HOME: home},
	});
	if (result.status !== 0) throw new Error(`controlroom ${args.join(' ')}: ${result.stderr}`);
	return result.stdout;
}

function readLedger<T>(read: (ledger: ReturnType<typeof openLedger>) => T): T {
	const ledger = openLedger(ledgerFile);
	try {
		return read(ledger);
	} finally {
		ledger.close();
	}
}

/** The id on the line the cursor is on (`› id ...`). */
function cursorId(pane: string): string {
	return (pane.split('\n').find(line => line.startsWith('›')) ?? '').split(/\s+/)[1] ?? '';
}

/** The pane's lines without trailing spaces or trailing empty lines. */
function lines(pane: string): string[] {
	const all = pane.split('\n').map(line => line.trimEnd());
	while (all.length > 0 && all.at(-1) === '') all.pop();
	return all;
}

/** Starts the board in a session and waits until it reads keys. */
async function openBoard(session: string, command: string): Promise<void> {
	tmux.type(session, command);
	tmux.send(session, 'Enter');
	await tmux.waitFor(session, pane => pane.includes('RUNNING (') && pane.includes('sort: '));
	// Nothing announces a terminal's mode: polled.
	await waitFor(() => tmux.readsKeys(session), {what: 'the board to read keys', timeoutMs: 8000});
}

/** Filters the lanes as a person does: `/`, the text, Enter; returns once the filter is in force. */
async function filterBy(session: string, text: string): Promise<string> {
	tmux.send(session, '/');
	await tmux.waitFor(session, pane => pane.includes('enter keep'));
	tmux.type(session, text);
	tmux.send(session, 'Enter');
	return (await tmux.waitFor(session, pane => pane.includes(`/${text} (esc clears)`))).pane;
}

/** Clears the filter with Esc; returns once the lanes are unfiltered and no prompt is open. */
async function clearFilter(session: string): Promise<string> {
	tmux.send(session, 'Escape');
	return (await tmux.waitFor(session, pane => !pane.includes('(esc clears)') && !pane.includes('enter keep'))).pane;
}

beforeAll(async () => {
	const now = Date.now();
	readLedger(ledger => {
		ledger.writer.append(boardFixtureEvents(now));
		ledger.writer.append(
			LONG_IDS.flatMap((taskId, index) => [
				{taskId, type: EventType.registered, at: now - (index + 1) * 1000, source: 'cli', data: {title: `long id ${index + 1}`}},
			]),
		);
	});
	// Three claims of one contract, the first two passed back: ids that differ only at their end.
	const repo = makeContractRepo();
	const contract = repo.place('valid-task.yaml');
	for (let round = 1; round <= 3; round += 1) {
		const taken = JSON.parse(cli('take', contract, '--as', `worker-${round}`, '--json')) as {taskId: string};
		claims.push(taken.taskId);
		if (round < 3) cli('pass-back', taken.taskId, '--reason', `round ${round} blocked`);
	}
	// A wrapped `cat`: what the test writes to its stdin is the task's output.
	const wrapper = spawn(process.execPath, [BIN, 'run', '--ledger', ledgerFile, '--title', LOG_TITLE, '--', 'cat'], {
		env: {...process.env, CONTROLROOM_HOME: home},
		stdio: ['pipe', 'ignore', 'ignore'],
		detached: true,
	});
	children.push(wrapper);
	logged = await waitFor(
		() => {
			const task = readLedger(ledger => ledger.reader.tasksForView(null).find(candidate => candidate.title === LOG_TITLE));
			return task?.status === 'running' && task.pid !== null && task;
		},
		{what: 'the wrapper to record cat as running', on: [onLedgerChange(ledgerFile)]},
	);
	wrapper.stdin?.write('first line of output\n');
	const env = {CONTROLROOM_HOME: home, PATH: process.env['PATH'] ?? ''};
	// The reconciler pass is pinned off (an hour) so the fixture PIDs, which are not real processes, stay as written.
	const board = `node ${BIN} --ledger ${ledgerFile} --reconcile 3600`;
	tmux.start(WIDE, 160, 45, env);
	tmux.start(NARROW, 80, 24, {...env, CR_BOARD: `${board} --no-bell`});
	await openBoard(WIDE, board);
	running = /RUNNING \(\d+\)/.exec(tmux.capture(WIDE))?.[0] ?? 'RUNNING (?)';
	tmux.type(NARROW, 'echo before-board');
	tmux.send(NARROW, 'Enter');
	await tmux.waitFor(NARROW, pane => pane.includes('\nbefore-board'));
}, 60_000);

afterAll(() => {
	tmux.kill();
	for (const child of children) {
		try {
			if (child.pid) process.kill(-child.pid, 'SIGKILL');
		} catch {
			// Already gone.
		}
	}
});

describe('the board as people expect a terminal dashboard to work', () => {
	it('filters live while typing, erases one character per Backspace even in a burst, keeps the filter in sight, and clears it with Esc', async () => {
		tmux.send(WIDE, '/');
		await tmux.waitFor(WIDE, pane => pane.includes('enter keep'));
		tmux.type(WIDE, 'log mexx');
		// Live: nothing matches yet, before any Enter.
		await tmux.waitFor(WIDE, pane => pane.includes('/log mexx') && pane.includes('RUNNING (0)'));
		// Two Backspaces in one burst (one send-keys: one write to the terminal).
		tmux.send(WIDE, 'BSpace', 'BSpace');
		const {pane} = await tmux.waitFor(WIDE, current => current.includes('RUNNING (1)'));
		expect(pane).toContain('/log me');
		expect(pane).not.toContain('/log mex');
		expect(cursorId(pane)).toBe(logged.id);
		tmux.send(WIDE, 'Enter');
		await tmux.waitFor(WIDE, current => current.includes('/log me (esc clears)'));
		tmux.send(WIDE, 'Escape');
		await tmux.waitFor(WIDE, current => current.includes(running) && !current.includes('esc clears'));
	});

	it('sorts with o through newest, longest idle, most tokens and title, and says which in the header', async () => {
		// Where a task's row is on screen, by its id.
		const row = (pane: string, id: string) => pane.split('\n').findIndex(line => line.slice(2).split(/\s+/)[0] === id);
		const newest = tmux.capture(WIDE);
		expect(newest).toContain('sort: newest');
		expect(row(newest, 't-queued')).toBeLessThan(row(newest, 't-quiet'));
		expect(row(newest, 't-quiet')).toBeLessThan(row(newest, 't-progress'));
		tmux.send(WIDE, 'o');
		const idle = await tmux.waitFor(WIDE, pane => pane.includes('sort: longest idle'));
		expect(row(idle.pane, 't-progress')).toBeLessThan(row(idle.pane, 't-queued'));
		tmux.send(WIDE, 'o');
		const tokens = await tmux.waitFor(WIDE, pane => pane.includes('sort: most tokens'));
		// The only task with known tokens leads its lane; unknown counts go last, never as 0.
		expect(row(tokens.pane, 't-progress')).toBe(tokens.pane.split('\n').findIndex(line => line.startsWith('RUNNING (')) + 1);
		tmux.send(WIDE, 'o');
		const title = await tmux.waitFor(WIDE, pane => pane.includes('sort: title'));
		// fix csv export, waiting for a slot, write the changelog
		expect(row(title.pane, 't-progress')).toBeLessThan(row(title.pane, 't-queued'));
		expect(row(title.pane, 't-queued')).toBeLessThan(row(title.pane, 't-quiet'));
		tmux.send(WIDE, 'o');
		await tmux.waitFor(WIDE, pane => pane.includes('sort: newest'));
	});

	it("shows a wrapped task's newest output within 500 ms in the log view, and returns with Esc", async () => {
		expect(cursorId(await filterBy(WIDE, 'log me'))).toBe(logged.id);
		tmux.send(WIDE, 'l');
		await tmux.waitFor(WIDE, pane => pane.includes(`LOG ${logged.id}`) && pane.includes('first line of output'));
		const line = `newest output ${Date.now()}`;
		const written = Date.now();
		children[0]?.stdin?.write(`${line}\n`);
		const {pane, at} = await tmux.waitFor(WIDE, current => current.includes(line), 5000);
		const latency = at - written;
		process.stdout.write(`board e2e: wrapped output in the log view ${latency} ms after it was written\n`);
		expect(latency).toBeLessThan(500);
		expect(pane.indexOf('first line of output')).toBeLessThan(pane.indexOf(line));
		expect(pane).toContain('following new output');
		tmux.send(WIDE, 'Escape');
		await tmux.waitFor(WIDE, current => current.includes('RUNNING (1)') && !current.includes('LOG '));
		expect(await clearFilter(WIDE)).toContain(running);
	});

	it('says at once why an ended or lost task cannot be stopped, without asking first', async () => {
		expect(cursorId(await filterBy(WIDE, 't-lost'))).toBe('t-lost');
		tmux.send(WIDE, 's');
		const {pane} = await tmux.waitFor(WIDE, current => current.includes('cannot stop t-lost'));
		expect(pane).toContain('s: cannot stop t-lost: it is lost (pid 6161 gone with no exit recorded): nothing is left to stop');
		expect(pane).not.toContain('Stop t-lost');
		expect(await clearFilter(WIDE)).toContain(running);
	});

	it('writes ids whole where the width allows, and a passed-back claim as passed back', () => {
		const pane = tmux.capture(WIDE);
		for (const id of claims) expect(pane).toContain(id);
		const passedBack = pane.split('\n').filter(line => line.includes('passed back'));
		expect(passedBack.map(line => line.split(/\s+/)[1]).sort()).toEqual(claims.slice(0, 2).sort());
		expect(pane).not.toContain('exit unknown');
	});

	it('rings the bell into tmux’s window flag when a new entry comes into Needs you; --no-bell does not', async () => {
		shellBefore = lines(tmux.capture(NARROW));
		await openBoard(NARROW, '$CR_BOARD');
		const needs = Number(/NEEDS YOU \((\d+)\)/.exec(tmux.capture(WIDE))?.[1]);
		// The alert is for a window one is not looking at: another window of each session is made current.
		for (const session of [WIDE, NARROW]) tmux.run(['new-window', '-t', session]);
		try {
			const flag = (session: string) => tmux.run(['display-message', '-p', '-t', `${session}:0`, '#{window_bell_flag}']).trim();
			expect([flag(WIDE), flag(NARROW)]).toEqual(['0', '0']);
			readLedger(ledger =>
				ledger.writer.append([
					{taskId: 't-progress', type: EventType.needRaised, at: Date.now(), source: 'cli', data: {message: 'which port?'}},
				]),
			);
			for (const session of [WIDE, NARROW]) {
				await tmux.waitFor(session, pane => pane.includes(`NEEDS YOU (${needs + 1})`), 8000, `${session}:0`);
			}
			// The bell is written with the frame that shows the entry; tmux sets the flag as it reads it. Polled: nothing announces it.
			await waitFor(() => flag(WIDE) === '1', {what: "the bell to reach tmux's window flag", timeoutMs: 5000});
			expect(flag(NARROW)).toBe('0');
		} finally {
			for (const session of [WIDE, NARROW]) tmux.run(['kill-window', '-t', `${session}:1`]);
		}
	});

	it('pages with PgDn/PgUp and jumps with g/G at 80×24', async () => {
		const first = cursorId(tmux.capture(NARROW));
		tmux.send(NARROW, 'j');
		const second = cursorId((await tmux.waitFor(NARROW, pane => cursorId(pane) !== first)).pane);
		tmux.send(NARROW, 'G');
		const bottom = await tmux.waitFor(NARROW, pane => cursorId(pane) === 't-done');
		expect(bottom.pane).toMatch(/↑ \d+ more: RUNNING/);
		tmux.send(NARROW, 'g');
		await tmux.waitFor(NARROW, pane => cursorId(pane) === first);
		tmux.send(NARROW, 'PageDown');
		const paged = await tmux.waitFor(NARROW, pane => cursorId(pane) !== first);
		// A page, not a row: past the second row, with the window scrolled.
		expect(cursorId(paged.pane)).not.toBe(second);
		expect(paged.pane).toMatch(/↑ \d+ more/);
		tmux.send(NARROW, 'PageUp');
		await tmux.waitFor(NARROW, pane => cursorId(pane) === first);
	});

	it('shows ids at 80 columns whole, or cut to a prefix no other task shares, and fits the stop question', async () => {
		const claimed = await filterBy(NARROW, 'Preserve');
		// Three claims of one contract differ only at their end: whole, they are told apart.
		expect(claimed).toContain('RECENTLY ENDED (2)');
		for (const claim of claims) expect(claimed).toContain(claim);
		await clearFilter(NARROW);
		const filtered = await filterBy(NARROW, 'long id');
		expect(filtered).toContain('RUNNING (2)');
		const shown = filtered
			.split('\n')
			.filter(line => /^[› ] /.test(line) && line.includes('long id'))
			.map(line => line.slice(2).split(/\s+/)[0] ?? '');
		expect(shown).toHaveLength(2);
		for (const text of shown) {
			expect(text.endsWith('…')).toBe(true);
			const prefix = text.slice(0, -1);
			expect(LONG_IDS.filter(id => id.startsWith(prefix))).toHaveLength(1);
		}
		await clearFilter(NARROW);
		expect(cursorId(await filterBy(NARROW, 'log me'))).toBe(logged.id);
		tmux.send(NARROW, 's');
		const asked = await tmux.waitFor(NARROW, current => current.includes(`Stop ${logged.id}`));
		const question = lines(asked.pane).find(line => line.startsWith(`Stop ${logged.id}`)) ?? '';
		expect(question).toMatch(new RegExp(`\\(pid ${logged.pid}\\)\\? y to stop, n to cancel$`));
		expect(question).toContain('“log me please');
		tmux.send(NARROW, 'n');
		await tmux.waitFor(NARROW, current => current.includes('stop cancelled'));
		expect(await clearFilter(NARROW)).toContain(running);
	});

	it('lists each key once in ? help at 80×24, every key on a line of its own, paging through it', async () => {
		// Help is taller than 24 rows: it scrolls, its last line saying which of its lines show.
		const WINDOW = /lines (\d+)–(\d+) of (\d+)/;
		const rows = new Map<number, string>();
		tmux.send(NARROW, '?');
		let {pane} = await tmux.waitFor(NARROW, current => current.includes('esc close') && WINDOW.test(current));
		for (;;) {
			const all = lines(pane);
			expect(all.length).toBeLessThanOrEqual(24);
			const noteAt = all.findIndex(line => WINDOW.test(line));
			const [start, end, total] = (WINDOW.exec(all[noteAt] ?? '') ?? []).slice(1).map(Number) as [number, number, number];
			all.slice(noteAt - (end - start + 1), noteAt).forEach((line, index) => rows.set(start + index, line));
			if (end >= total) break;
			tmux.send(NARROW, 'PageDown');
			({pane} = await tmux.waitFor(NARROW, current => Number(WINDOW.exec(current)?.[1] ?? 0) > start));
		}
		const shown = [...rows.values()].map(line => line.trimStart().split(/\s{2,}/)[0]);
		for (const {keys} of helpLines())
			expect(
				shown.filter(key => key === keys),
				keys,
			).toHaveLength(1);
		tmux.send(NARROW, 'Escape');
		await tmux.waitFor(NARROW, current => current.includes(running) && !current.includes('esc close'));
	});

	it('gives the terminal back exactly after a resize: q, and Ctrl-C with exit status 130', async () => {
		// The shell as it was before the board, with the line that opened it.
		const before = [...shellBefore.slice(0, -1), '$ $CR_BOARD'];
		tmux.run(['resize-window', '-t', NARROW, '-x', '200', '-y', '50']);
		await tmux.waitFor(NARROW, pane => {
			const header = (pane.split('\n')[0] ?? '').trimEnd();
			return header.length > 150 && header.endsWith('sort: newest');
		});
		tmux.send(NARROW, 'q');
		await tmux.waitFor(NARROW, pane => tmux.foreground(NARROW) === 'sh' && lines(pane).at(-1) === '$');
		expect(lines(tmux.capture(NARROW))).toEqual([...before, '$']);
		expect(tmux.readsKeys(NARROW)).toBe(false);
		expect(tmux.run(['display-message', '-p', '-t', NARROW, '#{cursor_flag}']).trim()).toBe('1');
		// Again, shrinking this time, and leaving with Ctrl-C.
		await openBoard(NARROW, '$CR_BOARD');
		tmux.run(['resize-window', '-t', NARROW, '-x', '80', '-y', '24']);
		await tmux.waitFor(NARROW, pane => {
			const header = (pane.split('\n')[0] ?? '').trimEnd();
			return header.length <= 80 && header.endsWith('sort: newest');
		});
		tmux.send(NARROW, 'C-c');
		await tmux.waitFor(NARROW, pane => tmux.foreground(NARROW) === 'sh' && lines(pane).at(-1) === '$');
		tmux.type(NARROW, 'echo status=$?');
		tmux.send(NARROW, 'Enter');
		const {pane} = await tmux.waitFor(NARROW, current => /status=\d+/.test(current));
		expect(lines(pane)).toEqual([...before, '$ $CR_BOARD', '$ echo status=$?', 'status=130', '$']);
		expect(tmux.readsKeys(NARROW)).toBe(false);
	});
});
