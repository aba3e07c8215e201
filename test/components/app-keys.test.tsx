import {render} from 'ink-testing-library';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {join} from 'node:path';
import {App, type BoardAdapters} from '../../components/App.tsx';
import {ClockProvider} from '../../components/ClockProvider.tsx';
import {applyKeyRemaps} from '../../src/core/board/key-config.ts';
import {EventType} from '../../src/core/events.ts';
import {createBoardFeed} from '../../src/ledger/board-feed.ts';
import {acknowledgeEntry} from '../../src/ledger/queue.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {boardFixtureEvents} from '../helpers/board-fixture.ts';
import {scratchDir} from '../helpers/cli.ts';
import {KEYS, waitForFrame, waitForKeys} from '../helpers/keys.ts';
import {onEvent, waitFor} from '../helpers/wait-for.ts';

const open: {ledger: Ledger | null; unmount: () => void}[] = [];
afterEach(() => {
	for (const item of open.splice(0)) {
		item.unmount();
		item.ledger?.close();
	}
});

async function renderBoard(extra: Partial<BoardAdapters> = {}, given?: Ledger) {
	const ledger = given ?? openLedger(join(scratchDir('cr-board-'), 'ledger.db'));
	const now = Date.now();
	if (!given) ledger.writer.append(boardFixtureEvents(now));
	const adapters: BoardAdapters = {
		// k's adapter writes the acknowledgement as the board's gate does once it found a person; the
		// gate's own check needs a real terminal, and is tested with the board in tmux.
		feed: createBoardFeed(ledger, {
			acknowledge: (taskId, signalAt, at) => acknowledgeEntry(ledger, taskId, signalAt, at, 'board'),
		}),
		ledgerFiles: [ledger.path, `${ledger.path}-wal`],
		spoolDir: null,
		options: {},
		stopUnavailable: 'stopping is not wired in this test',
		...extra,
	};
	const instance = render(
		<ClockProvider intervalMs={1000}>
			<App adapters={adapters} />
		</ClockProvider>,
	);
	// A ledger handed in is closed by whoever opened it first.
	open.push({ledger: given ? null : ledger, unmount: instance.unmount});
	// The fixture's three running tasks; a ledger handed in may have fewer by now.
	await waitForFrame(instance, given ? 'RUNNING (' : 'RUNNING (3)');
	await waitForKeys(instance);
	return {...instance, ledger};
}

/** The board as `person` sees it: its looks recorded by the feed, as `controlroom board` wires them. */
async function renderBoardAs(person: string, given?: Ledger) {
	const ledger = given ?? openLedger(join(scratchDir('cr-board-'), 'ledger.db'));
	if (!given) ledger.writer.append(boardFixtureEvents(Date.now()));
	return renderBoard({feed: createBoardFeed(ledger, {person}), options: {person}}, ledger);
}

