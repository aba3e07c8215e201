import type {Verdict} from './verdict.ts';

/** A review has at most this many rounds: the first, and one after the worker's fix run. */
export const MAX_ROUNDS = 2;

/** What a review ends with, and the `controlroom review` exit code for it. */
export const REVIEW_EXIT = {approved: 0, needsPerson: 2, error: 1} as const;

/** Why a review needs a person. */
export type NeedsPersonCause = 'fixes-left' | 'invalid' | 'stopped' | 'fix-run-failed';

/** What to do after a round. */
export type RoundDecision =
	| {readonly kind: 'approved'}
	/** Every reviewer answered, at least one with fixes, and a round is left: the worker runs again. */
	| {readonly kind: 'fix-round'; readonly fixes: readonly string[]; readonly isDisagreement: boolean}
	| {
			readonly kind: 'needs-person';
			readonly cause: NeedsPersonCause;
			readonly reason: string;
			readonly isDisagreement: boolean;
	  };

/** One reviewer's verdict in a round, with how to name the reviewer in a reason. */
export type RoundVerdict = {readonly reviewer: number; readonly verdict: Verdict};

/** Reviewers disagree when, in one round, one approves and another asks for fixes. */
export function isDisagreement(verdicts: readonly RoundVerdict[]): boolean {
	return verdicts.some(entry => entry.verdict.kind === 'APPROVE') && verdicts.some(entry => entry.verdict.kind === 'FIX');
}

/** Every reviewer's fixes in reviewer order, one list, the same text given twice kept once. */
export function mergeFixes(verdicts: readonly RoundVerdict[]): string[] {
	const fixes: string[] = [];
	for (const {verdict} of verdicts) {
		if (verdict.kind !== 'FIX') continue;
		for (const fix of verdict.fixes) if (!fixes.includes(fix)) fixes.push(fix);
	}
	return fixes;
}

function names(verdicts: readonly RoundVerdict[], kind: Verdict['kind']): string {
	return verdicts
		.filter(entry => entry.verdict.kind === kind)
		.map(entry => `reviewer ${entry.reviewer}`)
		.join(' and ');
}

/**
 * Decides after a round (docs/review.md, "Rounds and outcomes"). A STOPPED reviewer ends the chain; an INVALID answer
 * ends it too (there is no fix list to send back); all APPROVE is approved; fixes go back to the
 * worker once, while a round is left; fixes still asked for in the last round need a person.
 * With two reviewers both must approve; a round where one approves and one asks for fixes is
 * labelled a disagreement (and its fixes still go back while a round is left).
 */
export function decideRound(round: number, verdicts: readonly RoundVerdict[], maxRounds = MAX_ROUNDS): RoundDecision {
	const disagree = isDisagreement(verdicts);
	if (verdicts.length === 0) {
		return {
			kind: 'needs-person',
			cause: 'invalid',
			reason: `no reviewer gave a verdict in round ${round}`,
			isDisagreement: false,
		};
	}
	const stopped = verdicts.find(entry => entry.verdict.kind === 'STOPPED');
	if (stopped) {
		const signal = stopped.verdict.kind === 'STOPPED' ? (stopped.verdict.signal ?? 'a signal') : 'a signal';
		return {
			kind: 'needs-person',
			cause: 'stopped',
			reason: `${names(verdicts, 'STOPPED')} stopped by ${signal} in round ${round}: no verdict, no fix round`,
			isDisagreement: disagree,
		};
	}
	const invalid = verdicts.find(entry => entry.verdict.kind === 'INVALID');
	if (invalid) {
		const why = invalid.verdict.kind === 'INVALID' ? invalid.verdict.reason : '';
		return {
			kind: 'needs-person',
			cause: 'invalid',
			reason: `${names(verdicts, 'INVALID')} answered INVALID in round ${round} (${why}): no fix round`,
			isDisagreement: disagree,
		};
	}
	if (verdicts.every(entry => entry.verdict.kind === 'APPROVE')) return {kind: 'approved'};
	const fixes = mergeFixes(verdicts);
	if (round < maxRounds) return {kind: 'fix-round', fixes, isDisagreement: disagree};
	const asked = `${fixes.length} fix${fixes.length === 1 ? '' : 'es'} still asked for after round ${round}`;
	return {
		kind: 'needs-person',
		cause: 'fixes-left',
		reason: disagree
			? `reviewers disagree: ${names(verdicts, 'APPROVE')} approves, ${names(verdicts, 'FIX')} asks for fixes; ${asked}`
			: `${asked} (${names(verdicts, 'FIX')})`,
		isDisagreement: disagree,
	};
}

/** Where fixes came from, for the words at the top of the worker's new brief. */
export type FixSource = {readonly kind: 'review'; readonly round: number} | {readonly kind: 'person'; readonly by: string};

/**
 * The text added to the worker's brief: who sent the work back, then the numbered fixes. The
 * worker gets it in its prompt (claude -p, codex exec), in CONTROLROOM_FIXES, and in its brief file.
 */
export function renderFixes(fixes: readonly string[], source: FixSource): string {
	const heading =
		source.kind === 'review'
			? `Your work was sent back by review (round ${source.round}). Make these fixes, then stop:`
			: `Your work was sent back by ${source.by}. Do this, then stop:`;
	return [heading, ...fixes.map((fix, index) => `${index + 1}. ${fix}`)].join('\n');
}
