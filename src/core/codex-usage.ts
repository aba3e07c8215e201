import {codexTurnDelta} from './tokens.ts';

/** Cumulative usage as Codex reports it on `turn.completed` (input includes cached input). */
export type CodexUsage = {readonly input: number; readonly output: number};

/** The last cumulative total seen for each thread. */
export type CodexUsageState = ReadonlyMap<string, CodexUsage>;

/** One turn's own share of the tokens, and the state after it. */
export type CodexTurnCount = {
	readonly delta: {readonly input: number; readonly output: number};
	readonly state: CodexUsageState;
};

/**
 * Counts one `turn.completed`: Codex usage is the cumulative total of its thread, so a turn's
 * share is the difference from the thread's previous total. A replayed turn (same total again)
 * adds nothing; a total that went down starts a new count. `previous` seeds a thread seen before
 * this stream (a resumed thread); a stream with no `thread.started` counts under the key `''`.
 */
export function countCodexTurn(state: CodexUsageState, threadId: string | null, usage: CodexUsage): CodexTurnCount {
	const key = threadId ?? '';
	const delta = codexTurnDelta(state.get(key), usage);
	const next = new Map(state);
	next.set(key, {input: usage.input, output: usage.output});
	return {delta, state: next};
}

/** Codex's `todo_list` item: total = length, done = completed count. */
export function todoProgress(items: readonly {readonly completed: boolean}[]): {done: number; total: number} | null {
	if (items.length === 0) return null;
	return {done: items.filter(item => item.completed).length, total: items.length};
}
