import {buildSnapshot, type Snapshot} from '../../core/snapshot.ts';
import type {SnapshotQuery} from '../snapshot-query.ts';
import type {FleetLedger} from './open-fleet.ts';

/** Snapshot JSON v1 of the whole fleet: every host's tasks with their host, counts summed, queues merged, hosts listed. */
export async function readFleetSnapshot(fleet: FleetLedger, query: Omit<SnapshotQuery, 'host'>): Promise<Snapshot> {
	const {reader} = fleet;
	const hosts = await reader.hosts();
	const tasks = await reader.tasksForView(query.windowMs === null ? null : query.now - query.windowMs);
	const statusCounts = await reader.statusCounts();
	const queue = await reader.humanQueue(query.now);
	return buildSnapshot({
		tasks,
		statusCounts,
		queue,
		now: query.now,
		hosts: hosts.map(host => ({
			name: host.label,
			id: host.id,
			lastSyncedAt: new Date(host.lastSyncedAt).toISOString(),
			lastSeq: host.lastSeq,
		})),
		...(query.stallSeconds === undefined ? {} : {stallSeconds: query.stallSeconds}),
	});
}