describe('board keys', () => {
	it('moves with j and k', async () => {
		const board = await renderBoard();
		await waitForFrame(board, '› t-queued');
		board.stdin.write('j');
		await waitForFrame(board, '› t-quiet');
		board.stdin.write(KEYS.down);
		await waitForFrame(board, '› t-progress');
		board.stdin.write('k');
		await waitForFrame(board, '› t-quiet');
	});

	it('opens the timeline with enter and returns with esc', async () => {
		const board = await renderBoard();
		board.stdin.write('j');
		await waitForFrame(board, '› t-quiet');
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, 'TIMELINE t-quiet');
		expect(board.lastFrame()).toContain('1 heartbeat');
		board.stdin.write(KEYS.escape);
		await waitForFrame(board, 'RUNNING (3)');
	});

	it('reads keys sent together one by one: j then Enter opens the row j moved to', async () => {
		const board = await renderBoard();
		await waitForFrame(board, '› t-queued');
		board.stdin.write(`j${KEYS.enter}`);
		await waitForFrame(board, 'TIMELINE t-quiet');
	});

	it('reads Enter after the render j caused, however late that render comes', async () => {
		// Given a board whose render after j is late: timers due before it run first, as they do when
		// React's scheduler yields on a loaded machine (this failed 1 run in 30 under two CPU burners)
		const board = await renderBoard();
		await waitForFrame(board, '› t-queued');
		vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']});
		try {
			board.stdin.write(`j${KEYS.enter}`);
			vi.advanceTimersByTime(1);
		} finally {
			vi.useRealTimers();
		}
		// Then Enter still opens the row j moved to
		await waitForFrame(board, 'TIMELINE t-quiet');
	});

	it('shows help with ? and hides it with esc', async () => {
		const board = await renderBoard();
		board.stdin.write('?');
		await waitForFrame(board, 'KEYS');
		board.stdin.write(KEYS.escape);
		await waitForFrame(board, 'RUNNING (3)');
	});

	it('refuses to stop a task whose PID is unknown and says why', async () => {
		const board = await renderBoard();
		board.stdin.write('j');
		await waitForFrame(board, '› t-quiet');
		board.stdin.write('s');
		await waitForFrame(board, 'cannot stop t-quiet: its PID is unknown');
	});

	it('asks before stopping and stops through the stop function only after y', async () => {
		const stopped: string[] = [];
		const board = await renderBoard({
			stop: async taskId => (stopped.push(taskId), {isStopped: true, message: `stopped ${taskId}`}),
		});
		board.stdin.write('j');
		board.stdin.write('j');
		await waitForFrame(board, '› t-progress');
		board.stdin.write('s');
		await waitForFrame(board, 'Stop t-progress “fix csv export” (pid');
		board.stdin.write('n');
		await waitForFrame(board, 'stop cancelled');
		expect(stopped).toEqual([]);
		board.stdin.write('s');
		await waitForFrame(board, 'Stop t-progress');
		board.stdin.write('y');
		await waitForFrame(board, 'stopped t-progress');
		expect(stopped).toEqual(['t-progress']);
	});

	it('keeps the cursor on a task it stopped while the task moves to recently ended', async () => {
		let ledgerPath = '';
		const board = await renderBoard({
			stop: async taskId => {
				const writer = openLedger(ledgerPath);
				writer.writer.append([{taskId, type: EventType.stopped, at: Date.now(), source: 'board', data: {signal: 'SIGTERM'}}]);
				writer.close();
				return {isStopped: true, message: `stopped ${taskId}`};
			},
		});
		ledgerPath = board.ledger.path;
		board.stdin.write('j');
		await waitForFrame(board, '› t-quiet');
		board.stdin.write('j');
		await waitForFrame(board, '› t-progress');
		board.stdin.write('s');
		await waitForFrame(board, 'Stop t-progress');
		board.stdin.write('y');
		await waitForFrame(board, 'RECENTLY ENDED (4)');
		const frame = board.lastFrame() ?? '';
		expect(frame.split('\n').find(line => line.startsWith('›'))).toContain('t-progress');
		expect(frame.split('\n').find(line => line.startsWith('›'))).toContain('stopped (SIGTERM)');
	});

	it('acknowledges the Needs you entry under the cursor as a queue.acknowledged event', async () => {
		const board = await renderBoard();
		await waitForFrame(board, 'NEEDS YOU (2)');
		board.stdin.write(KEYS.tab);
		await waitForFrame(board, 'k acknowledges');
		board.stdin.write('k');
		await waitForFrame(board, 'NEEDS YOU (1)');
		const acks = board.ledger.reader.eventsOfType([EventType.acknowledged]);
		expect(acks).toHaveLength(1);
		expect(acks[0]?.source).toBe('board');
		expect(typeof acks[0]?.data['signalAt']).toBe('number');
	});

	it('says plainly when there is nothing held to approve', async () => {
		const board = await renderBoard();
		board.stdin.write('a');
		await waitForFrame(board, 'a: no held effects to approve');
	});

	it('says at once, without asking, when x has nothing to send back', async () => {
		const sent: string[] = [];
		const board = await renderBoard({sendBack: async taskId => (sent.push(taskId), {isSentBack: true, message: 'sent'})});
		await waitForFrame(board, '› t-queued');
		board.stdin.write('x');
		await waitForFrame(board, 'x: t-queued is not waiting for a person');
		expect(board.lastFrame()).not.toContain('reason');
		expect(sent).toEqual([]);
	});

	it('asks for a reason on x and sends the Needs you entry back with it', async () => {
		const sent: {taskId: string; reason: string}[] = [];
		const board = await renderBoard({
			sendBack: async (taskId, reason) => {
				sent.push({taskId, reason});
				return {isSentBack: true, message: `sent back ${taskId}: the worker runs again`};
			},
		});
		board.stdin.write(KEYS.tab);
		await waitForFrame(board, 'k acknowledges');
		board.stdin.write('x');
		await waitForFrame(board, 'send t-failed back');
		board.stdin.write('raise the timeout to 30 s');
		await waitForFrame(board, 'raise the timeout to 30 s');
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, 'sent back t-failed: the worker runs again');
		expect(sent).toEqual([{taskId: 't-failed', reason: 'raise the timeout to 30 s'}]);
	});

	it('sends nothing back when the reason is empty or the prompt is cancelled', async () => {
		const sent: string[] = [];
		const board = await renderBoard({sendBack: async taskId => (sent.push(taskId), {isSentBack: true, message: 'sent'})});
		board.stdin.write(KEYS.tab);
		await waitForFrame(board, 'k acknowledges');
		board.stdin.write('x');
		await waitForFrame(board, 'send t-failed back');
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, 'a reason is required; t-failed was not sent back');
		board.stdin.write('x');
		await waitForFrame(board, 'send t-failed back');
		board.stdin.write('never mind');
		await waitForFrame(board, 'never mind');
		board.stdin.write(KEYS.escape);
		await waitForFrame(board, 'k acknowledges');
		expect(board.lastFrame()).not.toContain('send t-failed back');
		expect(sent).toEqual([]);
	});

	it('filters live while typing, Backspace erasing one character each even in a burst, and keeps the filter on the status line', async () => {
		const board = await renderBoard();
		board.stdin.write('/');
		await waitForFrame(board, 'enter keep');
		board.stdin.write('schemaxx');
		await waitForFrame(board, 'STALLED (0)');
		board.stdin.write(`${KEYS.backspace}${KEYS.backspace}`);
		await waitForFrame(board, 'STALLED (1)');
		expect(board.lastFrame()).toContain('/schema');
		expect(board.lastFrame()).toContain('RUNNING (0)');
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, '/schema (esc clears)');
		board.stdin.write(KEYS.escape);
		await waitForFrame(board, 'RUNNING (3)');
		expect(board.lastFrame()).not.toContain('esc clears');
	});

	it('reads keys that come faster than the board draws in the mode the previous key left', async () => {
		// Each write is its own read, as keys from a fast typist or a loaded machine arrive: none waits for a
		// frame. The `/` opens the prompt before `progress` is read, and Enter closes it before `s` is.
		const board = await renderBoard({stop: async taskId => ({isStopped: true, message: `stopped ${taskId}`})});
		for (const key of ['/', ...'progress', KEYS.enter, 's']) board.stdin.write(key);
		const frame = await waitForFrame(board, 'Stop t-progress “fix csv export” (pid');
		// The filter took the whole word: only the task it names is left running.
		expect(frame).toContain('RUNNING (1)');
	});

	it('marks finished work unseen for its person until a key lands the cursor on it, and only for that person', async () => {
		const board = await renderBoardAs('ana');
		// Four finished tasks (done, failed, stopped, lost); the cursor starts on a running one.
		await waitForFrame(board, 'unseen 4');
		expect(board.lastFrame()).toMatch(/● t-failed/);
		expect(board.lastFrame()).toMatch(/● t-lost/);
		// A task that ends while the board is up, not under the cursor, is unseen too.
		board.ledger.writer.append([
			{taskId: 't-progress', type: EventType.exited, at: Date.now(), source: 'wrapper', data: {exitCode: 0}},
		]);
		await waitForFrame(board, 'unseen 5');
		expect(board.lastFrame()).toMatch(/● t-progress/);
		// Landing the cursor on it is a look: recorded for ana, and the mark goes when the ledger brings it
		// back. The filter's text crosses rows without looking at them; its Enter lands on t-failed.
		for (const key of ['/', ...'flaky', KEYS.enter]) board.stdin.write(key);
		await waitForFrame(board, 'unseen 4');
		expect(board.lastFrame()).toMatch(/› t-failed/);
		board.stdin.write(KEYS.escape);
		await waitForFrame(board, 'RUNNING (2)');
		expect(board.lastFrame()).toMatch(/● t-progress/);
		expect(board.lastFrame()).toMatch(/ {2}t-failed/);
		const looks = board.ledger.reader.eventsOf('t-failed').filter(event => event.type === EventType.seen);
		expect(looks.map(event => event.data)).toEqual([{by: 'ana'}]);
		expect(board.ledger.reader.task('t-failed')?.seenBy).toHaveProperty('ana');
		// Another person's board still shows it unseen, from the same ledger.
		board.unmount();
		const other = await renderBoardAs('ben', board.ledger);
		await waitForFrame(other, 'unseen 5');
		expect(other.lastFrame()).toMatch(/● t-failed/);
	});

	it('sorts with o, and says so in the header', async () => {
		const board = await renderBoard();
		await waitForFrame(board, '› t-queued');
		board.stdin.write('o');
		await waitForFrame(board, 'sort: longest idle');
		// The cursor stays on its task, wherever the new order puts it.
		const lines = (board.lastFrame() ?? '').split('\n');
		expect(lines.find(line => line.startsWith('›'))).toContain('t-queued');
		expect(lines.findIndex(line => line.startsWith('›'))).toBeGreaterThan(lines.findIndex(line => line.includes('t-progress')));
		board.stdin.write('ooo');
		await waitForFrame(board, 'sort: newest');
	});

	it('pages and jumps to the last and first row', async () => {
		const board = await renderBoard();
		await waitForFrame(board, '› t-queued');
		board.stdin.write('G');
		await waitForFrame(board, '› t-done');
		board.stdin.write('g');
		await waitForFrame(board, '› t-queued');
		board.stdin.write('\u001B[6~');
		await waitFor(() => !(board.lastFrame() ?? '').includes('› t-queued') && board.lastFrame(), {
			what: 'PgDn to move the cursor a page',
			on: [onEvent(board.stdout, 'frame')],
		});
	});

	it('says at once why an ended or lost task cannot be stopped, without asking', async () => {
		const board = await renderBoard({
			stop: async taskId => ({isStopped: true, message: `stopped ${taskId}`}),
		});
		board.stdin.write('/');
		await waitForFrame(board, 'enter keep');
		board.stdin.write(`t-lost${KEYS.enter}`);
		await waitForFrame(board, '› t-lost');
		board.stdin.write('s');
		await waitForFrame(board, 'cannot stop t-lost: it is lost');
		expect(board.lastFrame()).not.toContain('Stop t-lost');
	});

	it('opens the log view with l and goes back with esc', async () => {
		const board = await renderBoard({
			logs: {
				watch: (taskId, onRead) => {
					onRead({source: 'output', origin: `output of ${taskId}`, lines: ['first line', 'newest line'], note: null});
					return () => undefined;
				},
			},
		});
		board.stdin.write('l');
		await waitForFrame(board, 'LOG t-queued');
		await waitForFrame(board, 'newest line');
		board.stdin.write(KEYS.escape);
		await waitForFrame(board, 'RUNNING (3)');
	});

	it('rings the bell when a new entry comes into Needs you, and not for those there at start', async () => {
		let rung = 0;
		const board = await renderBoard({bell: () => (rung += 1)});
		expect(rung).toBe(0);
		const other = openLedger(board.ledger.path);
		other.writer.append([
			{taskId: 't-quiet', type: EventType.needRaised, at: Date.now(), source: 'cli', data: {message: 'pick a name'}},
		]);
		other.close();
		await waitForFrame(board, 'pick a name');
		await waitFor(() => rung === 1, {what: 'the bell', on: [onEvent(board.stdout, 'frame')]});
	});

	it('shows an event another writer appends, without any key', async () => {
		const board = await renderBoard();
		const other = openLedger(board.ledger.path);
		other.writer.append([
			{taskId: 't-new', type: EventType.registered, at: Date.now(), source: 'wrapper', data: {title: 'arrived later'}},
		]);
		other.close();
		await waitForFrame(board, 'arrived later');
	});
});

