import {secondsText} from '../core/settings.ts';
import {overTextLimit, REASON_MAX_CHARS} from '../core/text-limits.ts';
import {parseArgs, type ParseArgsConfig} from 'node:util';
import {nearestName} from '../core/did-you-mean.ts';
import {CliError, USAGE_EXIT} from './errors.ts';
import {fleetUrlHasPassword} from '../core/fleet.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command accepts. */
export const COMMON_OPTIONS = {
	ledger: {type: 'string'},
	help: {type: 'boolean', short: 'h'},
} as const satisfies Options;

const NEGATIVE_NUMBER = /^-\d/;

/**
 * Joins a value-taking flag to a following negative number (`--budget -5` → `--budget=-5`), so the
 * value reaches the command's own check ("expected a positive whole number, got '-5'") instead of
 * node's parser calling the flag ambiguous.
 */
function joinNegativeValues(argv: readonly string[], options: Options): string[] {
	const takesValue = new Set<string>();
	for (const [name, option] of Object.entries(options)) {
		if (option.type !== 'string') continue;
		takesValue.add(`--${name}`);
		if (option.short) takesValue.add(`-${option.short}`);
	}
	const joined: string[] = [];
	for (let index = 0; index < argv.length; index += 1) {
		const arg = argv[index] ?? '';
		if (arg === '--') return [...joined, ...argv.slice(index)];
		const next = argv[index + 1];
		if (takesValue.has(arg) && next !== undefined && NEGATIVE_NUMBER.test(next)) {
			joined.push(`${arg}=${next}`);
			index += 1;
		} else joined.push(arg);
	}
	return joined;
}

/** Node's parser messages, said in our words: one line naming the flag, never the parser's hints. */
function describeParseError(command: string, error: Error & {code?: string}, options: Options): string {
	const flag = error.message.match(/'(-[^'\s<]+)/)?.[1] ?? '';
	const help = `see controlroom ${command} --help`;
	if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
		const near = nearestName(flag.replace(/^-+/, '').split('=')[0] ?? '', Object.keys(options));
		return `${command}: unknown option ${flag}${near === null ? '' : ` (did you mean --${near}?)`} (${help})`;
	}
	if (error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
		return `${command}: unexpected argument '${error.message.match(/argument '([^']*)'/)?.[1] ?? ''}' (${help})`;
	if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
		if (error.message.includes('does not take an argument')) return `${command}: ${flag} takes no value`;
		if (error.message.includes('ambiguous'))
			return `${command}: ${flag} needs a value (for one that starts with -, write ${flag}=VALUE)`;
		return `${command}: ${flag} needs a value`;
	}
	return `${command}: ${error.message.split('\n')[0] ?? 'cannot read the command line'}`;
}

/**
 * Parses a command's argv strictly with node's own parser; an unknown flag, a missing value or a
 * stray argument is a one-line usage error naming it. An empty `--ledger=` is refused, never read
 * as "the default".
 */
export function parseCommandArgs<T extends Options>(
	command: string,
	argv: readonly string[],
	options: T,
	allowPositionals = true,
) {
	const all = {...COMMON_OPTIONS, ...options};
	let parsed;
	try {
		parsed = parseArgs({args: joinNegativeValues(argv, all), options: all, allowPositionals, strict: true});
	} catch (error) {
		throw new CliError(describeParseError(command, error as Error & {code?: string}, all), USAGE_EXIT);
	}
	const ledger = (parsed.values as {ledger?: string}).ledger;
	if (ledger !== undefined && ledger.trim() === '')
		throw new CliError('--ledger: expected the path of a ledger file, got an empty value', USAGE_EXIT);
	if (ledger !== undefined) refusePasswordInUrl('--ledger', ledger);
	return parsed;
}

/**
 * Refuses a fleet URL that holds a password (`postgres://user:secret@host/db`, or `?password=`):
 * a command line is there for every local user to read in `ps` (docs/fleet.md, "The password").
 * One line naming where the password goes instead, never the password.
 */
export function refusePasswordInUrl(flag: string, url: string): void {
	if (!fleetUrlHasPassword(url)) return;
	throw new CliError(
		`${flag}: the URL holds a password, which every local user can read in ps; leave it out and give it in PGPASSWORD, or in a password file (PGPASSFILE, else ~/.pgpass; mode 0600; lines host:port:database:user:password)`,
		USAGE_EXIT,
	);
}

/** The one TASK a command acts on (an id, a unique id prefix or a session id), never empty. */
export function taskArgument(command: string, positionals: readonly string[], extra = 0): string {
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1 + extra)
		throw new CliError(`${command}: expected one TASK (an id, a unique id prefix or a session id)`, USAGE_EXIT);
	if (ref.trim() === '')
		throw new CliError(`${command}: TASK is empty; give an id, a unique id prefix or a session id`, USAGE_EXIT);
	return ref;
}

/** Parses a whole positive number option, naming the flag when it is not one. */
export function positiveInt(flag: string, value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const number = Number(value);
	if (value.trim() === '' || !Number.isInteger(number) || number <= 0)
		throw new CliError(`--${flag}: expected a positive whole number, got '${value}'`, USAGE_EXIT);
	return number;
}

/** Parses a positive amount of money (`0.50`, `12`), or null when the flag was not given. */
export function positiveAmount(flag: string, value: string | undefined): number | null {
	if (value === undefined) return null;
	const number = Number(value);
	if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(number) || number <= 0)
		throw new CliError(`--${flag}: expected a positive amount such as 0.50, got '${value}'`, USAGE_EXIT);
	return number;
}

/**
 * Parses a positive number of seconds (fractions allowed), at least `minimum` where the setting has
 * one (src/core/settings.ts), naming the flag when it is not one.
 */
export function positiveSeconds(flag: string, value: string | undefined, minimum?: number): number | undefined {
	if (value === undefined) return undefined;
	const seconds = Number(value);
	if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0)
		throw new CliError(`--${flag}: expected a positive number of seconds, got '${value}'`, USAGE_EXIT);
	if (minimum !== undefined && seconds < minimum)
		throw new CliError(`--${flag}: expected at least ${secondsText(minimum)}, got '${value}'`, USAGE_EXIT);
	return seconds;
}

/** Refuses a reason or note a person typed that is over its limit (docs/ledger.md, "Text limits"): one line, exit 64. */
export function boundedText(what: string, text: string | undefined, max = REASON_MAX_CHARS): void {
	const tooLong = text === undefined ? null : overTextLimit(what, text, max);
	if (tooLong !== null) throw new CliError(tooLong, USAGE_EXIT);
}
