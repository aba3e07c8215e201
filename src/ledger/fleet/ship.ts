import type {StoredEventRow} from '../../core/events.ts';
import type {Task} from '../../core/task.ts';
import type {HostIdentity} from '../host.ts';
import {createHash} from 'node:crypto';
import {FleetError, type FleetClient} from './connection.ts';
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
	/**
	 * Seqs of this host the fleet holds another row at, one not written with this host's key (shipped
	 * before keys were kept, or by the server's owner): left as they are, this host's event at each
	 * kept in the fleet's rejects instead (docs/fleet.md, "Who may write a host's rows").
	 */
	readonly foreign?: readonly number[];
};

/** A host's key as the sync holds it, and the hash the server keeps of it. */
export type HostKey = {readonly key: string; readonly hash: string};

/** The key's hash as the server computes it (controlroom.session_key_hash()). */
export function hostKeyOf(key: string): HostKey {
	return {key, hash: createHash('sha256').update(key, 'utf8').digest('hex')};
}

/** The host id is held in the fleet under another key: a copied ledger, or another writer that claimed it. */
export class ForeignHostError extends FleetError {}

/** An event of a host as the fleet holds it, for comparing with the host's own copy. */
export type FleetEventCopy = {readonly taskId: string; readonly type: string; readonly at: number; readonly data: string};

/**
 * Sets the session's key (what the server checks every row of the host against), then adds the
 * host with its key's hash, or claims a host shipped before keys were kept, or renames it when its
 * name changed (a name is a label; the id keys everything). A host id the fleet holds under
 * another key is refused: the rows there are another ledger's.
 */
export async function registerHost(client: FleetClient, host: HostIdentity, key: HostKey): Promise<void> {
	await client.query(`SELECT set_config('controlroom.host_key', $1, false)`, [key.key]);
	await client.query('INSERT INTO controlroom.hosts (id, name, key_hash) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [
		host.id,
		host.name,
		key.hash,
	]);
	await client.query('UPDATE controlroom.hosts SET key_hash = $2 WHERE id = $1 AND key_hash IS NULL', [host.id, key.hash]);
	const held = await client.query<{key_hash: string | null}>('SELECT key_hash FROM controlroom.hosts WHERE id = $1', [host.id]);
	if (held.rows[0]?.key_hash !== key.hash) {
		throw new ForeignHostError(
			`the fleet holds host id ${host.id} under another ledger's key: was the ledger copied from another machine? ` +
				'Each ledger needs its own host id; see docs/fleet.md',
		);
	}
	await client.query('UPDATE controlroom.hosts SET name = $2 WHERE id = $1 AND name <> $2', [host.id, host.name]);
}

/** Where shipping resumes, and what the fleet holds of the host that this host did not write. */
export type Resume = {
	/** The last seq shipped with this host's key, as an event or a refused one (0 when none). */
	readonly keyed: number;
	/** The newest event the fleet holds of the host written with no key (shipped before keys were kept), if any. */
	readonly legacy: (FleetEventCopy & {seq: number}) | undefined;
};

export async function resumeOf(client: FleetClient, hostId: string, key: HostKey): Promise<Resume> {
	const keyed = await client.query<{seq: number}>(
		`SELECT GREATEST(
			(SELECT COALESCE(MAX(seq), 0) FROM controlroom.events WHERE host_id = $1 AND key_hash = $2),
			(SELECT COALESCE(MAX(seq), 0) FROM controlroom.rejects WHERE host_id = $1 AND kind = 'event' AND key_hash = $2)
		) AS seq`,
		[hostId, key.hash],
	);
	const seq = Number(keyed.rows[0]?.seq ?? 0);
	return {keyed: seq, legacy: await lastFleetEvent(client, hostId, null)};
}

