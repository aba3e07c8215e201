import type {StoredEventRow} from '../../core/events.ts';
import type {Task} from '../../core/task.ts';
import type {HostIdentity} from '../host.ts';
import type {FleetClient} from './connection.ts';
import {LOCK_CLASS, ORDER_LOCK} from './migrations.ts';

/** A row PostgreSQL refused, kept in the fleet's rejects instead. */
export type RefusedRow = {
	readonly kind: 'event' | 'task';
	readonly seq: number;
	readonly taskId: string;
	readonly reason: string;
};

/** What one written batch added. */
export type WrittenBatch = {
	/** Events the server did not have yet. */
	readonly shipped: number;
	/** Task rows written (new, or newer than the server's). */
	readonly tasks: number;
	/** Rows the server refused, written to `controlroom.rejects` instead (the rest of the batch landed). */
	readonly refused?: readonly RefusedRow[];
};

/** An event of a host as the fleet holds it, for comparing with the host's own copy. */
export type FleetEventCopy = {readonly taskId: string; readonly type: string; readonly at: number; readonly data: string};

/**
 * Adds the host, or renames it when its name changed (a name is a label; the id keys everything).
 * An unchanged row is not touched, so registering takes no row lock.
 */
export async function registerHost(client: FleetClient, host: HostIdentity): Promise<void> {
	await client.query('INSERT INTO controlroom.hosts (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
		host.id,
		host.name,
	]);
	await client.query('UPDATE controlroom.hosts SET name = $2 WHERE id = $1 AND name <> $2', [host.id, host.name]);
}

/** The last seq of this host the server holds, as an event or as a refused one: where shipping resumes (0 for a new host). */
export async function resumePoint(client: FleetClient, hostId: string): Promise<number> {
	const result = await client.query<{seq: number}>(
		`SELECT GREATEST(
			(SELECT COALESCE(MAX(seq), 0) FROM controlroom.events WHERE host_id = $1),
			(SELECT COALESCE(MAX(seq), 0) FROM controlroom.rejects WHERE host_id = $1 AND kind = 'event')
		) AS seq`,
		[hostId],
	);
	return Number(result.rows[0]?.seq ?? 0);
}

/** The fleet's copy of the newest event of a host it holds, with its seq, if any. */
export async function lastFleetEvent(client: FleetClient, hostId: string): Promise<(FleetEventCopy & {seq: number}) | undefined> {
	const result = await client.query<{seq: number; task_id: string; type: string; at: number; data: string}>(
		'SELECT seq, task_id, type, at, data FROM controlroom.events WHERE host_id = $1 ORDER BY seq DESC LIMIT 1',
		[hostId],
	);
	const row = result.rows[0];
	return row && {seq: Number(row.seq), taskId: row.task_id, type: row.type, at: Number(row.at), data: row.data};
}

const column = <T>(rows: readonly StoredEventRow[], pick: (row: StoredEventRow) => T): T[] => rows.map(pick);

/**
 * Writes a batch of a host's events (as its ledger stores them, oldest first) and the task rows
 * they touched, in one transaction: all of the batch lands or none of it. Events are keyed by
 * (host, seq), so a batch repeated after a crash adds nothing; a task row is only replaced by a
 * newer one (higher last seq). The shipping lock makes fleet_seq follow commit order across
 * hosts, for the boards' tail.
 */
export async function writeBatch(
	client: FleetClient,
	host: HostIdentity,
	rows: readonly StoredEventRow[],
	tasks: readonly Task[],
): Promise<WrittenBatch> {
	const last = rows.at(-1);
	if (!last) return {shipped: 0, tasks: 0};
	try {
		return await inTransaction(client, host, last.seq, async () => ({
			shipped: await insertEvents(client, host.id, rows),
			tasks: tasks.length === 0 ? 0 : await upsertTasks(client, host.id, tasks),
		}));
	} catch (error) {
		if (!isRowRefusal(error)) throw error;
	}
	// One row the server cannot take (a value it refuses) must not hold back every row after it:
	// the batch is written again a row at a time, each refused row kept in the fleet's rejects.
	return inTransaction(client, host, last.seq, () => writeRowByRow(client, host.id, rows, tasks));
}

/** Errors about a value in the batch (data exceptions, a value too large), not about the server or the connection. */
function isRowRefusal(error: unknown): boolean {
	const code = (error as {code?: unknown} | null)?.code;
	return typeof code === 'string' && (code.startsWith('22') || code.startsWith('54'));
}

