import {disagreementRecords} from '../core/disagreements.ts';
import {EventType} from '../core/events.ts';
import {shownVerdicts} from '../core/review/reviews.ts';
import {buildSnapshot, toSnapshotDisagreements, toSnapshotVerdicts, type Snapshot} from '../core/snapshot.ts';
import type {LedgerReader} from './reader.ts';
import {loadHumanQueue} from './queue.ts';
import {loadReviews} from './reviews.ts';

export type SnapshotQuery = {
	readonly now: number;
	/** Ended tasks are listed when they ended within this many ms; null lists all. */
	readonly windowMs: number | null;
	readonly stallSeconds?: number;
};

/** Reads what a snapshot needs from the ledger and builds JSON v1. */
export function readSnapshot(reader: LedgerReader, query: SnapshotQuery): Snapshot {
	const since = query.windowMs === null ? null : query.now - query.windowMs;
	const tasks = reader.tasksForView(since);
	const reviews = loadReviews(reader);
	const queue = loadHumanQueue(reader, query.now, reviews);
	const disagreements = disagreementRecords(reader.eventsOfType([EventType.disagreementOpened]));
	return buildSnapshot({
		tasks,
		statusCounts: reader.statusCounts(),
		queue,
		disagreements: toSnapshotDisagreements(disagreements, openDisagreements(reader, query.now, disagreements.length), since),
		verdicts: toSnapshotVerdicts(shownVerdicts(reviews, since), reviews),
		now: query.now,
		...(query.stallSeconds === undefined ? {} : {stallSeconds: query.stallSeconds}),
	});
}

/** The tasks whose disagreement is still in the queue (all of them, not the five a lane shows). */
function openDisagreements(reader: LedgerReader, now: number, count: number): ReadonlySet<string> {
	if (count === 0) return new Set();
	const lane = loadHumanQueue(reader, now, undefined, Number.MAX_SAFE_INTEGER).lanes.find(each => each.name === 'disagreements');
	return new Set(lane?.items.map(item => item.taskId) ?? []);
}
