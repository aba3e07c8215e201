import {describe, expect, it} from 'vitest';
import {EventType, type EventDataOf, type EventOfType} from '../../src/core/events.ts';
import {humanQueueOf, queueSignals} from '../../src/core/human-queue.ts';
import {reviewRecords, reviewSignals, shownVerdicts, type ReviewEvent} from '../../src/core/review/reviews.ts';
import {applyEvent} from '../../src/core/task.ts';

let seq = 0;
function review<T extends ReviewEvent['type']>(taskId: string, type: T, at: number, data: EventDataOf<T>): ReviewEvent {
	seq += 1;
	return {taskId, type, at, source: 'cli', data, seq} as ReviewEvent;
}

/** A review of `taskId` with one reviewer per verdict in each round, concluded as given. */
function reviewOf(
	taskId: string,
	reviewId: string,
	at: number,
	rounds: readonly (readonly string[])[],
	outcome: string | null,
	reason: string | null = null,
): ReviewEvent[] {
	const events: ReviewEvent[] = [review(taskId, EventType.reviewStarted, at, {reviewId, reviewers: ['a', 'b']})];
	rounds.forEach((verdicts, index) => {
		verdicts.forEach((verdict, reviewer) =>
			events.push(
				review(taskId, EventType.reviewVerdict, at + index * 10 + reviewer + 1, {
					reviewId,
					round: index + 1,
					reviewer: reviewer + 1,
					command: reviewer === 0 ? 'a' : 'b',
					verdict,
					fixes: verdict === 'FIX' ? ['add a test'] : [],
				}),
			),
		);
		if (index < rounds.length - 1)
			events.push(review(taskId, EventType.reviewFixRound, at + index * 10 + 5, {reviewId, round: index + 1}));
	});
	if (outcome !== null) {
		events.push(
			review(taskId, EventType.reviewConcluded, at + 100, {
				reviewId,
				outcome,
				reason,
				isDisagreement: reason?.startsWith('reviewers disagree') ?? false,
			}),
		);
	}
	return events;
}

describe('review records', () => {
	it('fold a review’s events, labelling a round where reviewers disagree', () => {
		const [record] = reviewRecords(
			reviewOf(
				'w-1',
				'r-1',
				1000,
				[
					['APPROVE', 'FIX'],
					['APPROVE', 'FIX'],
				],
				'needs-person',
				'reviewers disagree: …',
			),
		);
		expect(record).toMatchObject({
			taskId: 'w-1',
			reviewId: 'r-1',
			reviewers: ['a', 'b'],
			fixRounds: 1,
			outcome: 'needs-person',
			concludedAt: 1100,
			isDisagreement: true,
		});
		expect(record?.verdicts.map(entry => [entry.round, entry.reviewer, entry.verdict, entry.isDisagreement])).toEqual([
			[1, 1, 'APPROVE', true],
			[1, 2, 'FIX', true],
			[2, 1, 'APPROVE', true],
			[2, 2, 'FIX', true],
		]);
	});

	it('keep a review with no conclusion as running, and read an unknown verdict as INVALID', () => {
		const events = [
			review('w-1', EventType.reviewStarted, 1, {reviewId: 'r-1'}),
			review('w-1', EventType.reviewVerdict, 2, {reviewId: 'r-1', round: 1, reviewer: 1, verdict: 'MAYBE'}),
		];
		const [record] = reviewRecords(events);
		expect(record?.outcome).toBe('running');
		expect(record?.verdicts[0]?.verdict).toBe('INVALID');
	});

	it('show only the latest review of each task, newest verdict first', () => {
		const records = reviewRecords([
			...reviewOf('w-1', 'r-old', 1000, [['FIX']], 'needs-person'),
			...reviewOf('w-1', 'r-new', 5000, [['APPROVE']], 'approved'),
			...reviewOf('w-2', 'r-2', 3000, [['INVALID']], 'needs-person', 'reviewer 1 answered INVALID'),
		]);
		expect(shownVerdicts(records).map(entry => [entry.reviewId, entry.verdict])).toEqual([
			['r-new', 'APPROVE'],
			['r-2', 'INVALID'],
		]);
		expect(shownVerdicts(records, 4000).map(entry => entry.reviewId)).toEqual(['r-new']);
	});

	it('put a task in the reviews lane while its latest review needs a person, and only then', () => {
		const needs = reviewRecords(
			reviewOf('w-1', 'r-1', 1000, [['FIX'], ['FIX']], 'needs-person', '1 fix still asked for after round 2 (reviewer 1)'),
		);
		expect(reviewSignals(needs)).toEqual([
			{taskId: 'w-1', reason: 'review: 1 fix still asked for after round 2 (reviewer 1)', at: 1100, seq: expect.any(Number)},
		]);
		const approvedLater = reviewRecords([
			...reviewOf('w-1', 'r-1', 1000, [['FIX']], 'needs-person'),
			...reviewOf('w-1', 'r-2', 2000, [['APPROVE']], 'approved'),
		]);
		expect(reviewSignals(approvedLater)).toEqual([]);
		const disagree = reviewRecords(
			reviewOf('w-1', 'r-1', 1000, [['APPROVE', 'FIX']], 'needs-person', 'reviewers disagree: reviewer 1 approves'),
		);
		expect(reviewSignals(disagree)[0]?.reason).toBe('reviewers disagree: reviewer 1 approves');
		expect(reviewSignals(reviewRecords(reviewOf('w-1', 'r-1', 1000, [['APPROVE']], 'error', 'git failed')))).toEqual([]);
		expect(reviewSignals(reviewRecords(reviewOf('w-1', 'r-1', 1000, [['APPROVE']], null)))).toEqual([]);
	});
});

