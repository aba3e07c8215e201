import {cutCells} from './cell-width.ts';
import {terminalSafe} from './terminal-text.ts';

// What a person's TASK names (docs/cli.md, "Naming a task"): an id, a unique id prefix, a session
// id, then a title or the start of one. The stores fetch the candidates; the choice is here, once,
// for the local ledger and the fleet alike.

/** A task as a reference sees it. */
export type TaskRefCandidate = {
	readonly id: string;
	readonly title: string | null;
	readonly endedAt: number | null;
	/** The host's label, on a fleet ledger. */
	readonly host?: string;
};

/** The most candidates a store fetches for one title; more than one is already ambiguous. */
export const TITLE_CANDIDATES = 20;

/** How a title is compared: case and the spaces around it do not count. */
export function titleKey(text: string): string {
	return text.trim().toLowerCase();
}

/**
 * Among tasks whose title matches `ref`: the ones whose whole title is it, else those it begins.
 * Several in the chosen tier are narrowed to the one that has not ended, when exactly one has not
 * (`stop 'fix export'` means the run going on, not last week's); else the answer is ambiguous.
 */
export function chooseByTitle<T extends TaskRefCandidate>(
	ref: string,
	candidates: readonly T[],
): {readonly task: T} | {readonly ambiguous: readonly T[]} | null {
	const key = titleKey(ref);
	if (key === '') return null;
	const titled = candidates.filter(task => task.title !== null && titleKey(task.title).startsWith(key));
	const exact = titled.filter(task => titleKey(task.title ?? '') === key);
	const tier = exact.length > 0 ? exact : titled;
	if (tier.length === 0) return null;
	if (tier.length === 1) return {task: tier[0] as T};
	const live = tier.filter(task => task.endedAt === null);
	if (live.length === 1) return {task: live[0] as T};
	return {ambiguous: tier};
}

/** A candidate in an ambiguity's line: its id, host and title (cut, made terminal-safe), so the person can pick. */
export function describeCandidate(task: TaskRefCandidate): string {
	const host = task.host === undefined ? '' : ` on ${task.host}`;
	return task.title === null ? `${task.id}${host}` : `${task.id}${host} "${cutCells(terminalSafe(task.title), 40)}"`;
}

/** How many candidates an ambiguity's one line names before it says how many more there are. */
const NAMED_CANDIDATES = 5;

/** The one line an ambiguous TASK gets: every candidate it matches, up to five, then how many more. */
export function ambiguityText(ref: string, candidates: readonly TaskRefCandidate[]): string {
	const named = candidates.slice(0, NAMED_CANDIDATES).map(describeCandidate).join(', ');
	const more = candidates.length > NAMED_CANDIDATES ? ` and ${candidates.length - NAMED_CANDIDATES} more` : '';
	return `task '${terminalSafe(ref)}' is ambiguous: it matches ${named}${more}; give more of the id or the title`;
}
