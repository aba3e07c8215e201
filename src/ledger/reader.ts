import type Database from 'better-sqlite3';
import {SPEND_EVENT_TYPES, type SpendRow} from '../core/day-cost.ts';
import {EventType, type EventOfType, type EventTypeName, type LedgerEvent, type StoredEventRow} from '../core/events.ts';
import {STATUSES, type Status} from '../core/status.ts';
import type {Task} from '../core/task.ts';
import {ambiguityText, chooseByTitle, titleKey, TITLE_CANDIDATES, type TaskRefCandidate} from '../core/task-ref.ts';
import type {ChainChunk, ChainRow, ChainFacts} from './chain-rows.ts';
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

/** One process a producer recorded for a task. */
export type ProcessReport = {
	readonly pid: number;
	readonly startTime: number | null;
	/** The process name recorded with it (an untracked row's), if any. */
	readonly name: string | null;
	readonly type: string;
	readonly source: string;
	readonly seq: number;
};

/** Where the hook stopped reading a transcript, so a long one is never re-read from the start. */
export type TranscriptCursor = {
	readonly offset: number;
	readonly lastMessageId: string | null;
	/** The task whose count the cursor last moved. */
	readonly taskId: string;
	/** Claude's last own count read from this transcript (its `cost-state` line), as JSON; null: none yet. */
	readonly costState: string | null;
};

