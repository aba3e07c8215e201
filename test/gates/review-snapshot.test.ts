import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import type {Snapshot} from '../../src/core/snapshot.ts';
import {makeReviewRepo} from '../helpers/review-repo.ts';

// snapshot --json against the ledger it reads: verdicts[] are the verdict events of each task's
// latest review, and the reviews lane holds the tasks whose latest review concluded needing a
// person, oldest first, each waiting since that conclusion. The expectations are computed from
// the raw events, not through the code under test.
describe('snapshot verdicts[] and the reviews lane', {timeout: 120_000}, () => {
	it('match the review events on the ledger', () => {
		const r = makeReviewRepo();
		const approved = r.runWorker('approved');
		const reviewedAgain = r.runWorker('invalid, then approved');
		const invalid = r.runWorker('invalid');
		const fixesTwice = r.runWorker('fixes twice');
		const ask = (taskId: string, reviewer: string) =>
			r.asPerson(['review', taskId, '--reviewer', `cat >/dev/null; ${reviewer}`]).status;
		expect(ask(approved, 'echo APPROVE')).toBe(0);
		expect(ask(reviewedAgain, 'echo "fine by me"')).toBe(2);
		expect(ask(invalid, 'echo "looks fine"')).toBe(2);
		expect(ask(fixesTwice, 'echo "1. rename it"')).toBe(2);
		expect(ask(reviewedAgain, 'echo APPROVE')).toBe(0);

		const snapshot = JSON.parse(r.cli(['snapshot', '--json']).stdout) as Snapshot;

		// Each task's latest review, from review.started.
		const latest = new Map(r.events([EventType.reviewStarted]).map(event => [event.taskId, event.data.reviewId]));
		const verdictEvents = r.events([EventType.reviewVerdict]).filter(event => latest.get(event.taskId) === event.data.reviewId);
		const concluded = new Map(r.events([EventType.reviewConcluded]).map(event => [event.data.reviewId, event]));
		const newest = new Map<string, number>();
		for (const event of verdictEvents) newest.set(event.taskId, Math.max(newest.get(event.taskId) ?? 0, event.at));
		const expected = [...verdictEvents]
			.sort(
				(a, b) =>
					(newest.get(b.taskId) ?? 0) - (newest.get(a.taskId) ?? 0) ||
					(b.data.round ?? 0) - (a.data.round ?? 0) ||
					(a.data.reviewer ?? 0) - (b.data.reviewer ?? 0),
			)
			.map(event => ({
				taskId: event.taskId,
				reviewId: event.data.reviewId,
				round: event.data.round,
				reviewer: event.data.reviewer,
				reviewerTaskId: event.data.reviewerTaskId,
				verdict: event.data.verdict,
				fixes: event.data.fixes ?? [],
				at: new Date(event.at).toISOString(),
				outcome: concluded.get(event.data.reviewId ?? '')?.data.outcome,
			}));
		expect(
			snapshot.verdicts.map(({taskId, reviewId, round, reviewer, reviewerTaskId, verdict, fixes, at, outcome}) => ({
				taskId,
				reviewId,
				round,
				reviewer,
				reviewerTaskId,
				verdict,
				fixes,
				at,
				outcome,
			})),
		).toEqual(expected);
		// The first, INVALID review of the task reviewed again is not shown; the fix list's two rounds are.
		expect(snapshot.verdicts.map(entry => [entry.taskId, entry.round, entry.verdict])).toEqual([
			[reviewedAgain, 1, 'APPROVE'],
			[fixesTwice, 2, 'FIX'],
			[fixesTwice, 1, 'FIX'],
			[invalid, 1, 'INVALID'],
			[approved, 1, 'APPROVE'],
		]);

		const needsPerson = [...concluded.values()]
			.filter(event => latest.get(event.taskId) === event.data.reviewId && event.data.outcome === 'needs-person')
			.sort((a, b) => a.at - b.at);
		const lane = snapshot.queue.lanes.find(entry => entry.name === 'reviews');
		expect(lane?.total).toBe(needsPerson.length);
		expect(lane?.items.map(item => [item.taskId, item.at])).toEqual(
			needsPerson.map(event => [event.taskId, new Date(event.at).toISOString()]),
		);
		expect(lane?.items.map(item => item.taskId)).toEqual([invalid, fixesTwice]);
		const generatedAt = Date.parse(snapshot.generatedAt);
		for (const item of lane?.items ?? []) {
			expect(item.waitingSeconds).toBe(Math.floor((generatedAt - Date.parse(item.at)) / 1000));
		}
	});
});
