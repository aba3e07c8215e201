import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import Database from 'better-sqlite3';
import {describe, expect, it} from 'vitest';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {handleHookInput} from '../../src/producers/agent-hook/hook-main.ts';
import {childScript} from '../helpers/children.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {fixture, homeWithLedger, spoolFiles, withLedger} from '../helpers/hook.ts';
import {onOutput, waitFor} from '../helpers/wait-for.ts';

const SESSION = 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9';

/** A child that holds the ledger's write lock until `release()`; resolves once it holds it. */
async function holdWriteLock(ledgerFile: string): Promise<{release: () => Promise<void>}> {
	const child: ChildProcess = spawn(process.execPath, [childScript('lock-holder'), ledgerFile], {
		stdio: ['pipe', 'pipe', 'inherit'],
	});
	let output = '';
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	// 'close', not 'exit': exit can come before the child's last line ('released') is read from its stdout.
	const exited = new Promise<number | null>(resolve => child.on('close', code => resolve(code)));
	await Promise.race([
		waitFor(() => output.includes('locked'), {what: 'the lock holder to lock', on: [onOutput(child.stdout)]}),
		exited.then(code => {
			throw new Error(`lock holder exited ${code} before locking`);
		}),
	]);
	return {
		release: async () => {
			child.stdin?.end('release\n');
			expect(await exited).toBe(0);
			expect(output).toContain('released');
		},
	};
}

/** Whether another process holds the write lock now: taking it, with a 25 ms wait, fails busy. */
function isWriteLocked(ledgerFile: string): boolean {
	const db = new Database(ledgerFile, {timeout: 25});
	try {
		db.exec('BEGIN IMMEDIATE');
		db.exec('ROLLBACK');
		return false;
	} catch (error) {
		if ((error as {code?: string}).code === 'SQLITE_BUSY') return true;
		throw error;
	} finally {
		db.close();
	}
}

type Measured = {status: number | null; stdout: Buffer; stderr: string; wallMs: number; cpuMs: number; waitedMs: number};

/**
 * Runs `node ARGS`, timing its wall clock, and its CPU time and own waits as it reports them at
 * exit (children/process-times.ts, on a pipe of its own). A run that hangs is killed after 10 s,
 * so it fails instead of blocking the test process.
 */
function runMeasured(args: readonly string[], input: string, env: NodeJS.ProcessEnv): Measured {
	const started = performance.now();
	const result = spawnSync(process.execPath, ['--import', childScript('process-times'), ...args], {
		input,
		env,
		stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
		timeout: 10_000,
	});
	const wallMs = performance.now() - started;
	const [, stdout, stderr, times] = result.output as (Buffer | null)[];
	const {cpuMs, waitedMs} = JSON.parse(String(times ?? '{}')) as {cpuMs?: number; waitedMs?: number};
	return {
		status: result.status,
		stdout: stdout ?? Buffer.alloc(0),
		stderr: String(stderr ?? ''),
		wallMs,
		cpuMs: cpuMs ?? Number.NaN,
		waitedMs: waitedMs ?? Number.NaN,
	};
}

