import type Database from 'better-sqlite3';
import type {LedgerEvent} from '../core/events.ts';
import {STATUSES, type Status} from '../core/status.ts';
import type {Task} from '../core/task.ts';
import {eventFromRow, taskFromDoc, type EventRow} from './rows.ts';

export type RejectRow = {
	readonly id: number;
	readonly at: number;
	readonly origin: string;
	readonly line: number | null;
	readonly reason: string;
	readonly raw: string | null;
	readonly rawBytes: number;
};

/** Every read the rest of the program makes of the ledger. */
export type LedgerReader = {
	task(id: string): Task | undefined;
	/** Finds a task by exact id, unique id prefix, or session id; throws a clear error on ambiguity. */
	resolveTask(ref: string): Task | undefined;
	/** Tasks not ended, plus those that ended at or after `endedSince` (all when null). */
	tasksForView(endedSince: number | null): Task[];
	/** Tasks in one of the given statuses. */
	tasksWithStatus(statuses: readonly Status[]): Task[];
	statusCounts(): Record<Status, number>;
	eventsSince(afterSeq: number, limit: number): LedgerEvent[];
	eventsOf(taskId: string): LedgerEvent[];
	eventsOfType(types: readonly string[], afterAt?: number): LedgerEvent[];
	lastSeq(): number;
	eventCount(): number;
	rejects(limit: number): RejectRow[];
	rejectCount(): number;
	counter(name: string): number;
};

export class AmbiguousTaskError extends Error {
	constructor(ref: string, matches: readonly string[]) {
		super(`task '${ref}' is ambiguous: it matches ${matches.slice(0, 5).join(', ')}${matches.length > 5 ? ', ...' : ''}`);
	}
}

/** Prepares the reader's statements once. */
export function createLedgerReader(db: Database.Database): LedgerReader {
	const byId = db.prepare('SELECT doc FROM tasks WHERE id = ?').pluck();
	const byPrefix = db.prepare('SELECT doc FROM tasks WHERE id >= ? AND id < ? || char(1114111) LIMIT 6').pluck();
	const bySession = db.prepare('SELECT doc FROM tasks WHERE session_id = ? LIMIT 6').pluck();
	const forView = db.prepare('SELECT doc FROM tasks WHERE ended_at IS NULL OR ended_at >= ? ORDER BY created_at DESC');
	const allTasks = db.prepare('SELECT doc FROM tasks ORDER BY created_at DESC').pluck();
	const counts = db.prepare('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status');
	const since = db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
	const ofTask = db.prepare('SELECT * FROM events WHERE task_id = ? ORDER BY seq');
	const last = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM events').pluck();
	const eventTotal = db.prepare('SELECT COUNT(*) FROM events').pluck();
	const rejectRows = db.prepare(
		'SELECT id, at, origin, line, reason, raw, raw_bytes AS rawBytes FROM rejects ORDER BY id DESC LIMIT ?',
	);
	const rejectTotal = db.prepare('SELECT COUNT(*) FROM rejects').pluck();
	const counterValue = db.prepare('SELECT value FROM counters WHERE name = ?').pluck();
	const parseDocs = (docs: unknown[]): Task[] => docs.map(doc => taskFromDoc(doc as string));

	return {
		task(id) {
			const doc = byId.get(id) as string | undefined;
			return doc ? taskFromDoc(doc) : undefined;
		},
		resolveTask(ref) {
			const exact = byId.get(ref) as string | undefined;
			if (exact) return taskFromDoc(exact);
			for (const docs of [byPrefix.all(ref, ref), bySession.all(ref)]) {
				const tasks = parseDocs(docs);
				if (tasks.length === 1) return tasks[0];
				if (tasks.length > 1)
					throw new AmbiguousTaskError(
						ref,
						tasks.map(task => task.id),
					);
			}
			return undefined;
		},
		tasksForView(endedSince) {
			return endedSince === null ? parseDocs(allTasks.all()) : parseDocs(forView.pluck().all(endedSince));
		},
		tasksWithStatus(statuses) {
			if (statuses.length === 0) return [];
			const marks = statuses.map(() => '?').join(', ');
			return parseDocs(
				db
					.prepare(`SELECT doc FROM tasks WHERE status IN (${marks})`)
					.pluck()
					.all(...statuses),
			);
		},
		statusCounts() {
			const result = Object.fromEntries(STATUSES.map(status => [status, 0])) as Record<Status, number>;
			for (const row of counts.all() as {status: Status; n: number}[]) {
				if (row.status in result) result[row.status] = row.n;
			}
			return result;
		},
		eventsSince: (afterSeq, limit) => (since.all(afterSeq, limit) as EventRow[]).map(eventFromRow),
		eventsOf: taskId => (ofTask.all(taskId) as EventRow[]).map(eventFromRow),
		eventsOfType(types, afterAt = 0) {
			if (types.length === 0) return [];
			const marks = types.map(() => '?').join(', ');
			const rows = db
				.prepare(`SELECT * FROM events WHERE type IN (${marks}) AND at >= ? ORDER BY seq`)
				.all(...types, afterAt) as EventRow[];
			return rows.map(eventFromRow);
		},
		lastSeq: () => last.get() as number,
		eventCount: () => eventTotal.get() as number,
		rejects: limit => rejectRows.all(limit) as RejectRow[],
		rejectCount: () => rejectTotal.get() as number,
		counter: name => (counterValue.get(name) as number | undefined) ?? 0,
	};
}
