import {
	isPastPassBackLimit,
	PASS_BACK_LIMIT_NEED,
	passBackLimitText,
	passBacksSinceHandover,
	type ClaimHistoryEntry,
} from '../core/contract/caps.ts';
import {EventType, type NewEvent} from '../core/events.ts';
import {builtInOf} from '../core/settings.ts';
import type {Ledger} from '../ledger/open-ledger.ts';

/** The built-in pass-back limit (docs/config.md, `passBackLimit`); the commands pass the configured one. */
export const DEFAULT_PASS_BACK_LIMIT = builtInOf('passBackLimit');

/** The built-in time limit of a claim, in seconds (docs/config.md, `claimTimeLimit`). */
export const DEFAULT_CLAIM_TIME_LIMIT_SECONDS = builtInOf('claimTimeLimit') / 1000;

/** Every claim of one contract, oldest first: whether a person handed it over and whether it was passed back. */
function claimHistory(ledger: Ledger, contractKey: string): ClaimHistoryEntry[] {
	const latest = ledger.reader.latestClaimOf(contractKey);
	if (latest === null) return [];
	// Claim ids count takes of the contract: `claim-KEY-1` … `claim-KEY-N` (docs/contracts.md, "Claims").
	const prefix = latest.taskId.slice(0, latest.taskId.length - String(latest.count).length);
	const history: ClaimHistoryEntry[] = [];
	for (let n = 1; n <= latest.count; n += 1) {
		const taskId = `${prefix}${n}`;
		const [taken] = ledger.reader.latestEventsOf(taskId, [EventType.claimTaken], 1);
		const passed = ledger.reader.latestEventsOf(taskId, [EventType.claimPassedBack], 1);
		history.push({handedOverByPerson: Boolean(taken?.data.handedOverBy), passedBack: passed.length > 0});
	}
	return history;
}

/** Passes back of a contract since a person last handed it over. */
export function passBacksOf(ledger: Ledger, contractKey: string): number {
	return passBacksSinceHandover(claimHistory(ledger, contractKey));
}

/**
 * Why a worker may not take the contract (its passes back are past the limit), or null. A person
 * handing it over (`take --for`) is not refused: that is the person deciding.
 */
export function passBackRefusal(ledger: Ledger, contractKey: string, limit: number): string | null {
	const passBacks = passBacksOf(ledger, contractKey);
	return isPastPassBackLimit(passBacks, limit) ? passBackLimitText(passBacks, limit) : null;
}

/**
 * The need a pass-back raises when it is the one past the limit (written in the same transaction
 * as the pass-back, before it: the count includes the claim being passed back). Only the pass-back
 * that crosses the limit raises it, so Needs you holds one entry per contract stopped.
 */
export function passBackLimitNeed(
	ledger: Ledger,
	claim: {readonly taskId: string; readonly contractKey: string | null},
	at: number,
	source: string,
	actor: string,
	limit: number,
): NewEvent[] {
	if (claim.contractKey === null) return [];
	const passBacks = passBacksOf(ledger, claim.contractKey) + 1;
	if (!isPastPassBackLimit(passBacks, limit) || isPastPassBackLimit(passBacks - 1, limit)) return [];
	return [
		{
			taskId: claim.taskId,
			type: EventType.needRaised,
			at,
			source,
			data: {lane: 'needs', kind: PASS_BACK_LIMIT_NEED, message: passBackLimitText(passBacks, limit), actor},
		},
	];
}

/** The contract key a claim was taken under, from its take. */
export function contractKeyOfClaim(ledger: Ledger, taskId: string): string | null {
	const [taken] = ledger.reader.latestEventsOf(taskId, [EventType.claimTaken], 1);
	return taken?.data.contractKey ?? null;
}