/** Every read the rest of the program makes of the ledger: named reads, statements prepared once. */
export type LedgerReader = {
	task(id: string): Task | undefined;
	/** Finds a task by exact id, unique id prefix, session id, then title or its start (docs/cli.md, "Naming a task"); throws a clear error on ambiguity. */
	resolveTask(ref: string): Task | undefined;
	/** Tasks not ended, plus those that ended at or after `endedSince` (all when null). */
	tasksForView(endedSince: number | null): Task[];
	/**
	 * The tasks the human queue reads from the failed window on (src/core/human-queue.ts): those that
	 * failed since `since` (each a signal), and the runs that ended done after one of them in its
	 * folder or of its title (a success answers only those). A window of 100,000 helpers that
	 * ended done, and no failure, reads none of them.
	 */
	queueTasksSince(since: number): Task[];
	/** Tasks in one of the given statuses. */
	tasksWithStatus(statuses: readonly Status[]): Task[];
	/** Tasks whose recorded PID is this one, newest first (at most a few: PIDs are reused over time). */
	tasksWithPid(pid: number): Task[];
	statusCounts(): Record<Status, number>;
	/** Events after `afterSeq`, oldest first, at most `limit`: how readers tail the ledger. */
	eventsSince(afterSeq: number, limit: number): LedgerEvent[];
	/** One task's events, oldest first. */
	eventsOf(taskId: string): LedgerEvent[];
	/** Events of the given types (any task) at or after `afterAt`, oldest first. */
	eventsOfType<T extends EventTypeName>(types: readonly T[], afterAt?: number): EventOfType<T>[];
	/**
	 * The spend rows (tokens reports, telemetry requests) dated from `from` up to `until`, up to seq
	 * `upToSeq`, of the tasks not ended or ended since `from`, oldest first: a day's cost
	 * (src/core/day-cost.ts). Read through the tasks, so the work is the day's tasks' events, not
	 * every spend row of the history.
	 */
	spendEventsBetween(from: number, until: number, upToSeq: number): SpendRow[];
	/** The spend rows after seq `afterSeq` dated from `from` up to `until`, oldest first: what a day's cost adds on a later pass. */
	spendEventsAfter(afterSeq: number, from: number, until: number): SpendRow[];
	/**
	 * The `need.raised` events that may still be current, oldest first: every need from a source
	 * not in `answeredBySession`; from those, only a need whose task has no row, or has not ended
	 * and shows nothing after it. The queue's rule (src/core/human-queue.ts) decides on these; the
	 * rest it drops anyway, and a long history holds thousands of them.
	 */
	needsMaybeCurrent(answeredBySession: readonly string[]): EventOfType<'need.raised'>[];
	/** A task's first event of a type. */
	firstEventOf<T extends EventTypeName>(taskId: string, type: T): EventOfType<T> | undefined;
	/** A task's newest events of the given types, newest first, at most `limit`. */
	latestEventsOf<T extends EventTypeName>(taskId: string, types: readonly T[], limit: number): EventOfType<T>[];
	/** The newest tokens report of a Codex thread, by any task (a resumed thread reports its total). */
	latestThreadUsage(threadId: string): EventOfType<'task.tokens_reported'> | undefined;
	/** The newest claim of a contract, and how many claims it has had. */
	latestClaimOf(contractKey: string): {readonly taskId: string; readonly count: number} | null;
	/**
	 * A hook's PreToolUse for one tool call (its `tool_use_id`), among the newest agent events: who
	 * made the call, which the MCP request itself does not say (a sub-agent's carries `agent_id`).
	 */
	preToolUseOf(toolUseId: string): EventOfType<'agent.event'> | undefined;
	/**
	 * The file writes (PostToolUse of `tools`) of tasks not ended, newest first, at most `limit`:
	 * what the second-writer check reads (src/core/decisions/collision.ts). Read through the live
	 * tasks, so a long history costs nothing.
	 */
	editsOfLiveTasks(tools: readonly string[], limit: number): EventOfType<'agent.event'>[];
	transcriptCursor(path: string): TranscriptCursor | undefined;
	/**
	 * A task's helpers at every depth: helper ids are their parent's id with `.` and a suffix
	 * (payload-mapping.ts), so the tree is one range of ids; only those whose parent chain reaches the
	 * task are kept.
	 */
	helpersOf(taskId: string): Task[];
	/** Every transcript whose cursor a task of these ids holds (its path and task), for following live sessions. */
	transcriptsOf(taskIds: readonly string[]): {readonly path: string; readonly taskId: string}[];
	/** Every transcript with a cursor whose path starts with `prefix` (a session's helpers' transcripts). */
	transcriptsUnder(prefix: string): {readonly path: string; readonly taskId: string}[];
	/**
	 * Every process a producer recorded for a task (any event whose data names a `pid`, but the
	 * records of a death: lost, vanished, merged), each distinct PID, start time, name and producer
	 * once, newest first: what a stop may signal once each is checked (src/producers/agent-tree.ts).
	 */
	processReportsOf(taskId: string): ProcessReport[];
	lastSeq(): number;
	/** Events after `afterSeq` exactly as stored (data as JSON text), oldest first: what sync ships. */
	storedEventsSince(afterSeq: number, limit: number): StoredEventRow[];
	/** The one stored event at `seq`, if any: sync compares it with the fleet's copy. */
	storedEventAt(seq: number): StoredEventRow | undefined;
	/** Events after `afterSeq` up to `upToSeq`, oldest first, at most `limit`, with their links in the chain: what verify reads. */
	chainRows(afterSeq: number, upToSeq: number, limit: number): ChainRow[];
	/** The same events as chainRows, in bulk: what verify hashes (null: none). */
	chainChunk(afterSeq: number, upToSeq: number, limit: number): ChainChunk | null;
	/** Where the chain starts and how far seqs were handed out (docs/ledger.md, "The hash chain"). */
	chainFacts(): ChainFacts;
	/** The last seq whose event had arrived by `at` (0: none had): arrival follows seq (writer.ts). */
	seqArrivedBy(at: number): number;
	/** The tasks that have an event after `afterSeq`: what a fold as of that seq must fold again (reader-as-of.ts). */
	taskIdsAfter(afterSeq: number): string[];
	/** One task's events up to `upToSeq`, oldest first, each with when it arrived (null: before arrival was kept). */
	eventsArrivedOf(taskId: string, upToSeq: number): {readonly event: LedgerEvent; readonly arrivedAt: number | null}[];
	/** Events of the given types up to `upToSeq`, oldest first (a past view's gate and need rows). */
	eventsOfTypeUpTo<T extends EventTypeName>(types: readonly T[], upToSeq: number): EventOfType<T>[];
	/** When the event at `seq` arrived (its producer's time for one recorded before arrival was kept), or null. */
	arrivalOf(seq: number): number | null;
	/** Task rows by id, as the projection holds them (sync ships those a batch touched). */
	tasksById(ids: readonly string[]): Task[];
	/** This ledger's random host id, made once by migration 3 (docs/fleet.md). */
	hostId(): string;
	/** This ledger's secret, once one is made (src/ledger/secrets.ts): never shown; keys are derived from it. */
	secret(): string | undefined;
	eventCount(): number;
	rejects(limit: number): RejectRow[];
	rejectCount(): number;
	counter(name: string): number;
	/** Whether the ledger holds ingest keys of the shape used before schema version 3 (see migrations.ts). */
	hasLegacyLineKeys(): boolean;
};

