import {spawn, type ChildProcess} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {DISCOVERY_GRACE_MS} from '../../src/core/reconcile-plan.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {processAge, readProcess} from '../../src/producers/proc-table.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {onFileChange, waitFor} from '../helpers/wait-for.ts';

/** A fake agent script under test/fixtures/agents/. */
export function agent(name: string): string {
	return fileURLToPath(new URL(`../fixtures/agents/${name}`, import.meta.url));
}

/** An isolated home and ledger for one test. */
export function sandbox(): {home: string; ledgerFile: string; dir: string; env: NodeJS.ProcessEnv} {
	const dir = scratchDir('cr-prod-');
	const home = join(dir, 'home');
	// A --ledger must name a file in an existing folder (docs/cli.md): the sandbox's home exists, as a user's would.
	mkdirSync(home);
	return {dir, home, ledgerFile: join(home, 'ledger.db'), env: {...process.env, CONTROLROOM_HOME: home}};
}

/** A running `controlroom ...` process with its collected output and a promise of its end. */
export type Started = {
	readonly child: ChildProcess;
	stdout(): string;
	stderr(): string;
	readonly done: Promise<{code: number | null; signal: NodeJS.Signals | null}>;
};

/** Starts the real binary (not waiting for it). */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): Started {
	const child = spawn(process.execPath, [BIN, ...args], {env, cwd, stdio: ['ignore', 'pipe', 'pipe']});
	let out = '';
	let err = '';
	child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
	const done = new Promise<{code: number | null; signal: NodeJS.Signals | null}>(resolve =>
		child.once('close', (code, signal) => resolve({code, signal})),
	);
	return {child, stdout: () => out, stderr: () => err, done};
}

/** Opens the test's ledger once the wrapper has created it. */
export async function ledgerOf(file: string): Promise<Ledger> {
	await waitFor(() => existsSync(file), {what: `ledger ${file}`, on: [onFileChange(file)]});
	return openLedger(file);
}

/** Whether a PID is a live, non-zombie process. */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
	} catch {
		return false;
	}
}

/**
 * Waits until a process is older than the reconciler's discovery grace: a new agent process is
 * left to its own hook for that long before a pass records it as untracked.
 */
export async function pastDiscoveryGrace(pid: number): Promise<void> {
	const age = (): number => {
		const process = readProcess(pid);
		return process ? (processAge()(process) ?? 0) : 0;
	};
	await waitFor(() => age() >= DISCOVERY_GRACE_MS, {what: `process ${pid} older than the discovery grace`, timeoutMs: 15_000});
}

/** Kills a PID if it still lives; never throws. */
export function killQuietly(pid: number | undefined | null, signal: NodeJS.Signals = 'SIGKILL'): void {
	if (!pid) return;
	try {
		process.kill(pid, signal);
	} catch {
		// already gone
	}
}