function prompt(n: number): string {
	const payload = JSON.parse(fixture('claude/UserPromptSubmit.json')) as Record<string, unknown>;
	return JSON.stringify({...payload, prompt: `prompt number ${n}`});
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

describe('controlroom hook while another process holds the ledger lock', () => {
	it('returns without waiting for it (each within 150 ms beyond a 100 ms Node start, the median within 200 ms, counted without queueing for a core), spools, and one fold records every event exactly once', async () => {
		// Given another process holding the write lock until the test releases it
		const {home, ledgerFile, spool} = homeWithLedger();
		const holder = await holdWriteLock(ledgerFile);
		// Opening a ledger whose schema is current writes nothing: with the lock held elsewhere it
		// still opens (a write there would throw SQLITE_BUSY after the 25 ms wait).
		openLedger(ledgerFile, {busyTimeoutMs: 25}).close();
		// When the hook is called repeatedly while the lock is held
		const inputs = [fixture('claude/SessionStart.json'), prompt(1), fixture('claude/PreToolUse.json'), 'not json', prompt(2)];
		const env = {...process.env, CONTROLROOM_HOME: home, CLAUDE_PID: '4242', CONTROLROOM_DEBUG: '1'};
		const report: string[] = [];
		const calls: {hook: Measured; bare: Measured; inHookMs: number}[] = [];
		for (const input of inputs) {
			// A bare Node start measured just before each call: the pair sees the same machine.
			const bare = runMeasured(['-e', '0'], '', env);
			const hook = runMeasured([BIN, 'hook'], input, env);
			expect(hook.status).toBe(0);
			expect(hook.stdout.length).toBe(0);
			// The hook's own account (CONTROLROOM_DEBUG): spooled, and its wall time after Node started.
			const own = /controlroom hook: spool.*, ([\d.]+) ms in the hook/.exec(hook.stderr);
			expect(own, hook.stderr).not.toBeNull();
			calls.push({hook, bare, inHookMs: Number(own?.[1])});
			report.push(
				`${hook.wallMs.toFixed(0)} wall, ${hook.cpuMs.toFixed(0)} cpu, ${hook.waitedMs.toFixed(0)} waited, ${Number(own?.[1]).toFixed(0)} in the hook by its account` +
					` (bare node ${bare.wallMs.toFixed(0)} wall, ${bare.cpuMs.toFixed(0)} cpu, ${bare.waitedMs.toFixed(0)} waited)`,
			);
		}
		process.stderr.write(`hook calls with the ledger locked (ms): ${report.join('; ')}\n`);
		// Then none waited for the lock: it is still held (the holder releases only when told, below),
		// so every call returned while it could not have the lock, and spooled
		expect(isWriteLocked(ledgerFile)).toBe(true);
		expect(spoolFiles(spool)).toHaveLength(inputs.length);
		// And each call stayed in its budget (docs/hooks.md, its opening: at most 25 ms for the lock, 150 ms in
		// all), and the median call returns in 200 ms when starting Node takes 100 (its bundle loads no
		// React or Ink). Wall time cannot say so on this shared 2-core machine: it counts the time the
		// hook queued for a core behind other processes. Under two CPU burners and the other suites
		// (load 10) the hook's own account from inside said 305 ms for a call that used 55 ms of CPU
		// beyond a bare Node start, and a bare `node -e 0` took up to 1.5 s. So each budget is checked
		// on what the hook itself spends: its waits (the lock's 25 ms, its files), beyond a bare
		// start's; and its CPU time against a bare start's (the median of the five), as a ratio, since
		// a loaded machine stretches every process's CPU time alike: 150 ms beyond a 100 ms start is
		// 2.5 times it, 200 ms in all is twice it.
		const bareCpuMs = median(calls.map(call => call.bare.cpuMs));
		const bareWaitedMs = median(calls.map(call => call.bare.waitedMs));
		// A wait the hook itself could make (the lock's 25 ms, its spool file) happens inside it, so two
		// measures bound it: its waits beyond a bare start's, and its own wall time from start to end
		// (which counts queueing too, so it is the larger). Under load 11-13 the first alone read 134
		// and 231 ms for calls whose whole time inside the hook was 98 and 60 ms: those waits were Node
		// loading its files before the hook began, which a bare start shows too (up to 84 ms here).
		for (const {hook, inHookMs} of calls) {
			expect(Math.min(hook.waitedMs - bareWaitedMs, inHookMs)).toBeLessThan(100);
			expect(hook.cpuMs / bareCpuMs).toBeLessThan(2.5);
		}
		expect(median(calls.map(call => call.hook.cpuMs)) / bareCpuMs).toBeLessThan(2);
		await holder.release();
		// And after the lock is released, one fold records every event once
		withLedger(ledgerFile, ledger => {
			expect(ledger.reader.eventCount()).toBe(0);
			const stats = foldSpool(ledger, spool);
			expect(stats.files).toBe(inputs.length);
			expect(stats.rejected).toBe(1);
			const task = ledger.reader.task(sessionTaskId('claude', SESSION));
			expect(task?.pid).toBe(4242);
			const hookEvents = ledger.reader.eventsOf(task?.id ?? '').filter(event => event.type === 'agent.event');
			expect(hookEvents.map(event => event.data['event'])).toEqual([
				'SessionStart',
				'UserPromptSubmit',
				'PreToolUse',
				'UserPromptSubmit',
			]);
			expect(ledger.reader.rejectCount()).toBe(1);
			// A second fold finds nothing to add
			expect(foldSpool(ledger, spool).appended).toBe(0);
			expect(ledger.reader.eventsOf(task?.id ?? '').filter(event => event.type === 'agent.event')).toHaveLength(4);
		});
	});

	it('a fold killed half way (after a commit, before removing that file) and run again duplicates nothing', async () => {
		// Given 1,500 spooled hook events (no ledger yet, so every call spools)
		const home = scratchDir('cr-hook-');
		const count = 1500;
		for (let index = 0; index < count; index += 1) {
			const payload = {
				session_id: 'fold-session',
				cwd: '/tmp',
				hook_event_name: 'PreToolUse',
				tool_name: 'Bash',
				tool_use_id: `t-${index}`,
			};
			expect(handleHookInput({}, JSON.stringify(payload), {CONTROLROOM_HOME: home}).recordedIn).toBe('spool');
		}
		const spool = join(home, 'spool');
		const ledgerFile = join(home, 'ledger.db');
		withLedger(ledgerFile, () => undefined);
		// When a fold is killed at the worst point: file 100's events committed, the file not yet removed
		const pauseAt = 100;
		const fold = spawn(process.execPath, [childScript('fold'), ledgerFile, spool, String(pauseAt)], {
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		const exited = new Promise<void>(resolve => fold.on('exit', () => resolve()));
		let said = '';
		fold.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
		await waitFor(() => said.includes('paused'), {what: 'the fold to reach file 100', on: [onOutput(fold.stdout)]});
		fold.kill('SIGKILL');
		await exited;
		expect(spoolFiles(spool)).toHaveLength(count - (pauseAt - 1));
		// The fold commits a group of files at a time: file 100's group is in the ledger, 99 files are gone
		const committed = withLedger(ledgerFile, ledger => ledger.reader.eventsOfType(['agent.event']).length);
		expect(committed).toBeGreaterThanOrEqual(pauseAt);
		expect(committed).toBeLessThan(count);
		// And the fold runs again (twice)
		const again = spawnSync(process.execPath, [childScript('fold'), ledgerFile, spool], {encoding: 'utf8'});
		expect(again.status).toBe(0);
		withLedger(ledgerFile, ledger => foldSpool(ledger, spool));
		// Then every event is there exactly once
		withLedger(ledgerFile, ledger => {
			const ids = ledger.reader
				.eventsOfType(['agent.event'])
				.map(event => (event.data['payload'] as Record<string, unknown>)['tool_use_id']);
			expect(ids).toHaveLength(count);
			expect(new Set(ids).size).toBe(count);
		});
		expect(spoolFiles(spool)).toEqual([]);
	}, 120_000);
});

const WRITERS = 8;
const CALLS = 2000;

function runWriter(home: string, writer: number): Promise<Record<string, number>> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [childScript('hook-writer'), home, String(writer), String(CALLS)], {
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		let output = '';
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.on('exit', code =>
			code === 0 ? resolve(JSON.parse(output) as Record<string, number>) : reject(new Error(`writer ${writer} exited ${code}`)),
		);
	});
}

describe('8 concurrent hook writers', () => {
	// Each writer process calls the hook's entry in-process (handleHookInput: parse, open the ledger
	// with its 25 ms busy timeout, append or spool, close) 2,000 times, instead of 16,000 node starts.
	it('x 2,000 hook calls: 16,000 events after a fold, none lost, none duplicated', async () => {
		// Given a ledger and 8 writers racing for it
		const {home, ledgerFile, spool} = homeWithLedger();
		const outcomes = await Promise.all(Array.from({length: WRITERS}, (_, writer) => runWriter(home, writer)));
		// Then no call dropped its event; every one went to the ledger or the spool
		const total = (key: string) => outcomes.reduce((sum, outcome) => sum + (outcome[key] ?? 0), 0);
		expect(total('dropped')).toBe(0);
		expect(total('ledger') + total('spool')).toBe(WRITERS * CALLS);
		expect(spoolFiles(spool)).toHaveLength(total('spool'));
		// When the spool is folded
		withLedger(ledgerFile, ledger => {
			foldSpool(ledger, spool);
			// Then every call is in the ledger exactly once
			const ids = ledger.reader
				.eventsOfType(['agent.event'])
				.map(event => (event.data['payload'] as Record<string, unknown>)['tool_use_id']);
			expect(ids).toHaveLength(WRITERS * CALLS);
			expect(new Set(ids).size).toBe(WRITERS * CALLS);
			for (let writer = 0; writer < WRITERS; writer += 1) {
				const task = ledger.reader.resolveTask(`writer-${writer}`);
				expect(task?.pid).toBeGreaterThan(0);
			}
			expect(ledger.reader.counter('hook.dropped')).toBe(0);
			expect(ledger.reader.rejectCount()).toBe(0);
		});
		expect(spoolFiles(spool)).toEqual([]);
		process.stderr.write(`concurrency: ${total('ledger')} calls wrote the ledger, ${total('spool')} spooled\n`);
	}, 300_000);
});
