import {copyFileSync, mkdirSync, readdirSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {foldSpool} from '../../src/ledger/spool.ts';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {fixture, homeWithLedger, runHookBin, spoolFiles, withLedger} from '../helpers/hook.ts';
import {scratchDir} from '../helpers/cli.ts';
import {join} from 'node:path';

const CLAUDE_PAYLOADS = readdirSync(new URL('../fixtures/claude/', import.meta.url)).filter(name => name.endsWith('.json'));
const CLAUDE_SESSION = 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9';
const CODEX_THREAD = '01a22900-6136-7ae0-bfda-f40b735ec8b2';

describe('controlroom hook with real Claude Code payloads', () => {
	it('has every real payload from the formats folder to test', () => {
		expect(CLAUDE_PAYLOADS.sort()).toEqual([
			'PostToolBatch.json',
			'PostToolUse.json',
			'PreToolUse.json',
			'SessionEnd.json',
			'SessionStart.json',
			'Stop.json',
			'StopFailure.json',
			'UserPromptSubmit.json',
		]);
	});

	it.each(CLAUDE_PAYLOADS)('%s: exits 0, prints nothing, records the session, its event and CLAUDE_PID', name => {
		// Given an empty ledger
		const {home, ledgerFile, spool} = homeWithLedger();
		const payload = fixture(`claude/${name}`);
		// When the real binary gets the payload on stdin
		const run = runHookBin(home, [], payload, {CLAUDE_PID: '4242'});
		// Then
		expect(run.status).toBe(0);
		expect(run.stdout.length).toBe(0);
		expect(spoolFiles(spool)).toEqual([]);
		withLedger(ledgerFile, ledger => {
			const task = ledger.reader.task(sessionTaskId('claude', CLAUDE_SESSION));
			expect(task?.sessionId).toBe(CLAUDE_SESSION);
			expect(task?.pid).toBe(4242);
			expect(task?.source).toBe('claude');
			const events = ledger.reader.eventsOf(task?.id ?? '');
			const hookEvent = events.find(event => event.type === 'agent.event');
			expect(hookEvent?.data['event']).toBe(JSON.parse(payload).hook_event_name);
			expect(hookEvent?.data['pid']).toBe(4242);
			expect(ledger.reader.rejectCount()).toBe(0);
		});
	});

	it('a whole session in order ends done, with its title, timeline and PID', () => {
		const {home, ledgerFile} = homeWithLedger();
		const order = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolBatch', 'Stop', 'SessionEnd'];
		for (const name of order) {
			const run = runHookBin(home, [], fixture(`claude/${name}.json`), {CLAUDE_PID: '4242'});
			expect(run.status).toBe(0);
			expect(run.stdout.length).toBe(0);
		}
		withLedger(ledgerFile, ledger => {
			const task = ledger.reader.task(sessionTaskId('claude', CLAUDE_SESSION));
			expect(task?.status).toBe('done');
			expect(task?.title).toBe('say hi');
			expect(task?.pid).toBe(4242);
			const names = ledger.reader
				.eventsOf(task?.id ?? '')
				.filter(event => event.type === 'agent.event')
				.map(event => event.data['event']);
			expect(names).toEqual(order);
		});
	});

	it("reads the session's token usage from the transcript the payload names", () => {
		const {home, ledgerFile} = homeWithLedger();
		// Where Claude keeps it: under projects/ of its config folder, which the hook's environment names
		const config = join(home, 'claude');
		mkdirSync(join(config, 'projects', '-repo'), {recursive: true});
		const transcript = join(config, 'projects', '-repo', 'session.jsonl');
		copyFileSync(new URL('../fixtures/transcripts/session.jsonl', import.meta.url), transcript);
		const stop = JSON.stringify({...(JSON.parse(fixture('claude/Stop.json')) as object), transcript_path: transcript});
		expect(runHookBin(home, [], stop, {CLAUDE_CONFIG_DIR: config}).status).toBe(0);
		withLedger(ledgerFile, ledger => {
			// See test/producers/transcript-tokens.test.ts for the sums.
			expect(ledger.reader.task(sessionTaskId('claude', CLAUDE_SESSION))?.tokens).toEqual({
				input: 27208,
				output: 160,
				total: 27368,
			});
		});
	});

	it('without CLAUDE_PID the PID stays unknown', () => {
		const {home, ledgerFile} = homeWithLedger();
		runHookBin(home, [], fixture('claude/SessionStart.json'));
		withLedger(ledgerFile, ledger => expect(ledger.reader.task(sessionTaskId('claude', CLAUDE_SESSION))?.pid).toBeNull());
	});

	it('with no ledger yet, spools the envelope; the fold records it with its PID', () => {
		// Given a home with no ledger
		const home = scratchDir('cr-hook-');
		const run = runHookBin(home, [], fixture('claude/SessionStart.json'), {CLAUDE_PID: '777'});
		expect(run.status).toBe(0);
		expect(run.stdout.length).toBe(0);
		expect(spoolFiles(join(home, 'spool'))).toHaveLength(1);
		// When the spool is folded
		withLedger(join(home, 'ledger.db'), ledger => {
			expect(foldSpool(ledger, join(home, 'spool')).appended).toBe(3);
			// Then
			expect(ledger.reader.task(sessionTaskId('claude', CLAUDE_SESSION))?.pid).toBe(777);
		});
		expect(spoolFiles(join(home, 'spool'))).toEqual([]);
	});
});

describe('controlroom hook --agent codex', () => {
	it('records a Codex hook payload (no trailing newline) under the codex source', () => {
		const {home, ledgerFile} = homeWithLedger();
		const run = runHookBin(home, ['--agent', 'codex'], fixture('codex/hook-pre-tool-use.json'));
		expect(run.status).toBe(0);
		expect(run.stdout.length).toBe(0);
		withLedger(ledgerFile, ledger => {
			const task = ledger.reader.task(sessionTaskId('codex', CODEX_THREAD));
			expect(task?.source).toBe('codex');
			const event = ledger.reader.eventsOf(task?.id ?? '').find(item => item.type === 'agent.event');
			expect(event?.data['toolName']).toBe('Bash');
			expect((event?.data['payload'] as Record<string, unknown>)['turn_id']).toBe('01a22900-6167-7122-a33b-9301fee3cbf1');
		});
	});

	it('update_plan gives progress: completed steps over the plan length', () => {
		const {home, ledgerFile} = homeWithLedger();
		runHookBin(home, ['--agent', 'codex'], fixture('codex/hook-update-plan.json'));
		withLedger(ledgerFile, ledger => {
			expect(ledger.reader.task(sessionTaskId('codex', CODEX_THREAD))?.progress).toEqual({done: 1, total: 3});
		});
	});

	it('notify: the JSON as the last argument records the turn end on the thread, reading no stdin', () => {
		const {home, ledgerFile} = homeWithLedger();
		const notify = fixture('codex/notify.json').trim();
		// The input would be an (invalid) second record if the hook read stdin in notify mode.
		const run = runHookBin(home, ['--agent', 'codex', '--notify', notify], 'not json');
		expect(run.status).toBe(0);
		expect(run.stdout.length).toBe(0);
		withLedger(ledgerFile, ledger => {
			const task = ledger.reader.task(sessionTaskId('codex', CODEX_THREAD));
			expect(task?.title).toBe('say hi');
			expect(task?.cwd).toBe('/home/dev/codex-project');
			const events = ledger.reader.eventsOf(task?.id ?? '');
			expect(events.map(event => event.data['event'])).toEqual(['agent-turn-complete']);
			expect(ledger.reader.rejectCount()).toBe(0);
		});
	});

	it('notify with no JSON after --notify is a reject, still exit 0', () => {
		const {home, ledgerFile} = homeWithLedger();
		const run = runHookBin(home, ['--agent', 'codex', '--notify'], '');
		expect(run.status).toBe(0);
		expect(run.stdout.length).toBe(0);
		withLedger(ledgerFile, ledger => {
			expect(ledger.reader.rejects(5).map(reject => reject.reason)).toEqual(['notify: no JSON argument']);
			expect(ledger.reader.eventCount()).toBe(0);
		});
	});
});