/** `text` for a LIKE pattern with `\` as its escape: its own `%`, `_` and `\` match themselves. */
export function likeEscaped(text: string): string {
	return text.replace(/[\\%_]/g, match => `\\${match}`);
}

/**
 * The events of chainRows in one row (chain-verify-fast.ts): each one's canonical envelope is the
 * text canonicalEnvelope (chain.ts) writes, built here, where json_quote escapes as JSON.stringify
 * does (tested on every character), after 32 bytes of room for the hash before it; only events whose
 * columns have the types the writer gives them get one. Rows in an aggregate over an ordered
 * subquery come in its order: the seqs are listed so that the check sees the order it hashed.
 */
const CHAIN_CHUNK_SQL = `SELECT count(*), group_concat(seq, ','), group_concat(length(preimage), ','),
	CAST(group_concat(preimage, '') AS BLOB), CAST(group_concat(hash, '') AS BLOB), count(preimage),
	sum(typeof(hash) = 'blob' AND length(hash) = 32)
	FROM (SELECT seq, hash, CASE WHEN typeof(at) = 'integer' AND typeof(arrived_at) IN ('integer', 'null')
			AND typeof(task_id) = 'text' AND typeof(type) = 'text' AND typeof(source) = 'text'
			AND typeof(dedup_key) IN ('text', 'null') AND typeof(data) = 'text'
		THEN CAST(zeroblob(32) || '{"arrivedAt":' || ifnull(arrived_at, 'null') || ',"at":' || at || ',"dedupKey":'
			|| json_quote(dedup_key) || ',"source":' || json_quote(source) || ',"taskId":' || json_quote(task_id)
			|| ',"type":' || json_quote(type) || '}' || char(10) || data AS BLOB) END AS preimage
		FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?)`;

type ChainChunkRow = [number, string, string, Buffer, Buffer, number, number | null];

type ChainRawRow = [number, string, string, number, number | null, string, Buffer, string | null, Buffer | null];

/** How many of the newest events `preToolUseOf` looks through. */
const TOOL_CALL_WINDOW = 20_000;

/** TASK named several tasks: the one line lists them (docs/cli.md, "Naming a task"). */
export class AmbiguousTaskError extends Error {
	constructor(ref: string, matches: readonly TaskRefCandidate[]) {
		super(ambiguityText(ref, matches));
	}
}

const isOfType = <T extends EventTypeName>(event: LedgerEvent, types: readonly T[]): event is EventOfType<T> =>
	(types as readonly string[]).includes(event.type);

/** Statements whose SQL depends on how many values an IN list holds, prepared once per length. */
function preparedByLength(db: Database.Database, sql: (marks: string) => string): (length: number) => Database.Statement {
	const cache = new Map<number, Database.Statement>();
	return length => {
		let statement = cache.get(length);
		if (!statement) {
			statement = db.prepare(sql(Array.from({length}, () => '?').join(', ')));
			cache.set(length, statement);
		}
		return statement;
	};
}

