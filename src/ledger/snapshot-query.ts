import {shownVerdicts} from '../core/review/reviews.ts';
import {buildSnapshot, toSnapshotVerdicts, type Snapshot} from '../core/snapshot.ts';
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
	return buildSnapshot({
		tasks,
		statusCounts: reader.statusCounts(),
		queue: loadHumanQueue(reader, query.now, reviews),
		verdicts: toSnapshotVerdicts(shownVerdicts(reviews, since), reviews),
		now: query.now,
		...(query.stallSeconds === undefined ? {} : {stallSeconds: query.stallSeconds}),
	});
}
