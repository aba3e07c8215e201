import {statSync} from 'node:fs';
import {basename, dirname, resolve} from 'node:path';
import {terminalSafe} from '../core/terminal-text.ts';
import {CliError, USAGE_EXIT} from './errors.ts';

function isFolder(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/**
 * The absolute path of a file a command was told to write, refused (one line, exit 64) before
 * anything is written when its folder does not exist: a typo in a path makes no folders, and a
 * command that records what it wrote records nothing it could not write (docs/cli.md).
 */
export function outputFile(what: string, file: string): string {
	const target = resolve(file);
	if (!isFolder(dirname(target)))
		throw new CliError(
			`${what}: no folder ${terminalSafe(dirname(target))} to hold ${terminalSafe(basename(target))}; create it first or fix the path`,
			USAGE_EXIT,
		);
	return target;
}