describe('the queue with reviews and hand-ins', () => {
	const task = (id: string) =>
		applyEvent(undefined, {taskId: id, type: EventType.registered, at: 1, source: 'wrapper', data: {}}, 1)!;
	const closer = (
		taskId: string,
		type: 'work.sent_back' | 'work.accepted',
		at: number,
	): EventOfType<'work.sent_back' | 'work.accepted'> =>
		({taskId, type, at, source: 'cli', data: {}, seq: at}) as EventOfType<'work.sent_back' | 'work.accepted'>;
	const handIn: EventOfType<'need.raised'> = {
		taskId: 'claim-1',
		type: EventType.needRaised,
		at: 500,
		source: 'cli',
		data: {lane: 'waiting', kind: 'hand-in', message: 'hand-in waits for lee'},
		seq: 500,
	};

	function queue(closers: EventOfType<'work.sent_back' | 'work.accepted'>[]) {
		const reviews = reviewSignals(reviewRecords(reviewOf('w-1', 'r-1', 1000, [['FIX'], ['FIX']], 'needs-person', 'fixes left')));
		const tasks = new Map([
			['w-1', task('w-1')],
			['claim-1', task('claim-1')],
		]);
		const signals = queueSignals({now: 10_000, recentTasks: [], needs: [handIn], tasks, reviews});
		return humanQueueOf({signals, tasks, acknowledgements: [], endedSinceEarliest: [], closers});
	}
	const lane = (result: ReturnType<typeof queue>, name: string) =>
		result.lanes.find(entry => entry.name === name)?.items.map(item => item.taskId);

	it('lists a review that needs a person in the reviews lane and a hand-in in the waiting lane', () => {
		const result = queue([]);
		expect(lane(result, 'reviews')).toEqual(['w-1']);
		expect(lane(result, 'waiting')).toEqual(['claim-1']);
	});

	it('closes an entry once a person sent the task back or accepted it, after the signal only', () => {
		expect(lane(queue([closer('w-1', 'work.sent_back', 2000)]), 'reviews')).toEqual([]);
		expect(lane(queue([closer('w-1', 'work.sent_back', 900)]), 'reviews')).toEqual(['w-1']);
		expect(lane(queue([closer('claim-1', 'work.accepted', 600)]), 'waiting')).toEqual([]);
		expect(lane(queue([closer('claim-1', 'work.sent_back', 600)]), 'waiting')).toEqual([]);
	});
});
