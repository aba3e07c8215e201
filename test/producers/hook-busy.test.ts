import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {join} from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {describe, expect, it} from 'vitest';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {handleHookInput} from '../../src/producers/hook-main.ts';
import {childScript} from '../helpers/children.ts';
import {scratchDir} from '../helpers/cli.ts';
import {fixture, homeWithLedger, runHookBin, spoolFiles, withLedger} from '../helpers/hook.ts';

const SESSION = 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9';

/** Starts a process that holds the ledger's write lock for `holdMs`; resolves once it holds it. */
async function holdWriteLock(ledgerFile: string, holdMs: number): Promise<{child: ChildProcess; released: Promise<void>}> {
	const child = spawn(process.execPath, [childScript('lock-holder'), ledgerFile, String(holdMs)], {stdio: ['ignore', 'pipe', 'inherit']});
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

function prompt(n: number): string {
	const payload = JSON.parse(fixture('claude/UserPromptSubmit.json')) as Record<string, unknown>;
	return JSON.stringify({...payload, prompt: `prompt number ${n}`});
}

describe('controlroom hook while another process holds the ledger lock', () => {
	it('returns in under 200 ms each time, spools, and one fold records every event exactly once', async () => {
		// Given another process holding the write lock for 2 s
		const {home, ledgerFile, spool} = homeWithLedger();
		const holder = await holdWriteLock(ledgerFile, 2000);
		const lockedAt = Date.now();
		// When the hook is called repeatedly while the lock is held
		const inputs = [fixture('claude/SessionStart.json'), prompt(1), fixture('claude/PreToolUse.json'), prompt(2), 'not json', prompt(3)];
		const times: number[] = [];
		for (const input of inputs) {
			const run = runHookBin(home, [], input, {CLAUDE_PID: '4242'});
			expect(run.status).toBe(0);
			expect(run.stdout.length).toBe(0);
			times.push(run.ms);
		}
		const calledWithin = Date.now() - lockedAt;
		// Then each call returned in under 200 ms, and all of them went to the spool
		expect(calledWithin).toBeLessThan(2000);
		expect(Math.max(...times)).toBeLessThan(200);
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
				'UserPromptSubmit',
			]);
			expect(ledger.reader.rejectCount()).toBe(1);
			// A second fold finds nothing to add
			expect(foldSpool(ledger, spool).appended).toBe(0);
			expect(ledger.reader.eventsOf(task?.id ?? '').filter(event => event.type === 'agent.event')).toHaveLength(5);
		});
	});

	it('a fold killed half way and run again duplicates nothing', async () => {
		// Given 1,500 spooled hook events (no ledger yet, so every call spools)
		const home = scratchDir('cr-hook-');
		const count = 1500;
		for (let index = 0; index < count; index += 1) {
			const payload = {session_id: 'fold-session', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: `t-${index}`};
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
