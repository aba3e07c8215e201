import type {Verdict} from '../review/verdict.ts';

/** At most this many rounds, then a person (docs/mediation.md, "Plan review"). */
export const PLAN_REVIEW_ROUNDS = 2;

/** What to do after a round's verdict. */
export type PlanRoundDecision =
	| {readonly next: 'approved'}
	| {readonly next: 'another-round'; readonly openPoints: readonly string[]}
	| {readonly next: 'escalate'; readonly openPoints: readonly string[]; readonly reason: string};

/** What a verdict leaves open: its fixes, or why it could not be read. */
function openPointsOf(verdict: Verdict, carried: readonly string[]): readonly string[] {
	switch (verdict.kind) {
		case 'FIX':
			return verdict.fixes;
		case 'INVALID':
			return carried.length > 0 ? carried : [`no valid verdict: ${verdict.reason}`];
		case 'STOPPED':
			return carried.length > 0 ? carried : [`the reviewer was stopped (${verdict.signal ?? 'signal'})`];
		case 'APPROVE':
			return [];
	}
}

/**
 * The round rule: APPROVE ends it; anything else goes to another round while rounds remain (an
 * unreadable answer or a stopped reviewer keeps the points already open), then to a person as a
 * disagreement about what will happen, with the points still open.
 */
export function decidePlanRound(
	verdict: Verdict,
	round: number,
	carried: readonly string[],
	maxRounds = PLAN_REVIEW_ROUNDS,
): PlanRoundDecision {
	if (verdict.kind === 'APPROVE') return {next: 'approved'};
	const openPoints = openPointsOf(verdict, carried);
	if (round < maxRounds) return {next: 'another-round', openPoints};
	const reason =
		verdict.kind === 'FIX'
			? `${openPoints.length} point${openPoints.length === 1 ? '' : 's'} still open after ${round} rounds`
			: `no APPROVE after ${round} rounds (last answer ${verdict.kind})`;
	return {next: 'escalate', openPoints, reason};
}
