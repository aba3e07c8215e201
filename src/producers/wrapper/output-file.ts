import {closeSync, constants, fstatSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync} from 'node:fs';
import {makePrivateDir, PRIVATE_FILE_MODE} from '../../ledger/private-files.ts';
import {join} from 'node:path';

/** Each output file holds at most this much; the one before it is kept as `<file>.1`, so a run keeps at most twice this. */
export const OUTPUT_FILE_CAP_BYTES = 1024 * 1024;
/** Output files of runs not written to for this long are removed when a wrapper finishes. */
export const OUTPUT_KEEP_MS = 7 * 24 * 3_600_000;

/** Where a run's output is kept: `$CONTROLROOM_HOME/output/<task id>.log`. */
export function outputFileOf(home: string, taskId: string): string {
	return join(home, 'output', `${taskId}.log`);
}

/** A run's output, kept in a bounded file beside the terminal it goes to. */
export type OutputKeeper = {
	readonly path: string;
	write(chunk: Buffer): void;
	close(): void;
};

/**
 * Keeps what a child writes in `path`, bounded: when the file reaches `capBytes` it becomes
 * `<path>.1` (replacing the older one) and a new file starts. Writes are synchronous, so the board
 * can read a line as soon as the child has written it. A write that fails (a full disk) stops the
 * keeping and says so once; the child's output to the terminal is never affected.
 */
export function keepOutput(path: string, onProblem: (message: string) => void, capBytes = OUTPUT_FILE_CAP_BYTES): OutputKeeper {
	let fd: number | null = null;
	let size = 0;
	let isBroken = false;
	const fail = (error: unknown): void => {
		isBroken = true;
		onProblem(`cannot keep the run's output in ${path} (${(error as Error).message}); the run goes on`);
		try {
			if (fd !== null) closeSync(fd);
		} catch {
			// Closing a descriptor that already failed: nothing more to say.
		}
		fd = null;
	};
	const open = (): number => {
		// A run's output can hold anything the agent printed: owner only, like the ledger (docs/ledger.md, Privacy).
		// Where the agent can write too: a link planted under the name is not followed.
		fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
		size = fstatSync(fd).size;
		return fd;
	};
	return {
		path,
		write(chunk) {
			if (isBroken) return;
			try {
				let handle = fd ?? open();
				if (size > 0 && size + chunk.length > capBytes) {
					closeSync(handle);
					renameSync(path, `${path}.1`);
					handle = open();
				}
				writeSync(handle, chunk);
				size += chunk.length;
			} catch (error) {
				fail(error);
			}
		},
		close() {
			if (fd !== null) closeSync(fd);
			fd = null;
		},
	};
}

/** Prepares the output folder (made on first use). */
export function prepareOutputDir(home: string): void {
	makePrivateDir(join(home, 'output'));
}

/** Removes output files not written to within `keepMs`; best effort (another wrapper may be pruning too). */
export function pruneOutputFiles(home: string, now: number, keepMs = OUTPUT_KEEP_MS): void {
	const dir = join(home, 'output');
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch {
		return;
	}
	for (const name of names) {
		const file = join(dir, name);
		try {
			if (now - statSync(file).mtimeMs > keepMs) unlinkSync(file);
		} catch {
			// Gone already, or not ours to remove: nothing to do.
		}
	}
}
