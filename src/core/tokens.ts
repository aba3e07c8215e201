/** Token counts; a count no producer reported is `null`, never 0. */
export type Tokens = {
	readonly input: number | null;
	readonly output: number | null;
	readonly total: number | null;
};

export const UNKNOWN_TOKENS: Tokens = {input: null, output: null, total: null};

/** The `from` of a tokens report that brings a Claude session's total to Claude's own count, its `cost-state` line (docs/hooks.md). */
export const COST_STATE = 'cost-state';

/**
 * The `from` of a tokens report read from a `claude -p` run's own output (its stream's answers, or
 * its result's usage): counted only while no transcript has counted the same answers (docs/wrapper.md).
 */
export const CLAUDE_OUTPUT = 'claude output';

function addKnown(a: number | null, b: number | null): number | null {
	if (a === null) return b;
	if (b === null) return a;
	return a + b;
}

/** Adds a usage report to a running total; unknown plus unknown stays unknown. */
export function addTokens(base: Tokens, delta: {readonly input: number | null; readonly output: number | null}): Tokens {
	const input = addKnown(base.input, delta.input);
	const output = addKnown(base.output, delta.output);
	return {input, output, total: input === null && output === null ? null : (input ?? 0) + (output ?? 0)};
}

/** Makes a Tokens value from two stored columns. */
export function tokensOf(input: number | null, output: number | null): Tokens {
	return addTokens(UNKNOWN_TOKENS, {input, output});
}

/** Codex usage is the cumulative total of a thread: the turn's own share is the difference. */
export function codexTurnDelta(
	previous: {readonly input: number; readonly output: number} | undefined,
	current: {readonly input: number; readonly output: number},
): {input: number; output: number} {
	if (!previous || current.input < previous.input || current.output < previous.output) {
		return {input: current.input, output: current.output};
	}
	return {input: current.input - previous.input, output: current.output - previous.output};
}

/** Whether a known total has passed a budget; unknown usage is never over. */
export function isOverBudget(tokens: Tokens, budget: number | null): boolean {
	return budget !== null && tokens.total !== null && tokens.total > budget;
}
