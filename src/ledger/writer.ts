import type Database from 'better-sqlite3';
import type {NewEvent} from '../core/events.ts';
import {applyEvent, type Task} from '../core/task.ts';
import {chainHash, GENESIS} from './chain.ts';
import {taskFromDoc} from './rows.ts';

/** Most of a rejected input we keep: enough to see what it was, not a 10 MB copy. */
export const MAX_REJECT_RAW_CHARS = 64 * 1024;

export type Reject = {
	readonly origin: string;
	readonly line: number | null;
	readonly reason: string;
	readonly raw: string | null;
	/** The input's full size in bytes, when `raw` is only its head (default: the size of `raw`). */
	readonly rawBytes?: number;
	/** Same key, same reject: re-reading a bad file records it once. */
	readonly dedupKey?: string | null;
	/** The key this input had before schema version 3, looked up too in a ledger that holds such keys. */
	readonly legacyDedupKey?: string | null;
};

/** How a batch is appended. */
export type AppendOptions = {
	/**
	 * Per event (same order), the key it would have had before schema version 3: an event whose
	 * old key is already in the ledger is not added again (docs/ledger.md, "Idempotence").
	 */
	readonly legacyKeys?: readonly (string | null)[];
};

export type AppendResult = {
	/** Events actually added; a repeated dedup key adds nothing. */
	readonly appended: number;
	readonly lastSeq: number;
};

/** Where a transcript was read up to, saved with the tokens counted from it. */
export type TranscriptCursorWrite = {
	readonly path: string;
	readonly taskId: string;
	readonly offset: number;
	readonly lastMessageId: string | null;
	readonly at: number;
	/** Claude's own count when this read passed a `cost-state` line; null keeps the one saved before. */
	readonly costState?: {readonly input: number; readonly output: number; readonly costUsd: number | null} | null;
};

/** The only way anything is written to the ledger: named writes, statements prepared once. */
export type LedgerWriter = {
	/** Appends a batch in one immediate transaction, updating the task projection in it. */
	append(events: readonly NewEvent[], options?: AppendOptions): AppendResult;
	/** Records input that failed validation, with the reason; false when its key was already there. */
	reject(reject: Reject): boolean;
	/** Runs `fn` inside one immediate transaction, for callers batching appends and rejects. */
	transaction<T>(fn: () => T): T;
	/** Adds to a named counter (e.g. events dropped because even the spool failed). */
	bump(counter: string, by?: number): void;
	/** Makes the ledger's secret where it has none yet (src/ledger/secrets.ts); one made before stays. */
	makeSecret(): void;
	/** Moves a transcript's read cursor (call inside the transaction that appends its tokens). */
	saveTranscriptCursor(cursor: TranscriptCursorWrite): void;
};

