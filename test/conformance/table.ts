import {it} from 'vitest';

/** Whether the row was false on main before issue 25 (it must now hold), or held and must keep holding. */
export type Was = 'false' | 'held';

/** What the board and the snapshot said for a row, in words, for the truth table. */
export type Answer = {readonly board: string; readonly snapshot: string};

/** One row of the truth table, kept on its test for the reporter (truth-table.ts). */
export type ConformanceRow = {readonly id: string; readonly was: Was; readonly claim: string} & Answer;

declare module 'vitest' {
	interface TaskMeta {
		conformance?: ConformanceRow;
	}
}

/**
 * A row of the conformance table: a scenario run against the real CLIs whose claim the test
 * asserts, recording what the board and the snapshot answered. Rows of a file run side by side
 * (they are independent: each has its own box, its own ledger and its own marker in the shared
 * fake server's script), each waiting on events.
 */
export function row(id: string, was: Was, claim: string, timeoutMs: number, check: () => Promise<Answer>): void {
	it.concurrent(
		`${id}: ${claim}`,
		async ({task}) => {
			task.meta.conformance = {id, was, claim, board: '—', snapshot: '—'};
			const answer = await check();
			task.meta.conformance = {id, was, claim, ...answer};
		},
		timeoutMs,
	);
}
