import {buildSnapshot, type Snapshot} from '../core/snapshot.ts';
import type {LedgerReader} from './reader.ts';
import {loadHumanQueue} from './queue.ts';

export type SnapshotQuery = {
	readonly now: number;
	/** Ended tasks are listed when they ended within this many ms; null lists all. */
	readonly windowMs: number | null;
	readonly stallSeconds?: number;
	/** The ledger's host name, which each task carries in the snapshot. */
	readonly host?: string;
};

/** Reads what a snapshot needs from the ledger and builds JSON v1. */
export function readSnapshot(reader: LedgerReader, query: SnapshotQuery): Snapshot {
	const tasks = reader.tasksForView(query.windowMs === null ? null : query.now - query.windowMs);
	return buildSnapshot({
		tasks,
		statusCounts: reader.statusCounts(),
		queue: loadHumanQueue(reader, query.now),
		now: query.now,
		host: query.host ?? null,
		...(query.stallSeconds === undefined ? {} : {stallSeconds: query.stallSeconds}),
	});
}
