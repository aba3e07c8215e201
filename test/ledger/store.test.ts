import Database from 'better-sqlite3';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType, newEvent} from '../../src/core/events.ts';
import {queueSignals, SESSION_ANSWERED_SOURCES} from '../../src/core/human-queue.ts';
import {LedgerFromFutureError, SCHEMA_VERSION} from '../../src/ledger/migrations.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {scratchDir} from '../helpers/cli.ts';
import {event, scratchLedger} from '../helpers/ledger.ts';
import {withRawDb} from '../helpers/raw-db.ts';

let ledger: Ledger | undefined;
afterEach(() => ledger?.close());

describe('the ledger store', () => {
	it('opens in WAL mode at the newest schema version', () => {
		ledger = scratchLedger();
		const pragmas = withRawDb(ledger.path, db => [
			db.pragma('journal_mode', {simple: true}),
			db.pragma('user_version', {simple: true}),
		]);
		expect(pragmas).toEqual(['wal', SCHEMA_VERSION]);
	});

	it('refuses UPDATE and DELETE on events in the database itself', () => {
		// Given a ledger with one event
		ledger = scratchLedger();
		ledger.writer.append([event('t-1', EventType.registered, {title: 'x'})]);
		// When raw SQL tries to change or remove it
		const update = () => withRawDb(ledger!.path, db => db.prepare("UPDATE events SET type = 'forged'").run());
		const remove = () => withRawDb(ledger!.path, db => db.prepare('DELETE FROM events').run());
		// Then SQLite refuses, and the event is untouched
		expect(update).toThrow(/append-only/);
		expect(remove).toThrow(/append-only/);
		expect(ledger.reader.eventsOf('t-1').map(e => e.type)).toEqual([EventType.registered]);
	});

	it("counts tasks by status again once an event is recorded, by this connection or another process's", () => {
		ledger = scratchLedger();
		ledger.writer.append([event('a', EventType.registered), event('b', EventType.registered)]);
		expect(ledger.reader.statusCounts()).toMatchObject({registered: 2, running: 0});
		// Asked again with nothing new: the same counts, and a copy a caller may change
		const counts = ledger.reader.statusCounts();
		counts.registered = 99;
		expect(ledger.reader.statusCounts()).toMatchObject({registered: 2});
		ledger.writer.append([event('a', EventType.started, {pid: 10, pgid: 10})]);
		expect(ledger.reader.statusCounts()).toMatchObject({registered: 1, running: 1});
		const other = openLedger(ledger.path);
		try {
			other.writer.append([event('b', EventType.started, {pid: 11, pgid: 11})]);
		} finally {
			other.close();
		}
		expect(ledger.reader.statusCounts()).toMatchObject({registered: 0, running: 2});
	});

	it('numbers events with a monotonic seq that readers can tail by', () => {
		ledger = scratchLedger();
		ledger.writer.append([event('a', EventType.registered), event('b', EventType.registered)]);
		ledger.writer.append([event('a', EventType.heartbeat)]);
		const seqs = ledger.reader.eventsSince(0, 10).map(e => e.seq);
		expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
		expect(ledger.reader.eventsSince(seqs[1]!, 10).map(e => e.taskId)).toEqual(['a']);
	});

	it("reads only the needs that may still be current, and the queue's rule keeps the same ones as from every need", () => {
		ledger = scratchLedger();
		const need = (taskId: string, source: string, at: number) =>
			newEvent(EventType.needRaised, {message: `${taskId} asks`}, {taskId, at, source});
		const agentEvent = (taskId: string, at: number) =>
			newEvent(EventType.agentEvent, {event: 'PreToolUse'}, {taskId, at, source: 'claude'});
		ledger.writer.append([
			// An agent's need with nothing after it: current
			agentEvent('c-waiting', 1_000),
			need('c-waiting', 'claude', 2_000),
			// An agent's need the session went on after: answered
			agentEvent('c-answered', 1_000),
			need('c-answered', 'claude', 2_000),
			agentEvent('c-answered', 3_000),
			// An agent's need whose session ended: answered
			agentEvent('c-ended', 1_000),
			need('c-ended', 'claude', 2_000),
			newEvent(EventType.ended, {reason: 'other'}, {taskId: 'c-ended', at: 3_000, source: 'claude'}),
			// A need raised by hand stays until acknowledged, even on an ended task
			event('w-1', EventType.registered, {title: 'x'}),
			newEvent(EventType.needRaised, {message: 'look at w-1'}, {taskId: 'w-1', at: 2_000, source: 'cli'}),
			event('w-1', EventType.exited, {exitCode: 0}, 3_000),
		]);
		const reader = ledger.reader;
		const maybe = reader.needsMaybeCurrent(SESSION_ANSWERED_SOURCES);
		expect(maybe.map(each => each.taskId)).toEqual(['c-waiting', 'w-1']);
		const tasks = new Map(reader.tasksForView(null).map(task => [task.id, task]));
		const signalsOf = (needs: typeof maybe) =>
			queueSignals({now: 10_000, recentTasks: [], needs, tasks}).map(signal => signal.taskId);
		expect(signalsOf(maybe)).toEqual(signalsOf(reader.eventsOfType([EventType.needRaised])));
		expect(signalsOf(maybe)).toEqual(['c-waiting', 'w-1']);
	});

	it('updates the task projection in the same transaction as its event', () => {
		ledger = scratchLedger();
		ledger.writer.append([
			event('t-1', EventType.registered, {title: 'fix export', steps: 4}),
			event('t-1', EventType.started, {pid: 4242, pgid: 4242}, 2_000),
			event('t-1', EventType.progressed, {done: 2, total: 9}, 3_000),
		]);
		const task = ledger.reader.task('t-1');
		expect(task).toMatchObject({
			status: 'running',
			pid: 4242,
			title: 'fix export',
			progress: {done: 2, total: 4},
			lastEventAt: 3_000,
		});
	});

	it('rolls back the event and the projection together when the transaction fails', () => {
		ledger = scratchLedger();
		ledger.writer.append([event('t-1', EventType.registered, {title: 'before'})]);
		expect(() =>
			ledger!.writer.transaction(() => {
				ledger!.writer.append([event('t-1', EventType.started, {pid: 7})]);
				throw new Error('crash mid-batch');
			}),
		).toThrow('crash mid-batch');
		expect(ledger.reader.eventsOf('t-1')).toHaveLength(1);
		expect(ledger.reader.task('t-1')?.status).toBe('registered');
	});

	it('adds nothing for a repeated dedup key', () => {
		ledger = scratchLedger();
		const once = {...event('t-1', EventType.registered), dedupKey: 'k1'};
		expect(ledger.writer.append([once]).appended).toBe(1);
		expect(ledger.writer.append([once]).appended).toBe(0);
		expect(ledger.reader.eventCount()).toBe(1);
	});

	it('brings a ledger of the unmerged fleet branch (version 3 with host, no ledger_meta) to the current version', () => {
		// Given a ledger as the fleet branch made it: version 3 was its host migration
		const file = join(scratchDir(), 'ledger.db');
		openLedger(file).close();
		const hostId = withRawDb(file, db => {
			db.exec('DROP TABLE ledger_meta');
			db.pragma('user_version = 3');
			return db.prepare('SELECT id FROM host').pluck().get() as string;
		});
		// When this version opens it
		ledger = openLedger(file);
		// Then ledger_meta exists, the host id is the one it had, and the version is current
		const tables = withRawDb(file, db =>
			db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('host', 'ledger_meta')").pluck().all(),
		);
		expect(tables.toSorted()).toEqual(['host', 'ledger_meta']);
		expect(ledger.reader.hostId()).toBe(hostId);
		expect(withRawDb(file, db => db.pragma('user_version', {simple: true}))).toBe(SCHEMA_VERSION);
	});

	it('refuses a ledger written by a newer schema', () => {
		const file = join(scratchDir(), 'ledger.db');
		const raw = new Database(file);
		raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
		raw.close();
		expect(() => openLedger(file)).toThrow(LedgerFromFutureError);
	});

	it('does not write when opening a ledger that is already current', () => {
		// Given a ledger another connection holds the write lock on
		const file = join(scratchDir(), 'ledger.db');
		openLedger(file).close();
		const holder = new Database(file);
		holder.prepare('BEGIN IMMEDIATE').run();
		try {
			// When it is opened with a short busy timeout, then it opens and reads
			ledger = openLedger(file, {busyTimeoutMs: 25});
			expect(ledger.reader.eventCount()).toBe(0);
		} finally {
			holder.prepare('ROLLBACK').run();
			holder.close();
		}
	});
});
