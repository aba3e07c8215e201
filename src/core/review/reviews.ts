import type {EventOfType} from '../events.ts';
import {VERDICT_KINDS, type VerdictKind} from './verdict.ts';

/** The review events a review's record is folded from. */
export type ReviewEvent = EventOfType<'review.started' | 'review.verdict' | 'review.fix_round' | 'review.concluded'>;

/** Where a review stands. `running` until it concludes (or forever, if its process was killed). */
export type ReviewOutcome = 'running' | 'approved' | 'needs-person' | 'error';

/** One reviewer's verdict as the ledger holds it. */
export type VerdictRecord = {
	readonly taskId: string;
	readonly reviewId: string;
	readonly round: number;
	/** 1-based, in the order the reviewers were given. */
	readonly reviewer: number;
	readonly command: string | null;
	readonly reviewerTaskId: string | null;
	readonly verdict: VerdictKind;
	readonly fixes: readonly string[];
	readonly reason: string | null;
	readonly signal: string | null;
	readonly at: number;
	readonly seq: number;
	/** In this verdict's round, one reviewer approved and another asked for fixes. */
	readonly isDisagreement: boolean;
};

/** One `controlroom review` run on a task, folded from its events. */
export type ReviewRecord = {
	readonly taskId: string;
	readonly reviewId: string;
	readonly startedAt: number;
	readonly reviewers: readonly string[];
	readonly verdicts: readonly VerdictRecord[];
	readonly fixRounds: number;
	readonly outcome: ReviewOutcome;
	readonly concludedAt: number | null;
	readonly concludedSeq: number | null;
	readonly reason: string | null;
	readonly isDisagreement: boolean;
};

const OUTCOMES: readonly ReviewOutcome[] = ['approved', 'needs-person', 'error'];

function verdictKind(value: string | null | undefined): VerdictKind {
	return (VERDICT_KINDS as readonly string[]).includes(value ?? '') ? (value as VerdictKind) : 'INVALID';
}

type Draft = {
	-readonly [K in keyof ReviewRecord]: ReviewRecord[K];
} & {verdicts: VerdictRecord[]};

/** Folds review events (any order of tasks, oldest first) into one record per review, oldest first. */
export function reviewRecords(events: readonly ReviewEvent[]): ReviewRecord[] {
	const drafts = new Map<string, Draft>();
	const draftOf = (event: ReviewEvent): Draft => {
		const reviewId = event.data.reviewId ?? `${event.taskId}@${event.at}`;
		let draft = drafts.get(reviewId);
		if (!draft) {
			draft = {
				taskId: event.taskId,
				reviewId,
				startedAt: event.at,
				reviewers: [],
				verdicts: [],
				fixRounds: 0,
				outcome: 'running',
				concludedAt: null,
				concludedSeq: null,
				reason: null,
				isDisagreement: false,
			};
			drafts.set(reviewId, draft);
		}
		return draft;
	};
	for (const event of events) {
		const draft = draftOf(event);
		switch (event.type) {
			case 'review.started':
				draft.startedAt = event.at;
				draft.reviewers = event.data.reviewers ?? [];
				break;
			case 'review.verdict':
				draft.verdicts.push({
					taskId: event.taskId,
					reviewId: draft.reviewId,
					round: event.data.round ?? 1,
					reviewer: event.data.reviewer ?? draft.verdicts.length + 1,
					command: event.data.command ?? null,
					reviewerTaskId: event.data.reviewerTaskId ?? null,
					verdict: verdictKind(event.data.verdict),
					fixes: event.data.fixes ?? [],
					reason: event.data.reason ?? null,
					signal: event.data.signal ?? null,
					at: event.at,
					seq: event.seq,
					isDisagreement: false,
				});
				break;
			case 'review.fix_round':
				draft.fixRounds += 1;
				break;
			case 'review.concluded': {
				const outcome = event.data.outcome ?? '';
				draft.outcome = (OUTCOMES as readonly string[]).includes(outcome) ? (outcome as ReviewOutcome) : 'error';
				draft.concludedAt = event.at;
				draft.concludedSeq = event.seq;
				draft.reason = event.data.reason ?? null;
				draft.isDisagreement = event.data.isDisagreement === true;
				break;
			}
		}
	}
	return [...drafts.values()].map(draft => ({...draft, verdicts: labelDisagreements(draft.verdicts)}));
}

function labelDisagreements(verdicts: readonly VerdictRecord[]): VerdictRecord[] {
	const rounds = new Map<number, VerdictKind[]>();
	for (const entry of verdicts) rounds.set(entry.round, [...(rounds.get(entry.round) ?? []), entry.verdict]);
	return verdicts.map(entry => {
		const kinds = rounds.get(entry.round) ?? [];
		return {...entry, isDisagreement: kinds.includes('APPROVE') && kinds.includes('FIX')};
	});
}

/** The latest review of each task: an earlier one is history once the task was reviewed again. */
export function latestReviews(records: readonly ReviewRecord[]): ReviewRecord[] {
	const latest = new Map<string, ReviewRecord>();
	for (const record of records) {
		const previous = latest.get(record.taskId);
		if (!previous || record.startedAt >= previous.startedAt) latest.set(record.taskId, record);
	}
	return [...latest.values()];
}

/**
 * The verdicts to show (board and snapshot): every verdict of each task's latest review; reviews
 * with the newest verdict first, and within one, the last round first, reviewers in their order.
 */
export function shownVerdicts(records: readonly ReviewRecord[], since: number | null = null): VerdictRecord[] {
	return shownReviews(records, since).flatMap(review => review.verdicts);
}

/** One review as the verdict lists show it: its verdicts in their shown order, and when it last moved. */
export type ShownReview = {
	readonly record: ReviewRecord;
	/** The last round first, reviewers in their order. */
	readonly verdicts: readonly VerdictRecord[];
	/** Its start or its newest verdict, whichever is later: reviews are listed newest first by it. */
	readonly newest: number;
};

/** The reviews behind shownVerdicts, whole, in its order: lists of several hosts merge by `newest`. */
export function shownReviews(records: readonly ReviewRecord[], since: number | null = null): ShownReview[] {
	return latestReviews(records)
		.filter(record => since === null || record.outcome === 'running' || (record.concludedAt ?? record.startedAt) >= since)
		.map(record => ({
			record,
			verdicts: [...record.verdicts].sort((a, b) => b.round - a.round || a.reviewer - b.reviewer),
			newest: Math.max(record.startedAt, ...record.verdicts.map(entry => entry.at)),
		}))
		.sort((a, b) => b.newest - a.newest);
}

/** A review that needs a person, as a signal for the queue's reviews lane. */
export type ReviewSignal = {readonly taskId: string; readonly reason: string; readonly at: number; readonly seq: number};

/**
 * The reviews lane's signals: each task whose latest review concluded needing a person. A later
 * review of the task replaces it; a send-back or an acceptance closes it (the queue's rules,
 * src/core/human-queue.ts). A review that ended in an error is not a signal: whoever ran it was
 * told, with exit 1.
 */
export function reviewSignals(records: readonly ReviewRecord[]): ReviewSignal[] {
	return latestReviews(records).flatMap(record => {
		if (record.outcome !== 'needs-person') return [];
		const reason = record.reason ?? 'needs a person';
		return [
			{
				taskId: record.taskId,
				reason: reason.startsWith('reviewers disagree') ? reason : `review: ${reason}`,
				at: record.concludedAt ?? record.startedAt,
				seq: record.concludedSeq ?? 0,
			},
		];
	});
}
