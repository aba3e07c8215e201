import {foldStats} from '../../core/stats/measures.ts';
import {SESSION_ANSWERED_SOURCES} from '../../core/human-queue.ts';
import {snapshotOf} from '../../core/read-port/snapshot-of.ts';
import type {Snapshot} from '../../core/snapshot.ts';
import type {SnapshotQuery} from '../snapshot-query.ts';
import type {FleetLedger} from './open-fleet.ts';

/**
 * Snapshot JSON v1 of the whole fleet: every host's rows through the read port, made by the same
 * snapshotOf as a local snapshot (docs/fleet.md, "Fleet reads"). Reads only what the snapshot
 * shows: the tasks in the window (their rows serve the queue's two hours too), the kept counts,
 * the needs still current and the gates' events.
 */
export async function readFleetSnapshot(fleet: FleetLedger, query: Omit<SnapshotQuery, 'host'>): Promise<Snapshot> {
	const since = query.windowMs === null ? null : query.now - query.windowMs;
	const rows = await fleet.reader.snapshotRows({now: query.now, answeredBySession: SESSION_ANSWERED_SOURCES, viewSince: since});
	// An approver on another machine cannot be asked from here: a started effect is shown as started.
	const snapshot = snapshotOf(rows, {
		now: query.now,
		since,
		isFleet: true,
		...(query.person === undefined ? {} : {person: query.person}),
		...(query.stallSeconds === undefined ? {} : {stallSeconds: query.stallSeconds}),
		...(query.foldHelpers ? {foldHelpers: true} : {}),
	});
	return query.withStats ? {...snapshot, stats: foldStats(await fleet.reader.statsEvents(), null, query.now)} : snapshot;
}

/** Snapshot JSON v1 of the fleet as it was at `time`: each host by its own arrival clock. */
export async function readFleetSnapshotAt(
	fleet: FleetLedger,
	time: number,
	query: Omit<SnapshotQuery, 'host' | 'now'>,
): Promise<Snapshot> {
	const now = time;
	const since = query.windowMs === null ? null : now - query.windowMs;
	const rows = await fleet.reader.snapshotRowsAt(now, since);
	return snapshotOf(rows, {
		now,
		since,
		isFleet: true,
		...(query.person === undefined ? {} : {person: query.person}),
		...(query.stallSeconds === undefined ? {} : {stallSeconds: query.stallSeconds}),
		...(query.foldHelpers ? {foldHelpers: true} : {}),
	});
}
