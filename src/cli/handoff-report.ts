import {HandoffError} from '../handoff/claims.ts';

/** Prints a refusal: `controlroom: why`, then one line per problem naming the field, on stderr; returns exit 1. */
export function printRefusal(error: HandoffError): number {
	const lines = [
		`controlroom: ${error.message}`,
		...error.problems.map(problem => `${problem.severity.padEnd(7)} ${problem.field}: ${problem.message}`),
	];
	process.stderr.write(`${lines.join('\n')}\n`);
	return 1;
}

/** Runs a handoff verb; a refusal is printed (printRefusal) and exits 1. Anything else propagates to main. */
export function reportRefusal(fn: () => number): number {
	try {
		return fn();
	} catch (error) {
		if (!(error instanceof HandoffError)) throw error;
		return printRefusal(error);
	}
}
