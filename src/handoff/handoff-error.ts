import type {ContractProblem} from '../core/contract/problems.ts';

/** A refusal the caller can act on, with one problem per field. */
export class HandoffError extends Error {
	readonly problems: readonly ContractProblem[];
	constructor(message: string, problems: readonly ContractProblem[] = []) {
		super(message);
		this.name = 'HandoffError';
		this.problems = problems;
	}
}

/** Names are compared as people write them: case and surrounding spaces do not matter (as for acceptors). */
export function isSameName(a: string, b: string): boolean {
	return a.trim().toLowerCase() === b.trim().toLowerCase();
}
