import {assertNever} from '../assert-never.ts';

/** What a repository must define for a command to run there. */
export type CommandRequirement =
	| {readonly kind: 'npm-script'; readonly name: string}
	| {readonly kind: 'package-json'}
	| {readonly kind: 'make-target'; readonly name: string | null}
	| {readonly kind: 'executable'; readonly name: string};

const NPM_LIKE = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** npm verbs that run a script of the same name. */
const SCRIPT_VERBS = new Set(['test', 't', 'start', 'stop', 'restart']);
/** npm verbs that only need a package.json. */
const INSTALL_VERBS = new Set(['ci', 'install', 'i', 'add']);

/** Splits a command line into words, honouring simple quotes; enough to find its program. */
export function commandWords(command: string): string[] {
	const words: string[] = [];
	for (const match of command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
		words.push(match[1] ?? match[2] ?? match[3] ?? '');
	}
	return words;
}

/**
 * Says what the repository must define for `command` to run: an npm script, a Makefile target, or
 * an executable. Only the first command of a `&&` chain is read, after any `VAR=value` prefixes.
 */
export function commandRequirement(command: string): CommandRequirement | null {
	const first = command.split(/&&|\|\||;|\|/)[0] ?? '';
	const words = commandWords(first).filter(
		(word, index, all) =>
			!(/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) && all.slice(0, index).every(w => /^[A-Za-z_][A-Za-z0-9_]*=/.test(w))),
	);
	const [program, verb, target] = words;
	if (program === undefined) return null;
	if (NPM_LIKE.has(program)) {
		if (verb === undefined) return {kind: 'package-json'};
		if (verb === 'run' || verb === 'run-script')
			return target === undefined ? {kind: 'package-json'} : {kind: 'npm-script', name: target};
		if (SCRIPT_VERBS.has(verb)) return {kind: 'npm-script', name: verb === 't' ? 'test' : verb};
		if (INSTALL_VERBS.has(verb)) return {kind: 'package-json'};
		// `yarn build`, `pnpm lint`: yarn, pnpm and bun run a script by its bare name.
		return program === 'npm' ? {kind: 'package-json'} : {kind: 'npm-script', name: verb};
	}
	if (program === 'make') {
		const goal = words.slice(1).find(word => !word.startsWith('-') && !word.includes('='));
		return {kind: 'make-target', name: goal ?? null};
	}
	return {kind: 'executable', name: program};
}

/** One line describing a requirement, for messages. */
export function describeRequirement(requirement: CommandRequirement): string {
	switch (requirement.kind) {
		case 'npm-script':
			return `an npm script '${requirement.name}' in package.json`;
		case 'package-json':
			return 'a package.json';
		case 'make-target':
			return requirement.name === null ? 'a Makefile' : `a Makefile target '${requirement.name}'`;
		case 'executable':
			return `an executable '${requirement.name}'`;
		default:
			return assertNever(requirement);
	}
}
