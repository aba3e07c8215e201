import {spawnSync} from 'node:child_process';
import {readdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {BIN, scratchDir} from './cli.ts';

/** A fresh CONTROLROOM_HOME with an empty, migrated ledger in it. */
export function homeWithLedger(): {home: string; ledgerFile: string; spool: string} {
	const home = scratchDir('cr-hook-');
	const ledgerFile = join(home, 'ledger.db');
	openLedger(ledgerFile).close();
	return {home, ledgerFile, spool: join(home, 'spool')};
}

export type HookRun = {status: number | null; stdout: Buffer; stderr: string; ms: number};

/** Runs the real `bin/controlroom hook ARGS` with `input` on stdin, timing its wall clock. */
export function runHookBin(home: string, args: readonly string[], input: string | Buffer, env: NodeJS.ProcessEnv = {}): HookRun {
	const started = performance.now();
	const result = spawnSync(process.execPath, [BIN, 'hook', ...args], {
		input,
		env: {...process.env, CONTROLROOM_HOME: home, CLAUDE_PID: '', ...env},
		maxBuffer: 64 * 1024 * 1024,
	});
	return {status: result.status, stdout: result.stdout, stderr: result.stderr.toString('utf8'), ms: performance.now() - started};
}

/** Reads a real payload from test/fixtures. */
export function fixture(path: string): string {
	return readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');
}

/** Spool files waiting to be folded (the spool hook's `.spool`, the Node hook's `.jsonl`). */
export function spoolFiles(dir: string): string[] {
	try {
		return readdirSync(dir).filter(name => !name.startsWith('.') && (name.endsWith('.jsonl') || name.endsWith('.spool')));
	} catch {
		return [];
	}
}

/** Opens the ledger, runs `fn`, closes it. */
export function withLedger<T>(file: string, fn: (ledger: Ledger) => T): T {
	const ledger = openLedger(file);
	try {
		return fn(ledger);
	} finally {
		ledger.close();
	}
}