/** One transaction under the shipping lock, ending with the host's row. */
async function inTransaction(
	client: FleetClient,
	host: HostIdentity,
	lastSeq: number,
	write: () => Promise<WrittenBatch>,
): Promise<WrittenBatch> {
	await client.query('BEGIN');
	try {
		await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, ORDER_LOCK]);
		const written = await write();
		await client.query(
			`UPDATE controlroom.hosts SET name = $2, last_synced_at = now(), last_seq = GREATEST(last_seq, $3) WHERE id = $1`,
			[host.id, host.name, lastSeq],
		);
		await client.query('COMMIT');
		return written;
	} catch (error) {
		await client.query('ROLLBACK').catch(() => undefined);
		throw error;
	}
}

async function insertEvents(client: FleetClient, hostId: string, rows: readonly StoredEventRow[]): Promise<number> {
	const inserted = await client.query(
		`INSERT INTO controlroom.events (host_id, seq, task_id, type, at, source, data, dedup_key, arrived_at, hash)
		SELECT $1, seq, task_id, type, at, source, data, dedup_key, arrived_at, hash
		FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[])
			AS batch (seq, task_id, type, at, source, data, dedup_key, arrived_at, hash)
		ORDER BY seq
		ON CONFLICT (host_id, seq) DO NOTHING`,
		[
			hostId,
			column(rows, row => row.seq),
			column(rows, row => row.taskId),
			column(rows, row => row.type),
			column(rows, row => row.at),
			column(rows, row => row.source),
			column(rows, row => row.data),
			column(rows, row => row.dedupKey),
			column(rows, row => row.arrivedAt ?? null),
			column(rows, row => row.hash ?? null),
		],
	);
	return inserted.rowCount ?? 0;
}

/** Runs one row's write in a savepoint; a refusal rolls back that row only and says why. */
async function rowOrRefusal(client: FleetClient, write: () => Promise<number>): Promise<{written: number} | {refusal: Error}> {
	await client.query('SAVEPOINT one_row');
	try {
		const written = await write();
		await client.query('RELEASE SAVEPOINT one_row');
		return {written};
	} catch (error) {
		if (!isRowRefusal(error)) throw error;
		await client.query('ROLLBACK TO SAVEPOINT one_row');
		return {refusal: error as Error};
	}
}

/** The batch a row at a time: what the server takes is written, what it refuses goes to its rejects (once). */
async function writeRowByRow(
	client: FleetClient,
	hostId: string,
	rows: readonly StoredEventRow[],
	tasks: readonly Task[],
): Promise<WrittenBatch> {
	const refused: RefusedRow[] = [];
	let shipped = 0;
	let written = 0;
	const keep = async (row: RefusedRow, error: Error): Promise<void> => {
		refused.push(row);
		await client.query(
			`INSERT INTO controlroom.rejects (host_id, kind, seq, task_id, reason, sqlstate) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT DO NOTHING`,
			[hostId, row.kind, row.seq, row.taskId, row.reason, (error as {code?: string}).code ?? null],
		);
	};
	for (const row of rows) {
		const result = await rowOrRefusal(client, () => insertEvents(client, hostId, [row]));
		if ('written' in result) shipped += result.written;
		else await keep({kind: 'event', seq: row.seq, taskId: row.taskId, reason: result.refusal.message}, result.refusal);
	}
	for (const task of tasks) {
		const result = await rowOrRefusal(client, () => upsertTasks(client, hostId, [task]));
		if ('written' in result) written += result.written;
		else await keep({kind: 'task', seq: task.lastSeq, taskId: task.id, reason: result.refusal.message}, result.refusal);
	}
	return {shipped, tasks: written, refused};
}

async function upsertTasks(client: FleetClient, hostId: string, tasks: readonly Task[]): Promise<number> {
	const pick = <T>(get: (task: Task) => T): T[] => tasks.map(get);
	const result = await client.query(
		`INSERT INTO controlroom.tasks (host_id, id, status, source, title, cwd, parent_id, session_id, pid, exit_code,
			created_at, last_event_at, ended_at, last_seq, doc)
		SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
			$9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::text[])
		ON CONFLICT (host_id, id) DO UPDATE SET status = excluded.status, source = excluded.source, title = excluded.title,
			cwd = excluded.cwd, parent_id = excluded.parent_id, session_id = excluded.session_id, pid = excluded.pid,
			exit_code = excluded.exit_code, last_event_at = excluded.last_event_at, ended_at = excluded.ended_at,
			last_seq = excluded.last_seq, doc = excluded.doc
		WHERE controlroom.tasks.last_seq <= excluded.last_seq`,
		[
			hostId,
			pick(task => task.id),
			pick(task => task.status),
			pick(task => task.source),
			pick(task => task.title),
			pick(task => task.cwd),
			pick(task => task.parentId),
			pick(task => task.sessionId),
			pick(task => task.pid),
			pick(task => task.exitCode),
			pick(task => task.createdAt),
			pick(task => task.lastEventAt),
			pick(task => task.endedAt),
			pick(task => task.lastSeq),
			pick(task => JSON.stringify(task)),
		],
	);
	return result.rowCount ?? 0;
}
