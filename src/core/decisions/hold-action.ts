/**
 * What the hold hook (a wrapped run's PreToolUse) answers for one tool call, decided on plain facts
 * (docs/headless-holds.md). It never waits and never allows on its own: an allow is
 * only ever a person's answer, consumed by the wrapper for this exact call before it resumed.
 */

/** The answer a resume carries: taken from the ledger (used once) by the wrapper that spawned it. */
export type CarriedAnswer = {
	readonly decisionId: string;
	readonly toolUseId: string | null;
	readonly argsHash: string;
	readonly answer: 'allow' | 'deny';
	readonly reason: string | null;
};

/** A question already asked about this tool call and not carried out yet. */
export type PendingQuestion = {readonly decisionId: string; readonly argsHash: string};

export type HoldFacts = {
	/** `claude -p`: `defer` ends the process and the wrapper resumes it; interactively `defer` is ignored. */
	readonly isHeadless: boolean;
	readonly toolUseId: string | null;
	readonly argsHash: string;
	readonly carried: CarriedAnswer | null;
	/** The newest question asked about this tool call id, when one is still waiting. */
	readonly pending: PendingQuestion | null;
	/** The budget, when the run pauses on it (`--on-budget ask`); null when it is stopped instead or unknown. */
	readonly budget: {
		readonly spent: number | null;
		readonly budget: number;
		/** An open budget question of this task. */
		readonly asked: string | null;
	} | null;
	/** Why the policy holds the call, or null. */
	readonly policyReason: string | null;
};

export type HoldAction =
	| {readonly kind: 'allow'; readonly decisionId: string}
	| {readonly kind: 'deny'; readonly reason: string; readonly ask?: 'budget' | null}
	| {
			readonly kind: 'defer';
			readonly reason: string;
			readonly ask: 'deferred' | 'budget' | null;
			readonly decisionId: string | null;
	  }
	| {readonly kind: 'none'};

/** Whether a call's known spend has passed its budget (an unknown spend never has). */
export function isOverBudgetNow(budget: HoldFacts['budget']): boolean {
	return budget !== null && budget.spent !== null && budget.spent > budget.budget;
}

/** The hook's answer for one call: the carried answer, a pause on the budget, a hold by the policy, or nothing. */
export function holdAction(facts: HoldFacts): HoldAction {
	const {carried} = facts;
	if (carried && carried.toolUseId !== null && carried.toolUseId === facts.toolUseId && carried.argsHash === facts.argsHash) {
		return carried.answer === 'allow'
			? {kind: 'allow', decisionId: carried.decisionId}
			: {kind: 'deny', reason: carried.reason ?? 'the person denied this call'};
	}
	if (isOverBudgetNow(facts.budget) && facts.budget) {
		const reason = `token budget ${facts.budget.budget} crossed (${facts.budget.spent} spent): paused until a person approves more`;
		// Interactively `defer` is ignored: the call is denied with the reason, every call until the answer.
		const ask = facts.budget.asked === null ? 'budget' : null;
		if (!facts.isHeadless) return {kind: 'deny', reason, ask};
		return {kind: 'defer', reason, ask, decisionId: facts.budget.asked};
	}
	// The same call still waiting (a second resume, a re-fired hook): held again, not asked twice.
	if (facts.pending && facts.pending.argsHash === facts.argsHash)
		return facts.isHeadless
			? {kind: 'defer', reason: 'waiting for a person', ask: null, decisionId: facts.pending.decisionId}
			: {kind: 'none'};
	if (facts.policyReason !== null && facts.isHeadless)
		return {kind: 'defer', reason: `held for a person: ${facts.policyReason}`, ask: 'deferred', decisionId: null};
	return {kind: 'none'};
}

/** The PreToolUse stdout for an action; empty for none (the agent's own permissions decide). */
export function preToolUseOutput(action: HoldAction): string {
	switch (action.kind) {
		case 'none':
			return '';
		case 'allow':
			return JSON.stringify({hookSpecificOutput: {hookEventName: 'PreToolUse', permissionDecision: 'allow'}});
		case 'deny':
			return JSON.stringify({
				hookSpecificOutput: {hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: action.reason},
			});
		case 'defer':
			return JSON.stringify({
				hookSpecificOutput: {hookEventName: 'PreToolUse', permissionDecision: 'defer', permissionDecisionReason: action.reason},
			});
	}
}