/** Prepares the writer's statements once. */
export function createLedgerWriter(db: Database.Database): LedgerWriter {
	const insertEvent = db.prepare(
		'INSERT OR IGNORE INTO events (task_id, type, at, source, data, dedup_key, arrived_at, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
	);
	// The chain's head: the newest event's hash and arrival, read once per append inside its transaction.
	const selectHead = db.prepare('SELECT hash, arrived_at FROM events ORDER BY seq DESC LIMIT 1').raw();
	const selectTask = db.prepare('SELECT doc FROM tasks WHERE id = ?').pluck();
	const upsertTask = db.prepare(`
		INSERT INTO tasks (id, status, source, title, cwd, parent_id, session_id, pid, created_at, last_event_at, ended_at, last_seq, doc)
		VALUES (@id, @status, @source, @title, @cwd, @parentId, @sessionId, @pid, @createdAt, @lastEventAt, @endedAt, @lastSeq, @doc)
		ON CONFLICT(id) DO UPDATE SET status = excluded.status, source = excluded.source, title = excluded.title,
			cwd = excluded.cwd, parent_id = excluded.parent_id, session_id = excluded.session_id, pid = excluded.pid,
			last_event_at = excluded.last_event_at, ended_at = excluded.ended_at, last_seq = excluded.last_seq, doc = excluded.doc`);
	const hasKey = db.prepare('SELECT 1 FROM events WHERE dedup_key = ?').pluck();
	const hasRejectKey = db.prepare('SELECT 1 FROM rejects WHERE dedup_key = ?').pluck();
	const insertReject = db.prepare(
		'INSERT OR IGNORE INTO rejects (at, origin, line, reason, raw, raw_bytes, dedup_key) VALUES (?, ?, ?, ?, ?, ?, ?)',
	);
	const upsertCursor = db.prepare(
		`INSERT INTO transcript_cursors (path, task_id, offset, last_message_id, updated_at, cost_state) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(path) DO UPDATE SET task_id = excluded.task_id, offset = excluded.offset,
			last_message_id = excluded.last_message_id, updated_at = excluded.updated_at,
			cost_state = COALESCE(excluded.cost_state, transcript_cursors.cost_state)`,
	);
	// Random, made in SQLite like the host id (migration 4), and never replaced.
	const insertSecret = db.prepare(
		`INSERT OR IGNORE INTO ledger_meta (name, value) VALUES ('ledger_secret', lower(hex(randomblob(32))))`,
	);
	const bumpCounter = db.prepare(
		'INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value',
	);

	function appendInside(events: readonly NewEvent[], options: AppendOptions = {}): AppendResult {
		const touched = new Map<string, Task>();
		const {legacyKeys} = options;
		const head = selectHead.get() as [Buffer | null, number | null] | undefined;
		let previous: Buffer = head?.[0] ?? GENESIS;
		// When these events arrive in the ledger (docs/ledger.md, "Arrival"): never before the newest
		// event's arrival, so arrival follows seq even when the clock steps back, and a moment selects
		// a prefix of the ledger. An event dated later than this is folded at this time (task.ts).
		const recordedAt = Math.max(Date.now(), head?.[1] ?? 0);
		let appended = 0;
		let lastSeq = 0;
		for (let index = 0; index < events.length; index += 1) {
			const event = events[index] as NewEvent;
			const legacyKey = legacyKeys?.[index];
			if (legacyKey && hasKey.get(legacyKey) !== undefined) continue;
			const dedupKey = event.dedupKey ?? null;
			// Looked up first: an insert its UNIQUE key ignores still uses up a seq (AUTOINCREMENT), and seqs
			// must follow one another for a missing one to mean a deleted event (docs/ledger.md, "verify").
			if (dedupKey !== null && hasKey.get(dedupKey) !== undefined) continue;
			const data = JSON.stringify(event.data);
			const content = {
				taskId: event.taskId,
				type: event.type,
				at: event.at,
				arrivedAt: recordedAt,
				source: event.source,
				data,
				dedupKey,
			};
			const hash = chainHash(previous, content);
			const info = insertEvent.run(event.taskId, event.type, event.at, event.source, data, dedupKey, recordedAt, hash);
			// A key already there adds nothing, and the chain goes on from the same head.
			if (info.changes === 0) continue;
			previous = hash;
			appended += 1;
			lastSeq = Number(info.lastInsertRowid);
			const doc = touched.has(event.taskId) ? undefined : (selectTask.get(event.taskId) as string | undefined);
			const current = touched.get(event.taskId) ?? (doc ? taskFromDoc(doc) : undefined);
			const next = applyEvent(current, event, lastSeq, recordedAt);
			if (next) touched.set(event.taskId, next);
		}
		for (const task of touched.values()) {
			upsertTask.run({
				id: task.id,
				status: task.status,
				source: task.source,
				title: task.title,
				cwd: task.cwd,
				parentId: task.parentId,
				sessionId: task.sessionId,
				pid: task.pid,
				createdAt: task.createdAt,
				lastEventAt: task.lastEventAt,
				endedAt: task.endedAt,
				lastSeq: task.lastSeq,
				doc: JSON.stringify(task),
			});
		}
		return {appended, lastSeq};
	}

	const runImmediate = <T>(fn: () => T): T => db.transaction(fn).immediate();

	return {
		append: (events, options) =>
			db.inTransaction ? appendInside(events, options) : runImmediate(() => appendInside(events, options)),
		reject(reject) {
			if (reject.legacyDedupKey && hasRejectKey.get(reject.legacyDedupKey) !== undefined) return false;
			const raw = reject.raw;
			const info = insertReject.run(
				Date.now(),
				reject.origin,
				reject.line,
				reject.reason,
				raw === null ? null : raw.slice(0, MAX_REJECT_RAW_CHARS),
				reject.rawBytes ?? (raw === null ? 0 : Buffer.byteLength(raw)),
				reject.dedupKey ?? null,
			);
			return info.changes > 0;
		},
		// Inside another transaction, a savepoint: a part that fails (one spool file's batch) is undone
		// alone, so the caller can write it again line by line without what it left half done.
		transaction: fn => (db.inTransaction ? db.transaction(fn)() : runImmediate(fn)),
		bump(counter, by = 1) {
			bumpCounter.run(counter, by);
		},
		makeSecret() {
			insertSecret.run();
		},
		saveTranscriptCursor(cursor) {
			const costState = cursor.costState ? JSON.stringify(cursor.costState) : null;
			upsertCursor.run(cursor.path, cursor.taskId, cursor.offset, cursor.lastMessageId, cursor.at, costState);
		},
	};
}
