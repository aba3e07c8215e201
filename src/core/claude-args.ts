/**
 * Claude Code's command line as the wrapper reads it for a headless run (`claude -p`): whether it
 * is one, where its prompt is, and the command line that resumes its session with no prompt
 * (docs/headless-holds.md). Option arities are Claude Code 2.1's (`claude --help`),
 * read the way its parser (commander) reads them: a variadic option takes every word up to the
 * next option, an optional value takes the next word unless it starts with `-`.
 */

/** Options that take exactly one value. */
const ONE_VALUE = new Set([
	'--agent',
	'--agents',
	'--append-system-prompt',
	'--append-system-prompt-file',
	'--autocompact',
	'--debug-file',
	'--effort',
	'--environment',
	'--fallback-model',
	'--input-format',
	'--json-schema',
	'--max-budget-usd',
	'--max-turns',
	'--model',
	'-n',
	'--name',
	'--output-format',
	'--permission-mode',
	'--permission-prompt-tool',
	'--permission-prompts',
	'--plugin-dir',
	'--plugin-url',
	'--remote-control-session-name-prefix',
	'--session-id',
	'--setting-sources',
	'--settings',
	'--system-prompt',
	'--system-prompt-file',
	'--system-prompt-snapshot',
]);

/** Options that take every word up to the next option. */
const MANY_VALUES = new Set([
	'--add-dir',
	'--allowedTools',
	'--allowed-tools',
	'--betas',
	'--disallowedTools',
	'--disallowed-tools',
	'--file',
	'--mcp-config',
	'--tools',
]);

/** Options whose value may be left out. */
const OPTIONAL_VALUE = new Set([
	'--cloud',
	'-d',
	'--debug',
	'--from-pr',
	'--prompt-suggestions',
	'--remote-control',
	'-r',
	'--resume',
	'--teleport',
	'-w',
	'--worktree',
]);

/** Options that pick which session runs: the resume sets its own. */
const SESSION_CHOOSERS = new Set(['-r', '--resume', '-c', '--continue', '--session-id', '--fork-session']);

/** One word of the command line: an option with the words it took, or a positional. */
type Word =
	| {readonly kind: 'option'; readonly name: string; readonly words: readonly string[]}
	| {readonly kind: 'positional'; readonly word: string};

function splitWords(args: readonly string[]): Word[] {
	const words: Word[] = [];
	for (let index = 0; index < args.length; index += 1) {
		const arg = args[index] ?? '';
		if (arg === '--') {
			for (const rest of args.slice(index + 1)) words.push({kind: 'positional', word: rest});
			break;
		}
		if (!arg.startsWith('-') || arg === '-') {
			words.push({kind: 'positional', word: arg});
			continue;
		}
		const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
		const taken = [arg];
		if (!arg.includes('=')) {
			if (ONE_VALUE.has(name) && index + 1 < args.length) taken.push(args[++index] ?? '');
			else if (MANY_VALUES.has(name))
				while (index + 1 < args.length && !(args[index + 1] ?? '').startsWith('-')) taken.push(args[++index] ?? '');
			else if (OPTIONAL_VALUE.has(name) && index + 1 < args.length && !(args[index + 1] ?? '').startsWith('-'))
				taken.push(args[++index] ?? '');
		}
		words.push({kind: 'option', name, words: taken});
	}
	return words;
}

/** Whether the command line runs Claude Code headless (`-p` / `--print`). */
export function isHeadless(args: readonly string[]): boolean {
	return splitWords(args).some(word => word.kind === 'option' && (word.name === '-p' || word.name === '--print'));
}

/**
 * Whether the command line carries on a session Claude already has (`--resume`, `--continue`, their
 * short forms): its transcript and Claude's own count then hold earlier runs (docs/tree-and-cost.md).
 */
export function resumesSession(args: readonly string[]): boolean {
	return hasOption(args, '-r', '--resume', '-c', '--continue');
}

/** The value of a one-value option (`--x v` or `--x=v`), the last one given; null when absent. */
export function optionValue(args: readonly string[], name: string): string | null {
	let value: string | null = null;
	for (const word of splitWords(args)) {
		if (word.kind !== 'option' || word.name !== name) continue;
		const [first, second] = word.words;
		value = first?.includes('=') ? first.slice(first.indexOf('=') + 1) : (second ?? null);
	}
	return value;
}

/** Whether an option is on the command line (any spelling: `--x`, `--x=v`). */
export function hasOption(args: readonly string[], ...names: readonly string[]): boolean {
	return splitWords(args).some(word => word.kind === 'option' && names.includes(word.name));
}

/**
 * The command line that resumes `sessionId` with no prompt: the same words (a launcher's own
 * arguments, the permission flags, which Claude does not keep), without the prompt and without any
 * option choosing a session, then `--resume SESSION`. The prompt is the last positional; for a
 * launcher (`isClaude` false: a script that runs claude), only one after its first option, since
 * the words before are the launcher's own. A prompt on resume would be a second turn after the held call.
 */
export function resumeArgs(args: readonly string[], sessionId: string, isClaude: boolean): string[] {
	const words = splitWords(args);
	const firstOption = words.findIndex(word => word.kind === 'option');
	const last = words.map(word => word.kind).lastIndexOf('positional');
	const lastPositional = isClaude || (firstOption >= 0 && last > firstOption) ? last : -1;
	const kept = words.flatMap((word, index) => {
		if (word.kind === 'positional') return index === lastPositional ? [] : [word.word];
		return SESSION_CHOOSERS.has(word.name) ? [] : [...word.words];
	});
	return [...kept, '--resume', sessionId];
}
