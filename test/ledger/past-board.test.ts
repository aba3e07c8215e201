import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard, type BoardState} from '../../src/core/board/state.ts';
import {stepMoment, type PastMoment} from '../../src/core/board/past-moment.ts';
import {EventType, newEvent} from '../../src/core/events.ts';
import type {Snapshot} from '../../src/core/snapshot.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import type {PastBoardFeed} from '../../src/ledger/board-feed.ts';
import {createPastBoardFeed} from '../../src/ledger/past-board-feed.ts';
import {momentAtSeq, momentAtTime, readerAsOf, type Moment} from '../../src/ledger/reader-as-of.ts';
import {readSnapshot} from '../../src/ledger/snapshot-query.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';

let ledger: Ledger | undefined;
afterEach(() => {
	ledger?.close();
	ledger = undefined;
});

/** Until the clock has moved past `at`: the next write then arrives after it. */
function pastMillisecond(at: number): void {
	while (Date.now() <= at) {
		// The clock moves within a millisecond.
	}
}

const WINDOW = 86_400_000;
const STALL = 600;
const SIZE = {width: 160, height: 45};

/** What `snapshot --json --at` prints for a moment: the same query, on readerAsOf (src/cli/commands/snapshot.ts). */
function snapshotAt(reader: Ledger['reader'], moment: Moment): Snapshot {
	return readSnapshot(readerAsOf(reader, moment), {
		now: moment.now,
		windowMs: WINDOW,
		stallSeconds: STALL,
		host: 'here',
		isApproverAlive: () => true,
		person: 'ana',
	});
}

/** The board a past feed shows: its read reduced into the board's state, drawn at the moment's now. */
function boardOf(feed: PastBoardFeed, state: BoardState = initialBoardState()) {
	const read = reduceBoard(state, {type: 'ledger-read', ...feed.load(Date.now())});
	return {state: read, screen: selectScreen(read, feed.now(), SIZE, {stallSeconds: STALL, endedWindowMs: WINDOW, person: 'ana'})};
}

/** Each lane's tasks, as the board draws them and as the snapshot lists them. */
function boardLanes(screen: ReturnType<typeof selectScreen>): Record<string, string[]> {
	const lanes: Record<string, string[]> = {};
	for (const line of screen.lanes.lines) if (line.kind === 'row') (lanes[line.row.lane] ??= []).push(line.row.id);
	for (const ids of Object.values(lanes)) ids.sort();
	return lanes;
}
function snapshotLanes(snapshot: Snapshot): Record<string, string[]> {
	const lanes: Record<string, string[]> = {};
	for (const task of snapshot.tasks) (lanes[task.lane] ??= []).push(task.id);
	for (const ids of Object.values(lanes)) ids.sort();
	return lanes;
}
const queueOf = (lanes: readonly {name: string; items: readonly {taskId: string}[]}[]) =>
	lanes.map(lane => [lane.name, lane.items.map(item => item.taskId)]);

