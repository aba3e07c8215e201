import {dirname, join, resolve} from 'node:path';
import {ConfigError} from '../core/config.ts';
import type {ReactionRule} from '../core/reactions/rules.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {parseReactionRules, type ReactionRules} from '../core/reactions/rules.ts';
import {CONFIG_EXIT, configPath, readSmallTextFile} from './config-file.ts';
import {CliError} from './errors.ts';

/**
 * Where the reactions rule file is (docs/reactions.md, "The rule file"): `--rules FILE`, else
 * `$CONTROLROOM_REACTIONS` when set and not empty, else `reactions.yaml` beside the config file
 * (docs/config.md, "Where it is").
 */
export function reactionsPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
	if (flag !== undefined) return resolve(flag);
	const named = env['CONTROLROOM_REACTIONS'];
	if (named) return resolve(named);
	return join(dirname(configPath(env)), 'reactions.yaml');
}

/** The rules at `path`, every problem (one line each), or `missing` when no file is there. */
export function readReactionsFile(path: string): {rules: ReactionRules} | {problems: string[]} | 'missing' {
	let text: string | null;
	try {
		text = readSmallTextFile(path, 'reactions');
	} catch (error) {
		if (error instanceof ConfigError) return {problems: [error.message]};
		throw error;
	}
	if (text === null) return 'missing';
	const parsed = parseReactionRules(text);
	return 'problems' in parsed ? {problems: parsed.problems.map(problem => `reactions ${path}: ${problem}`)} : parsed;
}

/**
 * The rules a command acts on: none when there is no file at the default place (nothing reacts);
 * a file named by `--rules` or the variable must exist. A wrong file is one line (the first
 * problem, and how many more) and exit 78, before anything is written.
 */
export function loadReactionRules(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): ReactionRules {
	const path = reactionsPath(flag, env);
	const read = readReactionsFile(path);
	if (read === 'missing') {
		if (flag !== undefined || env['CONTROLROOM_REACTIONS']) throw new CliError(`reactions ${path}: no such file`, CONFIG_EXIT);
		return {version: 1, rules: []};
	}
	if ('problems' in read) {
		const [first, ...rest] = read.problems;
		const more = rest.length === 0 ? '' : ` (and ${rest.length} more; controlroom reactions check lists them)`;
		throw new CliError(`${first ?? `reactions ${path}: refused`}${more}`, CONFIG_EXIT);
	}
	return read.rules;
}

/**
 * The reactions step after a reconciler pass (docs/reactions.md, "When rules are evaluated"): a
 * fault in it (a locked ledger) is one line on stderr, and the next pass tries again.
 */
export async function reactAfterPass(ledger: Ledger, rules: readonly ReactionRule[], report = true): Promise<void> {
	try {
		const [{runReactions}, {sendReaction}] = await Promise.all([
			import('../producers/reactions.ts'),
			import('../gates/reaction-send.ts'),
		]);
		await runReactions(ledger, {rules, deliver: sendReaction(ledger)});
	} catch (error) {
		if (report) process.stderr.write(`controlroom: reactions: ${(error as Error).message.split('\n')[0] ?? ''}\n`);
	}
}