/** Rows of the host after `seq` not written with its key: another writer's, never shipped over, only told. */
export async function foreignAfter(client: FleetClient, hostId: string, seq: number, key: HostKey): Promise<number> {
	const ahead = await client.query<{n: number}>(
		'SELECT COUNT(*)::bigint AS n FROM controlroom.events WHERE host_id = $1 AND seq > $2 AND key_hash IS DISTINCT FROM $3',
		[hostId, seq, key.hash],
	);
	return Number(ahead.rows[0]?.n ?? 0);
}

/** The fleet's copy of the newest event of a host written with this key hash (null: with none), with its seq, if any. */
export async function lastFleetEvent(
	client: FleetClient,
	hostId: string,
	keyHash: string | null,
): Promise<(FleetEventCopy & {seq: number}) | undefined> {
	const result = await client.query<{seq: number; task_id: string; type: string; at: number; data: string}>(
		`SELECT seq, task_id, type, at, data FROM controlroom.events
		WHERE host_id = $1 AND key_hash IS NOT DISTINCT FROM $2 ORDER BY seq DESC LIMIT 1`,
		[hostId, keyHash],
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
	key: HostKey,
	rows: readonly StoredEventRow[],
	tasks: readonly Task[],
): Promise<WrittenBatch> {
	const last = rows.at(-1);
	if (!last) return {shipped: 0, tasks: 0};
	try {
		return await inTransaction(client, host, last.seq, async () => {
			const events = await insertEvents(client, host.id, key, rows);
			const foreign = await keepForeign(client, host.id, key, rows, events.inserted);
			return {
				shipped: events.inserted.size,
				tasks: tasks.length === 0 ? 0 : await upsertTasks(client, host.id, key, tasks),
				...(foreign.length > 0 ? {foreign} : {}),
			};
		});
	} catch (error) {
		if (!isRowRefusal(error)) throw error;
	}
	// One row the server cannot take (a value it refuses) must not hold back every row after it:
	// the batch is written again a row at a time, each refused row kept in the fleet's rejects.
	return inTransaction(client, host, last.seq, () => writeRowByRow(client, host.id, key, rows, tasks));
}

/**
 * The batch's events the server already held a row for: the same event (a batch repeated after a
 * crash, or shipped before keys were kept) adds nothing; another row at this host's seq is
 * another writer's. One written with this host's key is this ledger's copy elsewhere (refused, as
 * a copied ledger); one written without it is left as it is, and this host's event there is kept
 * in the fleet's rejects, so the sync goes on and says so (docs/fleet.md).
 */
async function keepForeign(
	client: FleetClient,
	hostId: string,
	key: HostKey,
	rows: readonly StoredEventRow[],
	inserted: ReadonlySet<number>,
): Promise<number[]> {
	const held = rows.filter(row => !inserted.has(row.seq));
	if (held.length === 0) return [];
	const copies = await client.query<{
		seq: number;
		task_id: string;
		type: string;
		at: number;
		data: string;
		key_hash: string | null;
	}>(`SELECT seq, task_id, type, at, data, key_hash FROM controlroom.events WHERE host_id = $1 AND seq = ANY($2::bigint[])`, [
		hostId,
		held.map(row => row.seq),
	]);
	const bySeq = new Map(copies.rows.map(row => [Number(row.seq), row]));
	const foreign: number[] = [];
	for (const row of held) {
		const copy = bySeq.get(row.seq);
		if (!copy) continue;
		const isSame = copy.task_id === row.taskId && copy.type === row.type && Number(copy.at) === row.at && copy.data === row.data;
		if (isSame) continue;
		if (copy.key_hash === key.hash)
			throw new ForeignHostError(
				`the fleet holds events of host id ${hostId} at seq ${row.seq} that this ledger does not have, written with its key: ` +
					'was the ledger copied from another machine? Each ledger needs its own host id; see docs/fleet.md',
			);
		foreign.push(row.seq);
		await client.query(
			`INSERT INTO controlroom.rejects (host_id, kind, seq, task_id, reason, sqlstate, key_hash) VALUES ($1, 'event', $2, $3, $4, NULL, $5)
			ON CONFLICT DO NOTHING`,
			[
				hostId,
				row.seq,
				row.taskId,
				`seq ${row.seq} is held by a row not written with this host's key (another writer's): left as it is`,
				key.hash,
			],
		);
	}
	return foreign;
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

async function insertEvents(
	client: FleetClient,
	hostId: string,
	key: HostKey,
	rows: readonly StoredEventRow[],
): Promise<{inserted: Set<number>}> {
	const inserted = await client.query<{seq: number}>(
		`INSERT INTO controlroom.events (host_id, seq, task_id, type, at, source, data, dedup_key, arrived_at, hash, key_hash)
		SELECT $1, seq, task_id, type, at, source, data, dedup_key, arrived_at, hash, $11
		FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[])
			AS batch (seq, task_id, type, at, source, data, dedup_key, arrived_at, hash)
		ORDER BY seq
		ON CONFLICT (host_id, seq) DO NOTHING
		RETURNING seq`,
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
			key.hash,
		],
	);
	return {inserted: new Set(inserted.rows.map(row => Number(row.seq)))};
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
	key: HostKey,
	rows: readonly StoredEventRow[],
	tasks: readonly Task[],
): Promise<WrittenBatch> {
	const refused: RefusedRow[] = [];
	let shipped = 0;
	let written = 0;
	const inserted = new Set<number>();
	const keep = async (row: RefusedRow, error: Error): Promise<void> => {
		refused.push(row);
		await client.query(
			`INSERT INTO controlroom.rejects (host_id, kind, seq, task_id, reason, sqlstate, key_hash) VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT DO NOTHING`,
			[hostId, row.kind, row.seq, row.taskId, row.reason, (error as {code?: string}).code ?? null, key.hash],
		);
	};
	for (const row of rows) {
		const result = await rowOrRefusal(client, async () => {
			const one = await insertEvents(client, hostId, key, [row]);
			for (const seq of one.inserted) inserted.add(seq);
			return one.inserted.size;
		});
		if ('written' in result) shipped += result.written;
		else await keep({kind: 'event', seq: row.seq, taskId: row.taskId, reason: result.refusal.message}, result.refusal);
	}
	const refusedSeqs = new Set(refused.map(row => row.seq));
	const foreign = await keepForeign(
		client,
		hostId,
		key,
		rows.filter(row => !refusedSeqs.has(row.seq)),
		inserted,
	);
	for (const task of tasks) {
		const result = await rowOrRefusal(client, () => upsertTasks(client, hostId, key, [task]));
		if ('written' in result) written += result.written;
		else await keep({kind: 'task', seq: task.lastSeq, taskId: task.id, reason: result.refusal.message}, result.refusal);
	}
	return {shipped, tasks: written, refused, ...(foreign.length > 0 ? {foreign} : {})};
}

async function upsertTasks(client: FleetClient, hostId: string, key: HostKey, tasks: readonly Task[]): Promise<number> {
	const pick = <T>(get: (task: Task) => T): T[] => tasks.map(get);
	// A row another writer put there (not with this host's key) is replaced, whatever its last seq says.
	const result = await client.query(
		`INSERT INTO controlroom.tasks (host_id, id, status, source, title, cwd, parent_id, session_id, pid, exit_code,
			created_at, last_event_at, ended_at, last_seq, doc, key_hash)
		SELECT $1, *, $16 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
			$9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::text[])
		ON CONFLICT (host_id, id) DO UPDATE SET status = excluded.status, source = excluded.source, title = excluded.title,
			cwd = excluded.cwd, parent_id = excluded.parent_id, session_id = excluded.session_id, pid = excluded.pid,
			exit_code = excluded.exit_code, last_event_at = excluded.last_event_at, ended_at = excluded.ended_at,
			last_seq = excluded.last_seq, doc = excluded.doc, key_hash = excluded.key_hash
		WHERE controlroom.tasks.last_seq <= excluded.last_seq OR controlroom.tasks.key_hash IS DISTINCT FROM excluded.key_hash`,
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
			key.hash,
		],
	);
	return result.rowCount ?? 0;
}