/** Prepares the reader's statements once. */
export function createLedgerReader(db: Database.Database): LedgerReader {
	const byId = db.prepare('SELECT doc FROM tasks WHERE id = ?').pluck();
	const byPrefix = db.prepare('SELECT doc FROM tasks WHERE id >= ? AND id < ? || char(1114111) LIMIT 6').pluck();
	const bySession = db.prepare('SELECT doc FROM tasks WHERE session_id = ? LIMIT 6').pluck();
	// LIKE folds ASCII case, as titleKey does; the candidates are checked again in chooseByTitle.
	const byTitle = db
		.prepare(
			`SELECT doc FROM tasks WHERE title LIKE ? ESCAPE '\\' ORDER BY ended_at IS NULL DESC, created_at DESC LIMIT ${TITLE_CANDIDATES}`,
		)
		.pluck();
	const forView = db
		.prepare('SELECT doc FROM tasks WHERE ended_at IS NULL OR ended_at >= ? ORDER BY created_at DESC, id')
		.pluck();
	const allTasks = db.prepare('SELECT doc FROM tasks ORDER BY created_at DESC, id').pluck();
	const failedSince = db.prepare(`SELECT doc FROM tasks WHERE status = 'failed' AND ended_at >= ?`).pluck();
	// Only a run in a failure's folder, or of its title, that ended after it can answer it.
	const answering = db
		.prepare(
			`SELECT doc FROM tasks WHERE status = 'done' AND ended_at > @after
				AND (cwd IN (SELECT value FROM json_each(@cwds)) OR title IN (SELECT value FROM json_each(@titles)))`,
		)
		.pluck();
	const withStatus = preparedByLength(db, marks => `SELECT doc FROM tasks WHERE status IN (${marks})`);
	const withPid = db.prepare('SELECT doc FROM tasks WHERE pid = ? ORDER BY created_at DESC LIMIT 8').pluck();
	const counts = db.prepare('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status');
	const since = db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
	const ofTask = db.prepare('SELECT * FROM events WHERE task_id = ? ORDER BY seq');
	const ofType = preparedByLength(db, marks => `SELECT * FROM events WHERE type IN (${marks}) AND at >= ? ORDER BY seq`);
	const spendTypes = SPEND_EVENT_TYPES.map(type => `'${type}'`).join(', ');
	// CROSS JOIN keeps the tasks outside: left to itself, SQLite walks every spend row of the history by type.
	const spendBetween = db.prepare(
		`SELECT e.* FROM tasks t CROSS JOIN events e ON e.task_id = t.id
			WHERE (t.ended_at IS NULL OR t.ended_at >= @from) AND e.type IN (${spendTypes})
				AND e.at >= @from AND e.at < @until AND e.seq <= @upToSeq
			ORDER BY e.seq`,
	);
	const spendAfter = db.prepare(
		`SELECT * FROM events WHERE seq > @afterSeq AND type IN (${spendTypes}) AND at >= @from AND at < @until ORDER BY seq`,
	);
	const firstOfType = db.prepare('SELECT * FROM events WHERE task_id = ? AND type = ? ORDER BY seq LIMIT 1');
	const latestOfTypes = preparedByLength(
		db,
		marks => `SELECT * FROM events WHERE task_id = ? AND type IN (${marks}) ORDER BY seq DESC LIMIT ?`,
	);
	const threadUsage = db.prepare(
		`SELECT * FROM events WHERE type = ? AND json_extract(data, '$.threadId') = ? ORDER BY seq DESC LIMIT 1`,
	);
	const claimOf = db.prepare(
		`SELECT task_id AS taskId, COUNT(*) OVER () AS count FROM events
			WHERE type = ? AND json_extract(data, '$.contractKey') = ? ORDER BY seq DESC LIMIT 1`,
	);
	const needs = preparedByLength(
		db,
		marks => `SELECT e.* FROM events e LEFT JOIN tasks t ON t.id = e.task_id
			WHERE e.type = 'need.raised'
				AND (e.source NOT IN (${marks}) OR t.id IS NULL OR (t.ended_at IS NULL AND e.at >= t.last_event_at))
			ORDER BY e.seq`,
	);
	const cursor = db.prepare(
		'SELECT offset, last_message_id AS lastMessageId, task_id AS taskId, cost_state AS costState FROM transcript_cursors WHERE path = ?',
	);
	// A call is asked about moments after its hook ran: its PreToolUse is among the newest events.
	const liveEdits = preparedByLength(
		db,
		marks => `SELECT e.* FROM tasks t CROSS JOIN events e ON e.task_id = t.id
			WHERE t.status IN ('registered', 'running', 'untracked') AND e.type = 'agent.event'
			AND json_extract(e.data, '$.event') = 'PostToolUse' AND json_extract(e.data, '$.toolName') IN (${marks})
			ORDER BY e.seq DESC LIMIT ?`,
	);
	const toolCall = db.prepare(
		`SELECT * FROM events WHERE seq > (SELECT COALESCE(MAX(seq), 0) FROM events) - ${TOOL_CALL_WINDOW} AND type = ?
			AND json_extract(data, '$.event') = 'PreToolUse' AND json_extract(data, '$.payload.tool_use_id') = ?
			ORDER BY seq DESC LIMIT 1`,
	);
	const cursorsOf = preparedByLength(
		db,
		marks => `SELECT path, task_id AS taskId FROM transcript_cursors WHERE task_id IN (${marks})`,
	);
	const cursorsUnder = db.prepare(
		'SELECT path, task_id AS taskId FROM transcript_cursors WHERE path >= ? AND path < ? || char(1114111)',
	);
	const processReports = db.prepare(
		`SELECT json_extract(data, '$.pid') AS pid, json_extract(data, '$.startTime') AS startTime,
			json_extract(data, '$.name') AS name, type, source, MAX(seq) AS seq
		FROM events
		WHERE task_id = ? AND type NOT IN ('task.lost', 'task.vanished', 'task.merged')
			AND typeof(json_extract(data, '$.pid')) = 'integer'
		GROUP BY 1, 2, 3, 4, 5 ORDER BY seq DESC LIMIT 64`,
	);
	const last = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM events').pluck();
	let counted: {readonly seq: number; readonly counts: Readonly<Record<Status, number>>} | null = null;
	const eventTotal = db.prepare('SELECT COUNT(*) FROM events').pluck();
	const stored = `SELECT seq, task_id AS taskId, type, at, source, data, dedup_key AS dedupKey, arrived_at AS arrivedAt,
		CASE WHEN hash IS NULL THEN NULL ELSE lower(hex(hash)) END AS hash FROM events`;
	const storedSince = db.prepare(`${stored} WHERE seq > ? ORDER BY seq LIMIT ?`);
	const storedAt = db.prepare(`${stored} WHERE seq = ?`);
	const chainSince = db
		.prepare(
			// data as a blob: its UTF-8 bytes are hashed as they are, without a decode and an encode.
			`SELECT seq, task_id, type, at, arrived_at, source, CAST(data AS BLOB), dedup_key, hash FROM events
			WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
		)
		.raw();
	const chainBulk = db.prepare(CHAIN_CHUNK_SQL).raw();
	const issued = db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'events'`).pluck();
	const firstSeq = db.prepare('SELECT MIN(seq) FROM events').pluck();
	const arrivalAt = db.prepare('SELECT COALESCE(arrived_at, at) FROM events WHERE seq <= ? ORDER BY seq DESC LIMIT 1').pluck();
	const touchedAfter = db.prepare('SELECT DISTINCT task_id FROM events WHERE seq > ?').pluck();
	const arrivedOf = db.prepare('SELECT *, arrived_at AS arrivedAt FROM events WHERE task_id = ? AND seq <= ? ORDER BY seq');
	const ofTypeUpTo = preparedByLength(db, marks => `SELECT * FROM events WHERE type IN (${marks}) AND seq <= ? ORDER BY seq`);
	const arrivalAtSeq = db.prepare('SELECT COALESCE(arrived_at, at) FROM events WHERE seq = ?').pluck();
	const docsById = preparedByLength(db, marks => `SELECT doc FROM tasks WHERE id IN (${marks})`);
	const idRange = db.prepare('SELECT doc FROM tasks WHERE id > ? AND id < ? LIMIT 10000').pluck();
	const host = db.prepare('SELECT id FROM host').pluck();
	const secret = db.prepare(`SELECT value FROM ledger_meta WHERE name = 'ledger_secret'`).pluck();
	const rejectRows = db.prepare(
		'SELECT id, at, origin, line, reason, raw, raw_bytes AS rawBytes FROM rejects ORDER BY id DESC LIMIT ?',
	);
	const rejectTotal = db.prepare('SELECT COUNT(*) FROM rejects').pluck();
	const counterValue = db.prepare('SELECT value FROM counters WHERE name = ?').pluck();
	const metaValue = db.prepare('SELECT value FROM ledger_meta WHERE name = ?').pluck();
	const parseDocs = (docs: unknown[]): Task[] => docs.map(doc => taskFromDoc(doc as string));
	const parseRows = (rows: unknown[]): LedgerEvent[] => (rows as EventRow[]).map(eventFromRow);
	const oneOfType = <T extends EventTypeName>(row: unknown, type: T): EventOfType<T> | undefined => {
		if (row === undefined) return undefined;
		const event = eventFromRow(row as EventRow);
		return isOfType(event, [type]) ? event : undefined;
	};

	return {
		task(id) {
			const doc = byId.get(id) as string | undefined;
			return doc ? taskFromDoc(doc) : undefined;
		},
		resolveTask(ref) {
			// An empty reference is a prefix of every id: it names no task rather than the first one.
			if (ref.trim() === '') return undefined;
			const exact = byId.get(ref) as string | undefined;
			if (exact) return taskFromDoc(exact);
			for (const docs of [byPrefix.all(ref, ref), bySession.all(ref)]) {
				const tasks = parseDocs(docs);
				if (tasks.length === 1) return tasks[0];
				if (tasks.length > 1) throw new AmbiguousTaskError(ref, tasks);
			}
			// Then a title, whole or its start (any case): the candidates here, the choice in src/core.
			const chosen = chooseByTitle(ref, parseDocs(byTitle.all(`${likeEscaped(titleKey(ref))}%`)));
			if (chosen !== null && 'ambiguous' in chosen) throw new AmbiguousTaskError(ref, chosen.ambiguous);
			return chosen?.task;
		},
		tasksForView: endedSince => parseDocs(endedSince === null ? allTasks.all() : forView.all(endedSince)),
		queueTasksSince: since => {
			const failed = parseDocs(failedSince.all(since));
			if (failed.length === 0) return failed;
			const after = Math.min(...failed.map(task => task.endedAt ?? since));
			const texts = (pick: (task: Task) => string | null): string =>
				JSON.stringify([...new Set(failed.flatMap(task => pick(task) ?? []))]);
			const successes = parseDocs(answering.all({after, cwds: texts(task => task.cwd), titles: texts(task => task.title)}));
			return [...failed, ...successes];
		},
		tasksWithStatus: statuses =>
			statuses.length === 0
				? []
				: parseDocs(
						withStatus(statuses.length)
							.pluck()
							.all(...statuses),
					),
		tasksWithPid: pid => parseDocs(withPid.all(pid)),
		statusCounts() {
			// The tasks table changes only with the events that fold into it, so the counts of the last
			// seq still hold: a board's reconciler pass writes the status summary every 5 s, and counting
			// a paper-sized ledger's 28,149 tasks was most of an idle board's CPU.
			const seq = last.get() as number;
			if (counted?.seq !== seq) {
				const result = Object.fromEntries(STATUSES.map(status => [status, 0])) as Record<Status, number>;
				for (const row of counts.all() as {status: Status; n: number}[]) {
					if (row.status in result) result[row.status] = row.n;
				}
				counted = {seq, counts: result};
			}
			return {...counted.counts};
		},
		eventsSince: (afterSeq, limit) => parseRows(since.all(afterSeq, limit)),
		eventsOf: taskId => parseRows(ofTask.all(taskId)),
		eventsOfType: (types, afterAt = 0) =>
			types.length === 0 ? [] : parseRows(ofType(types.length).all(...types, afterAt)).filter(event => isOfType(event, types)),
		spendEventsBetween: (from, until, upToSeq) =>
			parseRows(spendBetween.all({from, until, upToSeq})).filter((event): event is SpendRow =>
				isOfType(event, SPEND_EVENT_TYPES),
			),
		spendEventsAfter: (afterSeq, from, until) =>
			parseRows(spendAfter.all({afterSeq, from, until})).filter((event): event is SpendRow => isOfType(event, SPEND_EVENT_TYPES)),
		needsMaybeCurrent: answeredBySession =>
			parseRows(
				needs(Math.max(1, answeredBySession.length)).all(...(answeredBySession.length === 0 ? [''] : answeredBySession)),
			).filter(event => isOfType(event, [EventType.needRaised])),
		firstEventOf: (taskId, type) => oneOfType(firstOfType.get(taskId, type), type),
		latestEventsOf: (taskId, types, limit) =>
			types.length === 0
				? []
				: parseRows(latestOfTypes(types.length).all(taskId, ...types, limit)).filter(event => isOfType(event, types)),
		latestThreadUsage: threadId => oneOfType(threadUsage.get(EventType.tokensReported, threadId), EventType.tokensReported),
		preToolUseOf: toolUseId => oneOfType(toolCall.get(EventType.agentEvent, toolUseId), EventType.agentEvent),
		editsOfLiveTasks: (tools, limit) =>
			tools.length === 0
				? []
				: parseRows(liveEdits(tools.length).all(...tools, limit)).filter(event => isOfType(event, [EventType.agentEvent])),
		latestClaimOf: contractKey =>
			(claimOf.get(EventType.claimTaken, contractKey) as {taskId: string; count: number} | undefined) ?? null,
		transcriptCursor: path => cursor.get(path) as TranscriptCursor | undefined,
		helpersOf(taskId) {
			// Every id that starts with `taskId.`: `.` is followed by `/` in code point order.
			const inRange = parseDocs(idRange.all(`${taskId}.`, `${taskId}/`));
			const inTree = new Set([taskId]);
			const kept: Task[] = [];
			for (const task of inRange.sort((a, b) => a.id.length - b.id.length)) {
				if (task.parentId === null || !inTree.has(task.parentId)) continue;
				inTree.add(task.id);
				kept.push(task);
			}
			return kept;
		},
		transcriptsOf(taskIds) {
			const found: {path: string; taskId: string}[] = [];
			for (let start = 0; start < taskIds.length; start += 500) {
				const chunk = taskIds.slice(start, start + 500);
				found.push(...(cursorsOf(chunk.length).all(...chunk) as {path: string; taskId: string}[]));
			}
			return found;
		},
		transcriptsUnder: prefix => cursorsUnder.all(prefix, prefix) as {path: string; taskId: string}[],
		processReportsOf: taskId =>
			(processReports.all(taskId) as ProcessReport[]).map(report => ({
				...report,
				startTime: typeof report.startTime === 'number' ? report.startTime : null,
				name: typeof report.name === 'string' ? report.name : null,
			})),
		lastSeq: () => last.get() as number,
		storedEventsSince: (afterSeq, limit) => storedSince.all(afterSeq, limit) as StoredEventRow[],
		storedEventAt: seq => storedAt.get(seq) as StoredEventRow | undefined,
		chainRows: (afterSeq, upToSeq, limit) =>
			(chainSince.all(afterSeq, upToSeq, limit) as ChainRawRow[]).map(
				([seq, taskId, type, at, arrivedAt, source, data, dedupKey, hash]) => ({
					seq,
					taskId,
					type,
					at,
					arrivedAt,
					source,
					data,
					dedupKey,
					hash,
				}),
			),
		chainChunk(afterSeq, upToSeq, limit) {
			const [count, seqs, lengths, preimages, hashes, whole, linked] = chainBulk.get(afterSeq, upToSeq, limit) as ChainChunkRow;
			if (count === 0) return null;
			return {count, seqs, lengths, preimages, hashes: linked === count ? hashes : null, isWhole: whole === count};
		},
		chainFacts() {
			const since = metaValue.get('chain_since') as string | undefined;
			const from = metaValue.get('chain_from_seq') as string | undefined;
			return {
				fromSeq: from === undefined ? ((firstSeq.get() as number | null) ?? 1) : Number(from),
				since: since === undefined ? null : Number(since),
				chainedUpTo: Number((metaValue.get('chained_up_to_seq') as string | undefined) ?? 0),
				issuedSeq: (issued.get() as number | undefined) ?? 0,
				lastSeq: last.get() as number,
			};
		},
		seqArrivedBy(at) {
			// Arrival never goes back as seq goes up (writer.ts), so the last event that had arrived is found by halving.
			let low = 0;
			let high = last.get() as number;
			while (low < high) {
				const middle = Math.ceil((low + high) / 2);
				const arrived = arrivalAt.get(middle) as number | undefined;
				if (arrived !== undefined && arrived <= at) low = middle;
				else high = middle - 1;
			}
			return low;
		},
		taskIdsAfter: afterSeq => touchedAfter.all(afterSeq) as string[],
		eventsArrivedOf: (taskId, upToSeq) =>
			(arrivedOf.all(taskId, upToSeq) as (EventRow & {arrivedAt: number | null})[]).map(row => ({
				event: eventFromRow(row),
				arrivedAt: row.arrivedAt,
			})),
		eventsOfTypeUpTo: (types, upToSeq) =>
			types.length === 0
				? []
				: parseRows(ofTypeUpTo(types.length).all(...types, upToSeq)).filter(event => isOfType(event, types)),
		arrivalOf: seq => (arrivalAtSeq.get(seq) as number | undefined) ?? null,
		tasksById(ids) {
			const tasks: Task[] = [];
			// SQLite allows 32,766 bound values; a batch's tasks are read in chunks well below that.
			for (let start = 0; start < ids.length; start += 500) {
				const chunk = ids.slice(start, start + 500);
				tasks.push(
					...parseDocs(
						docsById(chunk.length)
							.pluck()
							.all(...chunk),
					),
				);
			}
			return tasks;
		},
		hostId: () => host.get() as string,
		secret: () => secret.get() as string | undefined,
		eventCount: () => eventTotal.get() as number,
		rejects: limit => rejectRows.all(limit) as RejectRow[],
		rejectCount: () => rejectTotal.get() as number,
		counter: name => (counterValue.get(name) as number | undefined) ?? 0,
		hasLegacyLineKeys: () => metaValue.get('legacy_line_keys') !== undefined,
	};
}
