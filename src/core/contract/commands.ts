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

/** A tripwire the repository can run: a bare script or target, never a shell line (contracts can come from anywhere). */
export type Tripwire =
	| {readonly isRunnable: true; readonly argv: readonly string[]; readonly requirement: CommandRequirement}
	| {readonly isRunnable: false; readonly why: string};

const SHELL_SYNTAX = /[;&|<>$`\\(){}*?~'"]|\n/;
const ONE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_:.-]*$/;
const NOT_A_SCRIPT: Tripwire = {isRunnable: false, why: 'not a package.json script or a Makefile target'};
const HAS_ARGUMENTS: Tripwire = {isRunnable: false, why: 'has arguments: only a bare script or target is run'};

/**
 * Reads a guardrail's tripwire: `npm run NAME`, `npm test`, `yarn NAME`, `pnpm NAME`, `bun run NAME`
 * or `make TARGET`, with nothing else on the line (backticks around it are fine), is run at take
 * and hand-in (docs/contracts.md, "Tripwires"); anything else is a condition for the agent to
 * watch, never run.
 */
export function tripwireOf(text: string): Tripwire {
	const line = text
		.trim()
		.replace(/^`([^`]*)`$/, '$1')
		.trim();
	const [program, ...args] = line.split(/\s+/);
	if (program === undefined || !(program === 'make' || NPM_LIKE.has(program))) return NOT_A_SCRIPT;
	if (SHELL_SYNTAX.test(line)) return {isRunnable: false, why: 'not a bare script or target (shell syntax is never run)'};
	let requirement: CommandRequirement;
	if (program === 'make') {
		const [target] = args;
		if (args.length !== 1 || target === undefined || !ONE_NAME.test(target))
			return args.length === 0 ? NOT_A_SCRIPT : HAS_ARGUMENTS;
		requirement = {kind: 'make-target', name: target};
	} else {
		const [verb, name] = args;
		const script =
			verb === 'run' || verb === 'run-script'
				? args.length === 2
					? name
					: undefined
				: args.length === 1 && verb !== undefined && (program !== 'npm' || SCRIPT_VERBS.has(verb))
					? verb === 't'
						? 'test'
						: verb
					: undefined;
		if (script === undefined) return args.length > 2 || (args.length === 2 && verb !== 'run') ? HAS_ARGUMENTS : NOT_A_SCRIPT;
		if (!ONE_NAME.test(script)) return HAS_ARGUMENTS;
		requirement = {kind: 'npm-script', name: script};
	}
	return {isRunnable: true, argv: [program, ...args], requirement};
}
