import {joinPath, warning, type ContractProblem} from './problems.ts';

// What the words of a contract say about themselves (docs/contracts.md, "Wording"): a value marked
// as a guess, a line that needs a screenshot, wording that ties the contract to one tool, a vague
// acceptance line, a line left unfinished.

/** `(guess)`, `(guessed)` or `(guess: why)`, anywhere in a value: the writer was not sure, so the receiver checks it first. */
export const GUESS_MARKER = /\((?:guess|guessed)\b[^)]*\)/i;
/** `(screenshot)` on an acceptance line: its evidence is a screenshot a person marks looked at before accepting. */
export const SCREENSHOT_MARKER = /\(screenshot\)/i;

/** One value the writer marked as a guess (or a provisional assumption), for the agent to check first. */
export type Guess = {readonly field: string; readonly text: string};

function eachText(value: unknown, path: string, visit: (text: string, path: string) => void): void {
	if (typeof value === 'string') visit(value, path);
	else if (Array.isArray(value)) value.forEach((item, index) => eachText(item, joinPath(path, index), visit));
	else if (value !== null && typeof value === 'object')
		for (const [key, child] of Object.entries(value)) eachText(child, joinPath(path, key), visit);
}

/** Every value marked `(guess)`, and every provisional assumption of the state snapshot. */
export function guessesOf(document: unknown): Guess[] {
	const guesses: Guess[] = [];
	eachText(document, '', (text, field) => {
		if (GUESS_MARKER.test(text)) guesses.push({field, text: text.replace(/\s+/g, ' ').trim()});
	});
	const state = (document as {state?: unknown} | null)?.state;
	const provisional = state !== null && typeof state === 'object' ? (state as {provisional?: unknown}).provisional : undefined;
	eachText(provisional, 'state.provisional', (text, field) => {
		if (!GUESS_MARKER.test(text)) guesses.push({field, text: text.trim()});
	});
	return guesses;
}

/** The acceptance lines (numbered from 1) marked `(screenshot)`. */
export function screenshotLines(checks: readonly string[]): number[] {
	return checks.flatMap((line, index) => (SCREENSHOT_MARKER.test(line) ? [index + 1] : []));
}

/** Wording that only makes sense to one agent's tools ("use the Bash tool"): another agent has other tools. */
const TOOL_WORDING = [
	/\buse (?:the |your )?[\w-]+ tool\b/i,
	/\b(?:Bash|Read|Write|Edit|MultiEdit|Grep|Glob|WebFetch|WebSearch|TodoWrite|NotebookEdit|Task|Agent) tool\b/,
	/\bapply_patch\b/,
	/\b(?:in|with|using) (?:Claude Code|Codex|Cursor|Copilot|ChatGPT)\b/i,
	/(?:^|\s)\/(?:compact|clear|init|review)\b/,
];

/** Acceptance lines nobody can check (docs/contracts.md, "Vague lines"). */
const VAGUE = [
	/\bworks?\s+(?:correctly|properly|fine|well|as (?:expected|intended|designed)|again)\b/i,
	/\bis\s+(?:improved|better|faster|cleaner|fixed|handled|robust|correct)\b/i,
	/\bshould\s+work\b/i,
	/\blooks?\s+(?:good|right|fine|nice|clean)\b/i,
	/\bno\s+(?:more\s+)?(?:issues|problems|bugs|errors|regressions)\b/i,
	/^\s*(?:done|fixed|working|it works)\s*\.?\s*$/i,
	/\b(?:code|it|everything)\s+is\s+(?:clean|tidy|readable|maintainable|good)\b/i,
	/\bclean(?:er)?\s+code\b/i,
	/\bwell[\s-]tested\b/i,
	/\bfully\s+tested\b/i,
	/^\s*(?:improve|optimi[sz]e|refactor|clean up|tidy|enhance)\b/i,
	/\bhandles?\s+(?:all\s+)?(?:errors|edge cases|failures)\s+(?:properly|correctly|gracefully|well)\b/i,
	/\b(?:properly|gracefully)\s+handle[sd]?\b/i,
	/\buser[\s-]friendly\b/i,
	/\bperformance\s+is\s+(?:good|better|acceptable|improved)\b/i,
	/\bas\s+(?:needed|appropriate)\b/i,
];

/** Words that say a value was never filled in: a template's stand-in written in prose. */
const UNFINISHED = /\b(?:TODO|TBD|FIXME|XXX)\b|\?\?\?|\b(?:replace (?:this )?with|fill (?:this )?in|to be decided)\b/;

/** A vague acceptance line: nothing a person or a script can check. */
export function isVague(line: string): boolean {
	return VAGUE.some(pattern => pattern.test(line));
}

/** Warnings about the words of the contract: vague lines, tool-specific wording, unfinished values. */
export function wordingWarnings(document: unknown, checks: readonly string[], checksField: string): ContractProblem[] {
	const problems: ContractProblem[] = [];
	checks.forEach((line, index) => {
		if (isVague(line))
			problems.push(
				warning(
					joinPath(checksField, index),
					'vague: say what a person or a script can check (a command and its result, a number, what is seen where)',
				),
			);
	});
	eachText(document, '', (text, field) => {
		if (TOOL_WORDING.some(pattern => pattern.test(text)))
			problems.push(
				warning(
					field,
					'tool-specific wording: say what to do ("run the test suite"), not which tool does it; the receiving agent may have other tools',
				),
			);
		if (UNFINISHED.test(text))
			problems.push(warning(field, 'looks unfinished (TODO, TBD, "replace with", ...): fill it in or delete it'));
	});
	return problems;
}