describe('the board at a past moment', () => {
	it('shows the lanes, Needs you and the open questions snapshot --at gives for the same moment, opened there or stepped to', () => {
		ledger = openLedger(join(scratchDir('cr-past-board-'), 'ledger.db'));
		const base = Date.now() - 3_600_000;
		const at = (minutes: number) => base + minutes * 60_000;
		const write = (...events: Parameters<typeof newEvent>[]) => {
			ledger!.writer.append(events.map(args => newEvent(...args)));
			pastMillisecond(Date.now());
		};
		const moments: Moment[] = [];
		const mark = () => {
			moments.push(momentAtTime(ledger!.reader, Date.now()));
			pastMillisecond(Date.now());
		};
		write([EventType.registered, {title: 'build', steps: 3}, {taskId: 'w-1', at: at(0), source: 'wrapper'}]);
		write([EventType.started, {pid: 4242, pgid: 4242}, {taskId: 'w-1', at: at(1), source: 'wrapper'}]);
		write([EventType.registered, {title: 'review'}, {taskId: 'w-2', at: at(2), source: 'wrapper'}]);
		mark();
		write([EventType.needRaised, {message: 'which branch?', kind: 'question'}, {taskId: 'w-2', at: at(4), source: 'cli'}]);
		write([
			EventType.decisionAsked,
			{
				decisionId: 'd-000000000001',
				kind: 'permission',
				agent: 'claude',
				tool: 'Bash',
				args: {command: 'npm test'},
				argsHash: 'a'.repeat(64),
				cwd: '/p',
				expiresAt: null,
				toolUseId: null,
				session: 's',
				waiter: {pid: 42, startTime: 7},
				budget: null,
			},
			{taskId: 'w-1', at: at(5), source: 'claude'},
		]);
		mark();
		write([EventType.exited, {exitCode: 0, signal: null}, {taskId: 'w-1', at: at(6), source: 'wrapper'}]);
		write([EventType.exited, {exitCode: 2, signal: null}, {taskId: 'w-2', at: at(7), source: 'wrapper'}]);
		write([EventType.registered, {title: 'later'}, {taskId: 'w-3', at: at(8), source: 'wrapper'}]);
		mark();
		write([EventType.acknowledged, {signalAt: at(7)}, {taskId: 'w-2', at: at(9), source: 'cli'}]);
		const seen = new Set<string>();
		for (const moment of [...moments, momentAtSeq(ledger.reader, 1)]) {
			const snapshot = snapshotAt(ledger.reader, moment);
			const opened = boardOf(createPastBoardFeed(ledger, moment, {endedWindowMs: WINDOW}));
			expect(boardLanes(opened.screen)).toEqual(snapshotLanes(snapshot));
			expect(queueOf(opened.state.queue.lanes)).toEqual(queueOf(snapshot.queue.lanes));
			expect(opened.state.decisions.map(decision => decision.id)).toEqual(
				snapshot.decisions.filter(decision => decision.state === 'open').map(decision => decision.id),
			);
			seen.add(JSON.stringify(boardLanes(opened.screen)));
			// Stepped to from the newest moment, the board is the one opened there.
			const stepped = createPastBoardFeed(ledger, moments.at(-1)!, {endedWindowMs: WINDOW});
			const before = boardOf(stepped);
			const moved = reduceBoard(before.state, {
				type: 'ledger-read',
				...stepped.moveTo({...moment, isNow: false}, null),
			});
			const movedScreen = selectScreen(moved, stepped.now(), SIZE, {stallSeconds: STALL, endedWindowMs: WINDOW, person: 'ana'});
			expect(boardLanes(movedScreen)).toEqual(boardLanes(opened.screen));
			expect(moved.lastSeq).toBe(moment.seq);
		}
		// The moments differ: the fold stopped where it should (one while the question waited).
		expect(seen.size).toBe(4);
		expect(snapshotAt(ledger.reader, moments[1]!).decisions.map(decision => [decision.id, decision.state])).toEqual([
			['d-000000000001', 'open'],
		]);
	});

	it('steps forward by event to now, where it is the live board’s read, and writes nothing', () => {
		ledger = openLedger(join(scratchDir('cr-past-board-'), 'ledger.db'));
		for (const [i, id] of ['w-1', 'w-2', 'w-3'].entries()) {
			ledger.writer.append([
				newEvent(EventType.registered, {title: id}, {taskId: id, at: Date.now() - 1000 + i, source: 'wrapper'}),
			]);
			pastMillisecond(Date.now());
		}
		const feed = createPastBoardFeed(ledger, momentAtSeq(ledger.reader, 1));
		expect(boardOf(feed).state.tasks.size).toBe(1);
		let moment: PastMoment = feed.moment();
		const shown: number[] = [];
		while (!moment.isNow) {
			const result = stepMoment(moment, 'event-forward', feed.index, Date.now());
			if (!('moment' in result)) throw new Error(result.stays);
			moment = result.moment;
			shown.push(reduceBoard(initialBoardState(), {type: 'ledger-read', ...feed.moveTo(moment, null)}).tasks.size);
		}
		expect(shown).toEqual([2, 3, 3]);
		expect(feed.moment().isNow).toBe(true);
		// At now it follows the ledger: a new event is read by the board's poll, from the newest it had.
		ledger.writer.append([newEvent(EventType.registered, {title: 'new'}, {taskId: 'w-4', at: Date.now(), source: 'wrapper'})]);
		const polled = feed.poll(0, Date.now(), null);
		expect(polled?.tasks.map(task => task.id)).toEqual(['w-4']);
		// Nothing it did was written: the ledger holds the four events the test wrote.
		expect(ledger.reader.lastSeq()).toBe(4);
		expect(feed.acknowledge('w-1', 0, Date.now())).toMatch(/^read-only/);
		expect(feed.markSeen).toBeUndefined();
	});

	it('board --at with a bad moment, or with what a past board does not do, is one line and exit 64', () => {
		const file = join(scratchDir('cr-past-board-'), 'ledger.db');
		openLedger(file).close();
		for (const [args, says] of [
			[['--at', 'yesterday'], "--at: expected an ISO time (2026-05-01T03:12:00Z), a time ago (90m) or a seq, got 'yesterday'"],
			[['--at', '0'], "--at: a seq is 1 or more, got '0'"],
		] as const) {
			const result = runCli(['board', ...args, '--ledger', file]);
			expect(result.status).toBe(64);
			expect(result.stderr).toBe(`controlroom: ${says}\n`);
		}
	});
});
