import {parseArgs, type ParseArgsConfig} from 'node:util';
import {CliError, USAGE_EXIT} from './errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command accepts. */
export const COMMON_OPTIONS = {
	ledger: {type: 'string'},
	help: {type: 'boolean', short: 'h'},
} as const satisfies Options;

/**
 * Parses a command's argv strictly with node's own parser; an unknown flag or a missing value is
 * a one-line usage error naming it.
 */
export function parseCommandArgs<T extends Options>(
	command: string,
	argv: readonly string[],
	options: T,
	allowPositionals = true,
) {
	try {
		return parseArgs({args: [...argv], options: {...COMMON_OPTIONS, ...options}, allowPositionals, strict: true});
	} catch (error) {
		throw new CliError(`${command}: ${(error as Error).message.split('\n')[0]}`, USAGE_EXIT);
	}
}

/** Parses a whole positive number option, naming the flag when it is not one. */
export function positiveInt(flag: string, value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const number = Number(value);
	if (!Number.isInteger(number) || number <= 0)
		throw new CliError(`--${flag}: expected a positive whole number, got '${value}'`, USAGE_EXIT);
	return number;
}

/** Parses a positive number of seconds (fractions allowed), naming the flag when it is not one. */
export function positiveSeconds(flag: string, value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const seconds = Number(value);
	if (!Number.isFinite(seconds) || seconds <= 0)
		throw new CliError(`--${flag}: expected a positive number of seconds, got '${value}'`, USAGE_EXIT);
	return seconds;
}
