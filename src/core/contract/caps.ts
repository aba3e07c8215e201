import {formatDuration} from '../format.ts';

/*
 * The coordinator's caps, as pure rules (docs/contracts.md, "Caps"; docs/review.md): a contract
 * passed back more times than its limit since a person last handed it over stops going round (it
 * goes to Needs you, and no worker takes it until a person does, `take --for WORKER`); a claim
 * held past its time limit goes to Needs you; a task whose runs failed twice is not run again.
 */

/** The kind of the need a contract over its cap raises, so views and stats can tell it from others. */
export const PASS_BACK_LIMIT_NEED = 'pass-back-limit';

/** True when `passBacks` passes back (since a person last handed the contract over) are past the limit. */
export function isPastPassBackLimit(passBacks: number, limit: number): boolean {
	return passBacks > limit;
}

/** What the need says, and what a refused take says after the contract's name. */
export function passBackLimitText(passBacks: number, limit: number): string {
	return `passed back ${passBacks} times (passBackLimit ${limit}): it waits in Needs you; a person hands it over with controlroom take --for WORKER FILE`;
}

/** A claim's entry in the count: whether a person handed it over (a fresh start) and whether it was passed back. */
export type ClaimHistoryEntry = {readonly handedOverByPerson: boolean; readonly passedBack: boolean};

/** Passes back since the latest claim a person handed over (that claim's own pass-back counts), oldest claim first. */
export function passBacksSinceHandover(claims: readonly ClaimHistoryEntry[]): number {
	let count = 0;
	for (const claim of claims) {
		if (claim.handedOverByPerson) count = 0;
		if (claim.passedBack) count += 1;
	}
	return count;
}

/** The kind of the need a claim held past its time limit raises. */
export const TIME_LIMIT_NEED = 'claim-time-limit';

/** A claim still held, as the time-limit rule reads it. */
export type HeldClaim = {
	readonly taskId: string;
	readonly holder: string;
	readonly takenAt: number;
	/** Its time limit, recorded at the take; null for a claim taken before limits were recorded. */
	readonly timeLimitSeconds: number | null;
	/** Whether the time-limit need was raised on it already (it is raised once). */
	readonly isRaised: boolean;
};

/**
 * The need a claim held past its time limit raises, or null (not past it, raised already, or no
 * limit recorded). Unlike the lease, progress does not renew it: it bounds how long one holder
 * keeps the work, however busy, before a person looks (docs/contracts.md, "Caps").
 */
export function timeLimitNeed(claim: HeldClaim, now: number): string | null {
	if (claim.isRaised || claim.timeLimitSeconds === null) return null;
	if (now - claim.takenAt < claim.timeLimitSeconds * 1000) return null;
	return `held by ${claim.holder} for ${formatDuration(now - claim.takenAt)}, past its time limit of ${formatDuration(claim.timeLimitSeconds * 1000)} (claimTimeLimit): a person decides whether it goes on`;
}

/** The kind of the need a chain of runs that failed too often raises. */
export const FAILED_RUNS_NEED = 'failed-runs';

/** True when a chain of runs has failed often enough that it is not run again (the default: twice). */
export function isAtFailedRunLimit(failures: number, limit: number): boolean {
	return failures >= limit;
}

/** Why a chain of runs is not run again: said by the refusal and the need. */
export function failedRunsText(rootId: string, failures: number, limit: number): string {
	return `the runs of ${rootId} failed ${failures} time${failures === 1 ? '' : 's'} (failedRunLimit ${limit}): not run again; it waits in Needs you for a person (start it afresh with controlroom run)`;
}
