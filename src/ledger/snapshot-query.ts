import {disagreementRecords} from '../core/disagreements.ts';
import type {ApproverCheck} from '../core/effects/fold.ts';
import {snapshotEffects} from '../core/effects/view.ts';
import {EventType} from '../core/events.ts';
import {shownVerdicts} from '../core/review/reviews.ts';
import {buildSnapshot, toSnapshotDisagreements, toSnapshotVerdicts, type Snapshot} from '../core/snapshot.ts';
import {readOrders} from './orders.ts';
import type {LedgerReader} from './reader.ts';
import {loadHumanQueue} from './queue.ts';
import {loadReviews} from './reviews.ts';

export type SnapshotQuery = {
	readonly now: number;
	/** Ended tasks are listed when they ended within this many ms; null lists all. */
	readonly windowMs: number | null;
	readonly stallSeconds?: number;
	/** The ledger's host name, which each task carries in the snapshot. */
	readonly host?: string;
	/** Tells a running approval from a dead one (outcome unknown); without it, started stays started. */
	readonly isApproverAlive?: ApproverCheck;
};

/** Reads what a snapshot needs from the ledger and builds JSON v1. */
export function readSnapshot(reader: LedgerReader, query: SnapshotQuery): Snapshot {
	const since = query.windowMs === null ? null : query.now - query.windowMs;
	const tasks = reader.tasksForView(since);
	const reviews = loadReviews(reader);
	const queue = loadHumanQueue(reader, query.now, {reviews, isApproverAlive: query.isApproverAlive});
	const disagreements = disagreementRecords(reader.eventsOfType([EventType.disagreementOpened]));
	return buildSnapshot({
		tasks,
		statusCounts: reader.statusCounts(),
		queue,
		verdicts: toSnapshotVerdicts(shownVerdicts(reviews, since), reviews),
		effects: snapshotEffects(readOrders(reader).values(), query.now, since, query.isApproverAlive),
		disagreements: toSnapshotDisagreements(disagreements, openDisagreements(reader, query.now, disagreements.length), since),
		now: query.now,
		host: query.host ?? null,
		...(query.stallSeconds === undefined ? {} : {stallSeconds: query.stallSeconds}),
	});
}

/** The tasks whose disagreement is still in the queue (all of them, not the five a lane shows). */
function openDisagreements(reader: LedgerReader, now: number, count: number): ReadonlySet<string> {
	if (count === 0) return new Set();
	const lane = loadHumanQueue(reader, now, {limit: Number.MAX_SAFE_INTEGER}).lanes.find(each => each.name === 'disagreements');
	return new Set(lane?.items.map(item => item.taskId) ?? []);
}
