import {HandoffError} from '../handoff/claims.ts';

/**
 * Runs a handoff verb; a refusal prints `controlroom: why` and one line per problem, naming the
 * field, on stderr, and exits 1. Anything else propagates to main.
 */
export function reportRefusal(fn: () => number): number {
	try {
		return fn();
	} catch (error) {
		if (!(error instanceof HandoffError)) throw error;
		const lines = [`controlroom: ${error.message}`, ...error.problems.map(problem => `${problem.severity.padEnd(7)} ${problem.field}: ${problem.message}`)];
		process.stderr.write(`${lines.join('\n')}\n`);
		return 1;
	}
}
