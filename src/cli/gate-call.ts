import {join} from 'node:path';
import {ReviewGateError} from '../gates/review/subject.ts';
import type {Launcher} from '../gates/review/rerun.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import {CliError, USAGE_EXIT} from './errors.ts';
import {packageRoot} from './package-root.ts';

/** Runs a gate verb; its refusals become one line and exit 1, an ambiguous TASK exit 64 (the command line names no one task). */
export async function gateCall<T>(fn: () => T | Promise<T>): Promise<T> {
	try {
		return await fn();
	} catch (error) {
		if (error instanceof AmbiguousTaskError) throw new CliError(error.message, USAGE_EXIT);
		if (error instanceof ReviewGateError) throw new CliError(error.message, 1);
		throw error;
	}
}

/** How the gates start controlroom itself in the background (a worker's next run). */
export function selfLauncher(): Launcher {
	return {node: process.execPath, bin: join(packageRoot(), 'bin', 'controlroom')};
}
