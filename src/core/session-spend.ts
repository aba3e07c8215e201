import type {Cost} from './cost.ts';
import type {Task} from './task.ts';
import {addTokens, type Tokens} from './tokens.ts';

/**
 * A run's whole session: what the session it resumed had spent before the run (Claude's own count)
 * plus what the run's tree spent. A run that began its session is its whole session, so this is
 * null for it (docs/tree-and-cost.md, "Resumed sessions").
 */
export type SessionSpend = {
	/** What the session had spent before this run; unknown parts null. */
	readonly before: Tokens & {readonly costUsd: number | null};
	/** Before plus the run's tree. */
	readonly tokens: Tokens;
	/** Claude's own figure for the session where it gave one (a `-p` result), else before plus the run's cost; null: unknown. */
	readonly costUsd: number | null;
};

/** The session figures of a run that resumed one, or null for a run that began its session. */
export function sessionSpendOf(
	task: Pick<Task, 'sessionBefore' | 'sessionReportedCost'>,
	treeTokens: Tokens,
	treeCost: Cost | null,
): SessionSpend | null {
	const before = task.sessionBefore ?? null;
	const told = task.sessionReportedCost ?? null;
	if (before === null && told === null) return null;
	const beforeTokens = addTokens(
		{input: null, output: null, total: null},
		{input: before?.input ?? null, output: before?.output ?? null},
	);
	const runUsd = treeCost?.currency === 'USD' ? treeCost.amount : null;
	const summed = before?.costUsd != null && runUsd !== null ? Math.round((before.costUsd + runUsd) * 1e9) / 1e9 : null;
	return {
		before: {...beforeTokens, costUsd: before?.costUsd ?? null},
		tokens:
			beforeTokens.total === null ? treeTokens : addTokens(beforeTokens, {input: treeTokens.input, output: treeTokens.output}),
		costUsd: told !== null && told.currency === 'USD' ? told.amount : summed,
	};
}
