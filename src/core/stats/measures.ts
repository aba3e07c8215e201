import type {LedgerEvent} from '../events.ts';
import {MISSING_INFO_KIND} from './need-kinds.ts';
import {needsYouSteps, sizeBetween, type HostedEvent} from './needs-you-size.ts';
import {weekLabel, weeksBetween, weekStart} from './week.ts';

/** Every event type the measures read: one read of the ledger gives them all. */
export const STATS_EVENT_TYPES = [
	'review.verdict',
	'review.started',
	'review.concluded',
	'need.raised',
	'queue.acknowledged',
	'work.sent_back',
	'work.accepted',
	'disagreement.opened',
	'task.failed',
	'task.exited',
	'claim.taken',
	'claim.passed_back',
] as const;

/** Verdicts of the review gate, by kind. */
export type VerdictCounts = {
	readonly approve: number;
	readonly fix: number;
	readonly invalid: number;
	readonly stopped: number;
};

/** The review measures of a span: the counts, FIX per APPROVE, and INVALID's share of the answers. */
export type ReviewMeasures = VerdictCounts & {
	/** fix / approve, or null with no APPROVE. */
	readonly fixPerApprove: number | null;
	/** invalid / (approve + fix + invalid), or null with no answer. */
	readonly invalidShare: number | null;
};

/** One ISO week (UTC) of the window. */
export type WeekMeasures = ReviewMeasures & {
	/** `2026-W49`. */
	readonly week: string;
	/** The week's Monday 00:00 UTC (ms). */
	readonly start: number;
	readonly needsYouMax: number;
	readonly needsYouOverFiveMs: number;
};

/** Every measure of docs/stats.md over a window. */
export type Stats = {
	/** The window: from (null: the ledger's start) to now, ms. */
	readonly since: number | null;
	readonly until: number;
	readonly verdicts: ReviewMeasures;
	readonly weeks: readonly WeekMeasures[];
	readonly needsYou: {readonly max: number; readonly overFiveMs: number; readonly now: number};
	readonly handoffs: {
		/** Claims taken (a contract handed to a worker). */
		readonly taken: number;
		/** Of those, the claims on which the worker raised a missing_info need. */
		readonly cameBackMissingInfo: number;
	};
	/** Every missing_info need raised in the window, on a claim or not. */
	readonly missingInfoNeeds: number;
	readonly passesBack: {
		/** Contracts taken or passed back in the window. */
		readonly contracts: number;
		readonly total: number;
		readonly max: number;
		/** Contracts passed back at least once, most first (then by key). */
		readonly byContract: readonly {readonly contract: string; readonly passes: number}[];
	};
};

const EMPTY_COUNTS: VerdictCounts = {approve: 0, fix: 0, invalid: 0, stopped: 0};

function measuresOf(counts: VerdictCounts): ReviewMeasures {
	const answers = counts.approve + counts.fix + counts.invalid;
	return {
		...counts,
		fixPerApprove: counts.approve === 0 ? null : counts.fix / counts.approve,
		invalidShare: answers === 0 ? null : counts.invalid / answers,
	};
}

/** Which count a verdict adds to: the four kinds of docs/review.md, as `review.verdict` records them. */
const COUNTED: Readonly<Record<string, keyof VerdictCounts>> = {
	APPROVE: 'approve',
	FIX: 'fix',
	INVALID: 'invalid',
	STOPPED: 'stopped',
};

function countVerdict(counts: VerdictCounts, verdict: string | null | undefined): VerdictCounts {
	const key = verdict == null ? undefined : COUNTED[verdict];
	return key === undefined ? counts : {...counts, [key]: counts[key] + 1};
}

const keyOf = (hostId: string, event: LedgerEvent): string => `${hostId}\u0000${event.taskId}`;

/** Claims taken, those that came back for missing information, and passes back per contract. */
function handoffMeasures(events: readonly HostedEvent[], isInWindow: (at: number) => boolean) {
	const contractOf = new Map<string, string>();
	const taken = new Set<string>();
	const missing = new Set<string>();
	const passes = new Map<string, number>();
	const touched = new Set<string>();
	let missingInfoNeeds = 0;
	for (const {hostId, event} of events) {
		if (event.type === 'foreign') continue;
		const key = keyOf(hostId, event);
		if (event.type === 'claim.taken') {
			const contract = event.data.contractKey ?? event.data.contract ?? event.taskId;
			contractOf.set(key, contract);
			if (!isInWindow(event.at)) continue;
			taken.add(key);
			touched.add(contract);
		} else if (event.type === 'need.raised' && event.data.kind === MISSING_INFO_KIND && isInWindow(event.at)) {
			missingInfoNeeds += 1;
			if (contractOf.has(key)) missing.add(key);
		} else if (event.type === 'claim.passed_back' && isInWindow(event.at)) {
			const contract = contractOf.get(key) ?? event.taskId;
			passes.set(contract, (passes.get(contract) ?? 0) + 1);
			touched.add(contract);
		}
	}
	const byContract = [...passes]
		.map(([contract, count]) => ({contract, passes: count}))
		.sort((a, b) => b.passes - a.passes || (a.contract < b.contract ? -1 : a.contract > b.contract ? 1 : 0));
	return {
		handoffs: {taken: taken.size, cameBackMissingInfo: [...missing].filter(key => taken.has(key)).length},
		missingInfoNeeds,
		passesBack: {
			contracts: touched.size,
			total: byContract.reduce((sum, entry) => sum + entry.passes, 0),
			max: byContract[0]?.passes ?? 0,
			byContract,
		},
	};
}

/**
 * The measures of docs/stats.md, folded from the ledger's events of STATS_EVENT_TYPES (every host's,
 * each host's oldest first) over the window from `since` (null: everything) to `now`. Pure: the
 * CLI, the snapshot and the board's panel all call this one fold.
 */
export function foldStats(
	hosts: readonly {readonly hostId: string; readonly events: readonly LedgerEvent[]}[],
	since: number | null,
	now: number,
): Stats {
	const events: HostedEvent[] = hosts
		.flatMap(({hostId, events: list}) => list.map(event => ({hostId, event})))
		.sort((a, b) => a.event.at - b.event.at || a.event.seq - b.event.seq);
	const from = since ?? events[0]?.event.at ?? now;
	const isInWindow = (at: number) => at >= from && at <= now;
	let total = EMPTY_COUNTS;
	const weekly = new Map<string, VerdictCounts>();
	for (const {event} of events) {
		if (event.type !== 'review.verdict' || !isInWindow(event.at)) continue;
		total = countVerdict(total, event.data.verdict);
		const week = weekLabel(weekStart(event.at));
		weekly.set(week, countVerdict(weekly.get(week) ?? EMPTY_COUNTS, event.data.verdict));
	}
	const steps = needsYouSteps(events);
	const weeks = weeksBetween(from, now).map((start): WeekMeasures => {
		const week = weekLabel(start);
		const size = sizeBetween(steps, Math.max(start, from), Math.min(start + 7 * 24 * 3600_000, now));
		return {
			week,
			start,
			...measuresOf(weekly.get(week) ?? EMPTY_COUNTS),
			needsYouMax: size.max,
			needsYouOverFiveMs: size.overCapMs,
		};
	});
	const whole = sizeBetween(steps, from, now);
	const current = steps.filter(step => step.at <= now).at(-1)?.size ?? 0;
	return {
		since,
		until: now,
		verdicts: measuresOf(total),
		weeks,
		needsYou: {max: whole.max, overFiveMs: whole.overCapMs, now: current},
		...handoffMeasures(events, isInWindow),
	};
}
