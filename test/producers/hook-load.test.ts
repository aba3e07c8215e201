import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {setTimeout as sleep} from 'node:timers/promises';
import {describe, expect, it} from 'vitest';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {handleHookInput} from '../../src/producers/agent-hook/hook-main.ts';
import {childScript} from '../helpers/children.ts';
import {scratchDir} from '../helpers/cli.ts';
import {fixture, homeWithLedger, runHookBin, spoolFiles, withLedger} from '../helpers/hook.ts';

const SESSION = 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9';

/** Starts a process that holds the ledger's write lock for `holdMs`; resolves once it holds it. */
async function holdWriteLock(ledgerFile: string, holdMs: number): Promise<{child: ChildProcess; released: Promise<void>}> {
	const child = spawn(process.execPath, [childScript('lock-holder'), ledgerFile, String(holdMs)], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let output = '';
	const released = new Promise<void>(resolve => child.on('exit', () => resolve()));
	await new Promise<void>((resolve, reject) => {
		child.stdout?.on('data', (chunk: Buffer) => {
			output += chunk.toString();
			if (output.includes('locked')) resolve();
		});
		child.on('exit', code => reject(new Error(`lock holder exited ${code} before locking`)));
	});
	return {child, released};
}

/** Wall time of a bare `node -e 0`: what starting Node costs on this machine right now. */
function bareNodeMs(): number {
	const started = performance.now();
	spawnSync(process.execPath, ['-e', '0']);
	return performance.now() - started;
}

function prompt(n: number): string {
	const payload = JSON.parse(fixture('claude/UserPromptSubmit.json')) as Record<string, unknown>;
	return JSON.stringify({...payload, prompt: `prompt number ${n}`});
}

describe('controlroom hook while another process holds the ledger lock', () => {
	it('returns without waiting (own time < 150 ms each, median wall < 200 ms), spools, and one fold records every event exactly once', async () => {
		// Given another process holding the write lock for 2 s
		const {home, ledgerFile, spool} = homeWithLedger();
		const holder = await holdWriteLock(ledgerFile, 2000);
		const lockedAt = Date.now();
		// Opening a ledger whose schema is current writes nothing: with the lock held elsewhere it
		// still opens (a write there would throw SQLITE_BUSY after the 25 ms wait).
		openLedger(ledgerFile, {busyTimeoutMs: 25}).close();
		// When the hook is called repeatedly while the lock is held
		const inputs = [fixture('claude/SessionStart.json'), prompt(1), fixture('claude/PreToolUse.json'), 'not json', prompt(2)];
		const report: string[] = [];
		const calls: {wall: number; hookMs: number}[] = [];
		for (const input of inputs) {
			const run = runHookBin(home, [], input, {CLAUDE_PID: '4242', CONTROLROOM_DEBUG: '1'});
			expect(run.status).toBe(0);
			expect(run.stdout.length).toBe(0);
			// The hook's own account (CONTROLROOM_DEBUG): spooled, and how long it spent after Node started.
			const own = /controlroom hook: spool.*, ([\d.]+) ms in the hook/.exec(run.stderr);
			expect(own, run.stderr).not.toBeNull();
			const hookMs = Number(own?.[1]);
			report.push(`${run.ms.toFixed(0)} wall (in hook ${hookMs.toFixed(0)})`);
			calls.push({wall: run.ms, hookMs});
		}
		const calledWithin = Date.now() - lockedAt;
		// What starting Node costs on this machine right now, measured after the calls so that the
		// calls all fit in the 2 s the lock is held.
		const bare = [bareNodeMs(), bareNodeMs(), bareNodeMs()];
		process.stderr.write(
			`hook calls with the ledger locked (ms): ${report.join('; ')}; bare node -e 0: ${bare.map(ms => ms.toFixed(0)).join(', ')}\n`,
		);
		expect(calledWithin).toBeLessThan(2000);
		// Then each call gave up on the lock after its 25 ms wait and stayed inside its 150 ms budget
		// (the hook's own account), and none waited for the lock (held for 2,000 ms).
		for (const call of calls) {
			expect(call.hookMs).toBeLessThan(150);
			expect(call.wall).toBeLessThan(1000);
		}
		// And the calls return in under 200 ms wall. Node's own start is outside the hook's control,
		// and this 2-core machine runs other suites at the same time, so the wall bound is checked on
		// the median call, and moved by however much a bare `node -e 0` is over 100 ms right now.
		const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
		const bareMedian = median(bare);
		expect(median(calls.map(call => call.wall))).toBeLessThan(200 + Math.max(0, bareMedian - 100));
		expect(spoolFiles(spool)).toHaveLength(inputs.length);
		await holder.released;
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

	it('a fold killed half way and run again duplicates nothing', async () => {
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
		// When a fold is killed once it has folded some of them
		const fold = spawn(process.execPath, [childScript('fold'), ledgerFile, spool], {stdio: 'ignore'});
		const exited = new Promise<void>(resolve => fold.on('exit', () => resolve()));
		let folded = 0;
		while (folded === 0) {
			await sleep(5);
			folded = withLedger(ledgerFile, ledger => ledger.reader.eventCount());
		}
		fold.kill('SIGKILL');
		await exited;
		const left = spoolFiles(spool).length;
		expect(left).toBeGreaterThan(0);
		expect(left).toBeLessThan(count);
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
