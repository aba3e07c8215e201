import {fleetJson, fleetObject, fleetText} from '../core/fleet-text.ts';
import type {StoredEventRow} from '../core/events.ts';
import type {Task} from '../core/task.ts';
import {FleetError} from '../ledger/fleet/connection.ts';
import type {FleetEventCopy, HostKey, WrittenBatch} from '../ledger/fleet/ship.ts';
import type {SyncConnection} from '../ledger/fleet/sync-connection.ts';
import type {HostIdentity} from '../ledger/host.ts';
import type {Ledger} from '../ledger/open-ledger.ts';

/** What one shipped batch added. */
export type BatchResult = WrittenBatch & {
	/** The last local seq the batch covered (the next batch starts after it). */
	readonly lastSeq: number;
	/** Event and task rows that held what PostgreSQL cannot, escaped on the host (each told once as a reject). */
	readonly escaped: number;
};

/** Whether the fleet's copy of an event is the ledger's own at that seq. */
function isOwn(ledger: Ledger, copy: FleetEventCopy & {seq: number}): boolean {
	const stored = ledger.reader.storedEventAt(copy.seq);
	const local = stored === undefined ? undefined : forTheFleet(stored).row;
	return (
		local !== undefined &&
		copy.taskId === local.taskId &&
		copy.type === local.type &&
		copy.at === local.at &&
		copy.data === local.data
	);
}

/**
 * Where shipping resumes (docs/fleet.md, "Who may write a host's rows"): after the last event shipped
 * with this host's key, refused when the fleet's copy of it is not this ledger's (the same key with
 * other events means the ledger file was copied from another machine, or restored from an older
 * backup, and shipping would interleave two histories under one id). A host shipped before keys
 * were kept resumes after its newest keyless row when that row is its own, else from its start:
 * each seq another row holds is then told, never overwritten and never a reason to stop.
 */
export async function resumeShipping(
	connection: SyncConnection,
	ledger: Ledger,
	host: HostIdentity,
	key: HostKey,
): Promise<{readonly seq: number; readonly foreignAhead: number}> {
	const resume = await connection.resumeOf(host.id, key);
	let seq = 0;
	if (resume.keyed > 0) {
		// The newest event the fleet holds with this key (the resume point may be a row it refused, kept in its rejects).
		const remote = await connection.lastEvent(host.id, key.hash);
		if (remote !== undefined && !isOwn(ledger, remote)) {
			throw new FleetError(
				`the fleet holds events of host id ${host.id} up to seq ${resume.keyed} that this ledger (${ledger.path}) does not have: ` +
					'was the ledger copied from another machine, or restored from an older copy? Each ledger needs its own host id; see docs/fleet.md',
			);
		}
		seq = resume.keyed;
	} else if (resume.legacy !== undefined && isOwn(ledger, resume.legacy)) {
		seq = resume.legacy.seq;
	}
	// Rows beyond what this ledger holds yet (those within it are found as each batch ships).
	return {seq, foreignAhead: await connection.foreignAfter(host.id, Math.max(seq, ledger.reader.lastSeq()), key)};
}

/** An event as the fleet gets it: every text PostgreSQL can hold (src/core/fleet-text.ts), and whether that changed it. */
function forTheFleet(row: StoredEventRow): {row: StoredEventRow; isChanged: boolean} {
	const data = fleetJson(row.data);
	const texts = [row.taskId, row.type, row.source, row.dedupKey ?? ''].map(fleetText);
	if (!data.isChanged && !texts.some(text => text.isChanged)) return {row, isChanged: false};
	const [taskId, type, source, dedupKey] = texts.map(text => text.text) as [string, string, string, string];
	return {
		row: {...row, taskId, type, source, dedupKey: row.dedupKey === null ? null : dedupKey, data: data.text},
		isChanged: true,
	};
}

const ESCAPED =
	'holds a NUL (U+0000) or an unpaired UTF-16 surrogate, which PostgreSQL cannot hold; shipped to the fleet with each written as its \\uXXXX escape';

/**
 * Makes what a batch ships valid for PostgreSQL on the host, and records each event or task row
 * that had to change as a reject of this ledger, once (keyed), so the change is told.
 */
function escapeBatch(
	ledger: Ledger,
	rows: readonly StoredEventRow[],
	tasks: readonly Task[],
): {rows: StoredEventRow[]; tasks: Task[]; escaped: number} {
	let escaped = 0;
	const told = (reject: {line: number | null; reason: string; dedupKey: string}): void => {
		escaped += 1;
		try {
			ledger.writer.reject({origin: 'sync:fleet', raw: null, ...reject});
		} catch {
			// The shipped copy is what matters; a ledger that cannot take the reject says so elsewhere.
		}
	};
	const shippedRows = rows.map(row => {
		const fixed = forTheFleet(row);
		if (fixed.isChanged)
			told({line: row.seq, reason: `event ${row.seq} (${fixed.row.type}) ${ESCAPED}`, dedupKey: `fleet-escape:event:${row.seq}`});
		return fixed.row;
	});
	const shippedTasks = tasks.map(task => {
		const fixed = fleetObject(task);
		if (fixed.isChanged)
			told({line: null, reason: `task ${fleetText(task.id).text} ${ESCAPED}`, dedupKey: `fleet-escape:task:${task.id}`});
		return fixed.value;
	});
	return {rows: shippedRows, tasks: shippedTasks, escaped};
}

/**
 * Ships the events after `afterSeq` (at most `limit`), as the ledger stores them but for what
 * PostgreSQL cannot hold (escaped, and told as a reject), and the task rows they touched, as one
 * batch: all of it lands, or every row the server takes with the rest in its rejects
 * (src/ledger/fleet/ship.ts).
 */
export async function shipBatch(
	connection: SyncConnection,
	ledger: Ledger,
	host: HostIdentity,
	key: HostKey,
	afterSeq: number,
	limit: number,
): Promise<BatchResult> {
	const stored = ledger.reader.storedEventsSince(afterSeq, limit);
	const last = stored.at(-1);
	if (!last) return {shipped: 0, tasks: 0, lastSeq: afterSeq, escaped: 0};
	const {rows, tasks, escaped} = escapeBatch(
		ledger,
		stored,
		ledger.reader.tasksById([...new Set(stored.map(row => row.taskId))]),
	);
	return {...(await connection.writeBatch(host, key, rows, tasks)), lastSeq: last.seq, escaped};
}
