import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {createBoardFeed} from '../../src/ledger/board-feed.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {acknowledgeEntry} from '../../src/ledger/queue.ts';
import {boardFixtureEvents, ingestAgentFixtures} from '../helpers/board-fixture.ts';
import {scratchDir} from '../helpers/cli.ts';

const ledgers: Ledger[] = [];
afterEach(() => {
	for (const ledger of ledgers.splice(0)) ledger.close();
});

function fixtureLedger(now: number): Ledger {
	const ledger = openLedger(join(scratchDir('cr-feed-'), 'ledger.db'));
	ledgers.push(ledger);
	ledger.writer.append(boardFixtureEvents(now));
	ingestAgentFixtures(ledger, now - 60_000);
	return ledger;
}

describe('board feed', () => {
	it('loads tasks in every status, the ingested agent sessions and the queue', () => {
		// Given a ledger with fixture tasks and the real Claude Code and Codex payloads ingested
		const now = Date.now();
		const feed = createBoardFeed(fixtureLedger(now));
		// When the board reads it
		const batch = feed.load(now);
		// Then every status is there, both agent sources too, and the failed task is in the queue
		expect(new Set(batch.tasks.map(task => task.status))).toEqual(
			new Set(['registered', 'running', 'lost', 'untracked', 'done', 'failed', 'stopped']),
		);
		expect(batch.tasks.map(task => task.source)).toEqual(expect.arrayContaining(['claude', 'codex']));
		expect(batch.queue.lanes.find(lane => lane.name === 'failed')?.items.map(item => item.taskId)).toEqual(['t-failed']);
		expect(batch.isFull).toBe(true);
	});

	it('reads only events after the last sequence and reloads just the tasks they touched', () => {
		// Given a loaded board
		const now = Date.now();
		const ledger = fixtureLedger(now);
		const feed = createBoardFeed(ledger);
		const first = feed.load(now);
		expect(feed.poll(first.lastSeq, now)).toBeNull();
		// When another writer appends progress for one task
		const other = openLedger(ledger.path);
		other.writer.append([
			{taskId: 't-progress', type: EventType.progressed, at: now + 1, source: 'wrapper', data: {done: 3, total: 4}},
		]);
		other.close();
		// Then the poll returns that task alone, with the open task's timeline reloaded
		const next = feed.poll(first.lastSeq, now + 2, 't-progress');
		expect(next?.tasks.map(task => task.id)).toEqual(['t-progress']);
		expect(next?.tasks[0]?.progress).toEqual({done: 3, total: 4});
		expect(next?.lastSeq).toBe(first.lastSeq + 1);
		expect(next?.timelineEvents?.at(-1)?.type).toBe(EventType.progressed);
	});

	it('acknowledges a queue entry through the gate it is given, with a queue.acknowledged event that takes it off the queue', () => {
		// Given a failed task in the queue, and a feed given the write the board's gate makes once it
		// has checked a person asks (the check itself: test/gates/person-gate.test.ts)
		const now = Date.now();
		const ledger = fixtureLedger(now);
		const asked: string[] = [];
		const feed = createBoardFeed(ledger, {
			acknowledge: (taskId, signalAt, at) => {
				asked.push(taskId);
				acknowledgeEntry(ledger, taskId, signalAt, at, 'board');
			},
		});
		const item = feed.load(now).queue.lanes.find(lane => lane.name === 'failed')?.items[0];
		expect(item).toBeDefined();
		// When the person acknowledges it
		expect(feed.acknowledge(item!.taskId, item!.at, now + 5)).toBeUndefined();
		// Then the ledger holds the event with the signal's time and the queue no longer lists it
		expect(asked).toEqual(['t-failed']);
		const [ack] = ledger.reader.eventsOfType([EventType.acknowledged]);
		expect(ack).toMatchObject({taskId: 't-failed', source: 'board', data: {signalAt: item!.at}});
		expect(feed.load(now + 6).queue.lanes.find(lane => lane.name === 'failed')?.total).toBe(0);
		// And the acknowledgement is not a sign of life for the task
		expect(ledger.reader.task('t-failed')?.lastEventAt).toBe(now - 20 * 60_000);
	});

	it('acknowledges nothing, and says so, when it was given no gate to do it through', () => {
		const now = Date.now();
		const ledger = fixtureLedger(now);
		const feed = createBoardFeed(ledger);
		const item = feed.load(now).queue.lanes.find(lane => lane.name === 'failed')?.items[0];
		expect(feed.acknowledge(item!.taskId, item!.at, now + 5)).toBe(
			'k: acknowledging is not wired on this board; t-failed stays in the queue',
		);
		expect(ledger.reader.eventsOfType([EventType.acknowledged])).toEqual([]);
	});

	it('reads a burst a page at a time and says when more is waiting', () => {
		// Given a loaded board and a burst of 6,000 heartbeats from another writer
		const now = Date.now();
		const ledger = fixtureLedger(now);
		const feed = createBoardFeed(ledger);
		const first = feed.load(now);
		ledger.writer.append(
			Array.from({length: 6000}, (_, index) => ({
				taskId: 't-quiet',
				type: EventType.heartbeat,
				at: now - 6000 + index,
				source: 'wrapper',
				data: {},
			})),
		);
		// When the board polls twice
		const page = feed.poll(first.lastSeq, now);
		const rest = feed.poll(page?.lastSeq ?? 0, now);
		// Then the first read stops at a page and the second takes the rest
		expect(page?.hasMore).toBe(true);
		expect(rest?.hasMore).toBe(false);
		expect(rest?.lastSeq).toBe(ledger.reader.lastSeq());
		expect(rest?.tasks[0]?.lastEventAt).toBe(now - 1);
	});

	it('leaves out tasks that ended before the window, as when old history is imported', () => {
		// Given a loaded board
		const now = Date.now();
		const ledger = fixtureLedger(now);
		const feed = createBoardFeed(ledger);
		const first = feed.load(now);
		// When a task from last month is imported, start to end
		const old = now - 30 * 86_400_000;
		ledger.writer.append([
			{taskId: 't-old', type: EventType.registered, at: old, source: 'wrapper', data: {title: 'last month'}},
			{taskId: 't-old', type: EventType.exited, at: old + 1000, source: 'wrapper', data: {exitCode: 0}},
		]);
		// Then the poll moves past its events without handing the task to the board
		const next = feed.poll(first.lastSeq, now);
		expect(next?.lastSeq).toBe(first.lastSeq + 2);
		expect(next?.tasks).toEqual([]);
	});
});
