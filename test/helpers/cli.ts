import {spawnSync, type SpawnSyncReturns} from 'node:child_process';
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';

/** The package's binary, as a user runs it. */
export const BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));

/** A fresh folder for one test's ledger and files. */
export function scratchDir(prefix = 'cr-test-'): string {
	return mkdtempSync(join(tmpdir(), prefix));
}

export type CliResult = {status: number | null; stdout: string; stderr: string};

/** Runs `controlroom ARGS` to completion with an isolated CONTROLROOM_HOME unless one is given. */
export function runCli(
	args: readonly string[],
	options: {input?: string | Buffer; env?: NodeJS.ProcessEnv; cwd?: string} = {},
): CliResult {
	const result: SpawnSyncReturns<string> = spawnSync(process.execPath, [BIN, ...args], {
		input: options.input,
		encoding: 'utf8',
		cwd: options.cwd,
		env: {...process.env, CONTROLROOM_HOME: scratchDir('cr-home-'), ...options.env},
		maxBuffer: 64 * 1024 * 1024,
	});
	return {status: result.status, stdout: result.stdout, stderr: result.stderr};
}
