import {join} from 'node:path';
import {ReviewGateError} from '../gates/review/subject.ts';
import type {Launcher} from '../gates/review/rerun.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import {CliError} from './errors.ts';
import {packageRoot} from './package-root.ts';

/** Runs a gate verb; its refusals (and an ambiguous task) become one line and exit 1. */
export async function gateCall<T>(fn: () => T | Promise<T>): Promise<T> {
	try {
		return await fn();
	} catch (error) {
		if (error instanceof ReviewGateError || error instanceof AmbiguousTaskError) throw new CliError(error.message, 1);
		throw error;
	}
}

/** How the gates start controlroom itself in the background (a worker's next run). */
export function selfLauncher(): Launcher {
	return {node: process.execPath, bin: join(packageRoot(), 'bin', 'controlroom')};
}
