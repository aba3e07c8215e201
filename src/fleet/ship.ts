import {FleetError} from '../ledger/fleet/connection.ts';
import type {WrittenBatch} from '../ledger/fleet/ship.ts';
import type {SyncConnection} from '../ledger/fleet/sync-connection.ts';
import type {HostIdentity} from '../ledger/host.ts';
import type {Ledger} from '../ledger/open-ledger.ts';

/** What one shipped batch added. */
export type BatchResult = WrittenBatch & {
	/** The last local seq the batch covered (the next batch starts after it). */
	readonly lastSeq: number;
};

/**
 * Refuses to ship when the server's copy of this host's history is not this ledger's: the same
 * host id with other events means the ledger file was copied from another machine (or restored
 * from an older backup), and shipping would interleave two histories under one id.
 */
export async function checkSameHistory(
	connection: SyncConnection,
	ledger: Ledger,
	host: HostIdentity,
	fleetLast: number,
): Promise<void> {
	if (fleetLast === 0) return;
	const local = ledger.reader.storedEventAt(fleetLast);
	const remote = await connection.eventAt(host.id, fleetLast);
	const isSame =
		local !== undefined &&
		remote !== undefined &&
		remote.taskId === local.taskId &&
		remote.type === local.type &&
		remote.at === local.at &&
		remote.data === local.data;
	if (!isSame) {
		throw new FleetError(
			`the fleet holds events of host id ${host.id} up to seq ${fleetLast} that this ledger (${ledger.path}) does not have: ` +
				'was the ledger copied from another machine, or restored from an older copy? Each ledger needs its own host id; see docs/fleet.md',
		);
	}
}

/**
 * Ships the events after `afterSeq` (at most `limit`), exactly as the ledger stores them, and the
 * task rows they touched, as one batch: all of it lands or none (src/ledger/fleet/ship.ts).
 */
export async function shipBatch(
	connection: SyncConnection,
	ledger: Ledger,
	host: HostIdentity,
	afterSeq: number,
	limit: number,
): Promise<BatchResult> {
	const rows = ledger.reader.storedEventsSince(afterSeq, limit);
	const last = rows.at(-1);
	if (!last) return {shipped: 0, tasks: 0, lastSeq: afterSeq};
	const tasks = ledger.reader.tasksById([...new Set(rows.map(row => row.taskId))]);
	return {...(await connection.writeBatch(host, rows, tasks)), lastSeq: last.seq};
}
