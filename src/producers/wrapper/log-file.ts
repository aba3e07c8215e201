import {createWriteStream, openSync} from 'node:fs';
import type {Writable} from 'node:stream';
import {PRIVATE_FILE_MODE} from '../../ledger/private-files.ts';

/** Why a log file would not open, in words rather than an errno. */
const OPEN_ERRORS: Readonly<Record<string, string>> = {
	ENOENT: 'its folder does not exist',
	ENOTDIR: 'part of its path is not a folder',
	EISDIR: 'it is a folder',
	EACCES: 'permission denied',
	EPERM: 'permission denied',
	EROFS: 'the file system is read-only',
};

/**
 * Opens `--log FILE` for appending, synchronously and before the spawn, so a log that cannot be
 * opened is known before anything runs (and is recorded as why the task failed) instead of an
 * unhandled stream error after the child started.
 */
export function openLogFile(file: string): {readonly sink: Writable} | {readonly error: string} {
	try {
		// It holds the agent's output: owner-only when we create it (docs/ledger.md, "Privacy").
		const fd = openSync(file, 'a', PRIVATE_FILE_MODE);
		return {sink: createWriteStream(file, {fd, flags: 'a'})};
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code ?? 'error';
		return {error: `cannot open the log ${file}: ${OPEN_ERRORS[code] ?? code}`};
	}
}
