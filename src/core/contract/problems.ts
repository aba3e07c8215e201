/** One finding about a contract or an evidence file, always naming the field it is about. */
export type ContractProblem = {
	readonly severity: 'error' | 'warning';
	/** Dotted path of the field as written, e.g. `context.base_revision` or `acceptance.checks[0]`. */
	readonly field: string;
	/** What is wrong, and how to fix it. Never contains a credential's value. */
	readonly message: string;
};

export const error = (field: string, message: string): ContractProblem => ({severity: 'error', field, message});
export const warning = (field: string, message: string): ContractProblem => ({severity: 'warning', field, message});

export function joinPath(parent: string, key: string | number): string {
	if (typeof key === 'number') return `${parent}[${key}]`;
	return parent === '' ? key : `${parent}.${key}`;
}

/**
 * Where a canonical field came from in the file as written: `goal` from `outcome`,
 * `acceptance.acceptors.lee` from `acceptance.acceptors.engineer`. A problem names the field as the
 * person wrote it.
 */
export type Origin = readonly [canonical: string, written: string];

function startsAtBoundary(path: string, prefix: string): boolean {
	return path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
}

/** A canonical path in the words of the file: the longest origin that covers it, replaced. */
export function writtenPath(path: string, origins: readonly Origin[]): string {
	let best: Origin | null = null;
	for (const origin of origins) {
		if (startsAtBoundary(path, origin[0]) && (best === null || origin[0].length > best[0].length)) best = origin;
	}
	return best === null ? path : `${best[1]}${path.slice(best[0].length)}`;
}

/** Each field's problem once: the same field and message from two rules is one line. */
export function uniqueProblems(problems: readonly ContractProblem[]): ContractProblem[] {
	return [...new Map(problems.map(problem => [`${problem.field}\u0000${problem.message}`, problem])).values()];
}