describe('the keys in force (the config file’s keys) and a read-only board', () => {
	function remapped(remaps: Parameters<typeof applyKeyRemaps>[0]) {
		const result = applyKeyRemaps(remaps);
		if ('problem' in result) throw new Error(result.problem);
		return result.table;
	}

	it('acts on the remapped key, not the built-in one, and ? help lists the key in force', async () => {
		const board = await renderBoard({options: {keyTable: remapped({stop: 'Z', help: 'H'})}});
		board.stdin.write('j');
		await waitForFrame(board, '› t-quiet');
		board.stdin.write('s');
		board.stdin.write('?');
		// Neither s nor ? is bound any more: the board is still on the lanes, with no notice.
		board.stdin.write('j');
		await waitForFrame(board, '› t-progress');
		expect(board.lastFrame()).not.toContain('stopping is not wired');
		board.stdin.write('Z');
		await waitForFrame(board, 'Z: stopping is not wired in this test');
		board.stdin.write('H');
		const help = await waitForFrame(board, 'KEYS');
		expect(help).toMatch(/\bZ +stop the task/);
		expect(help).not.toMatch(/\bs +stop the task/);
	});

	it('says read-only in the header and refuses an action key, saying why', async () => {
		const board = await renderBoard({options: {isReadOnly: true}});
		expect(board.lastFrame()).toContain('read-only');
		board.stdin.write('j');
		await waitForFrame(board, '› t-quiet');
		board.stdin.write('s');
		await waitForFrame(board, 's: this board is read-only');
		board.stdin.write('?');
		expect(await waitForFrame(board, 'KEYS')).not.toMatch(/\bs +stop the task/);
	});
});

describe('the mouse', () => {
	/** The 1-based terminal row of the line holding `text` in the frame drawn. */
	const rowOf = (frame: string, text: string) => frame.split('\n').findIndex(line => line.includes(text)) + 1;

	it('puts the cursor on the row clicked and moves it with the wheel, as the terminal reports them', async () => {
		const board = await renderBoard();
		const frame = await waitForFrame(board, '› t-queued');
		board.stdin.write(`\u001B[<0;5;${rowOf(frame, 't-lost ')}M`);
		await waitForFrame(board, '› t-lost');
		board.stdin.write('\u001B[<64;5;3M');
		await waitForFrame(board, '› t-stalled');
	});

	it('types nothing into a prompt when a report comes while it is open', async () => {
		const board = await renderBoard();
		board.stdin.write('/');
		await waitForFrame(board, 'enter keep');
		board.stdin.write('\u001B[<0;5;6M');
		board.stdin.write('\u001B[<0;5;6m');
		board.stdin.write('lost');
		await waitForFrame(board, '/lost');
		expect(board.lastFrame()).not.toContain('[<');
	});
});
