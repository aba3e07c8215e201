/** Progress exists only where a producer declared a denominator. */
export type Progress = {readonly done: number; readonly total: number};

/** Builds progress only when the total is a positive count and done fits within it. */
export function makeProgress(done: number, total: number): Progress | null {
	if (!Number.isInteger(done) || !Number.isInteger(total) || total <= 0 || done < 0) return null;
	return {done: Math.min(done, total), total};
}

const PROGRESS_LINE = /^\s*PROGRESS\s+(\d+)\s*\/\s*(\d+)\s*$/;

/** Reads an agent's own `PROGRESS n/total` line. */
export function parseProgressLine(line: string): Progress | null {
	const match = line.match(PROGRESS_LINE);
	if (!match) return null;
	return makeProgress(Number(match[1]), Number(match[2]));
}

/** Counts items whose predicate says completed: the shape of every todo list we read. */
export function progressFromList<T>(items: readonly T[], isDone: (item: T) => boolean): Progress | null {
	return makeProgress(items.filter(isDone).length, items.length);
}

/** A declared `--steps N` total wins over what the agent reports. */
export function withDeclaredTotal(reported: Progress, declaredTotal: number | null): Progress | null {
	if (declaredTotal === null) return reported;
	return makeProgress(reported.done, declaredTotal);
}
