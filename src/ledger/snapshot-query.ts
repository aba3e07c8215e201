import type {ApproverCheck} from '../core/effects/fold.ts';
import {snapshotEffects} from '../core/effects/view.ts';
import {buildSnapshot, type Snapshot} from '../core/snapshot.ts';
import {readOrders} from './orders.ts';
import type {LedgerReader} from './reader.ts';
import {loadHumanQueue} from './queue.ts';

export type SnapshotQuery = {
	readonly now: number;
	/** Ended tasks are listed when they ended within this many ms; null lists all. */
	readonly windowMs: number | null;
	readonly stallSeconds?: number;
	/** Tells a running approval from a dead one (outcome unknown); without it, started stays started. */
	readonly isApproverAlive?: ApproverCheck;
};

/** Reads what a snapshot needs from the ledger and builds JSON v1. */
export function readSnapshot(reader: LedgerReader, query: SnapshotQuery): Snapshot {
	const since = query.windowMs === null ? null : query.now - query.windowMs;
	const tasks = reader.tasksForView(since);
	return buildSnapshot({
		tasks,
		statusCounts: reader.statusCounts(),
		queue: loadHumanQueue(reader, query.now, query.isApproverAlive),
		effects: snapshotEffects(readOrders(reader).values(), query.now, since, query.isApproverAlive),
		now: query.now,
		...(query.stallSeconds === undefined ? {} : {stallSeconds: query.stallSeconds}),
	});
}
