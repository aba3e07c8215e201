import {appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {helperTaskId, sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {scanTranscriptText} from '../../src/core/transcript-usage.ts';
import {handleHookInput} from '../../src/producers/agent-hook/hook-main.ts';
import {fixture, homeWithLedger, withLedger} from '../helpers/hook.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {followTranscripts} from '../../src/producers/transcript-follow.ts';

/**
 * Runs the hook's entry in this (warm) process. The binary skips transcripts when Node's own start
 * has used up the time budget, which a loaded test machine can cause; in-process it never does.
 */
function runHook(home: string, input: string): {recordedIn: string} {
	return handleHookInput({}, input, {CONTROLROOM_HOME: home, CLAUDE_CONFIG_DIR: join(home, 'claude')});
}

/** Where Claude keeps a transcript under the config folder the hooks above name (it must be there to be read). */
function transcriptIn(home: string, name: string): string {
	const folder = join(home, 'claude', 'projects', '-repo');
	mkdirSync(folder, {recursive: true});
	return join(folder, name);
}

const SESSION = 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9';
const TASK = sessionTaskId('claude', SESSION);
const SESSION_TEXT = fixture('transcripts/session.jsonl');
const SUBAGENT_TEXT = fixture('transcripts/subagent.jsonl');
// msg_A (two content-block lines, one usage): 3 + 1,500 cache writes + 12,000 cache reads in, 120 out;
// msg_B: 5 + 200 + 13,500 in, 40 out. The sidechain line and the <synthetic> line are not counted.
const SESSION_INPUT = 3 + 1500 + 12000 + (5 + 200 + 13500);
const SESSION_OUTPUT = 120 + 40;
// Helper: msg_C (two lines) 10 + 3,000 in, 200 out; msg_D 2 + 100 + 3,000 in, 50 out.
const HELPER_INPUT = 10 + 3000 + (2 + 100 + 3000);
const HELPER_OUTPUT = 200 + 50;

function hookPayload(name: string, transcript: string, extra: Record<string, unknown> = {}): string {
	const payload = JSON.parse(fixture(`claude/${name}.json`)) as Record<string, unknown>;
	return JSON.stringify({...payload, transcript_path: transcript, ...extra});
}

function tokenEvents(ledgerFile: string, taskId = TASK) {
	return withLedger(ledgerFile, ledger => ledger.reader.eventsOf(taskId).filter(event => event.type === 'task.tokens_reported'));
}

describe('scanTranscriptText', () => {
	it('counts each message once, skips <synthetic> and sidechain lines, and sums cache into input', () => {
		const scan = scanTranscriptText(SESSION_TEXT, {lastMessageId: null, skipSidechain: true});
		expect(scan.usage).toEqual({
			input: SESSION_INPUT,
			output: SESSION_OUTPUT,
			uncachedInput: 8,
			cacheCreationInput: 1700,
			cacheReadInput: 25500,
			messages: 2,
			// The same answers per model, for their price (docs/tree-and-cost.md).
			byModel: {
				'claude-sonnet-4-5-20250929': {
					input: 8,
					cacheWrite5m: 1700,
					cacheWrite1h: 0,
					cacheRead: 25500,
					output: SESSION_OUTPUT,
					messages: 2,
				},
			},
		});
		expect(scan.lastMessageId).toBe('msg_01BbBbBbBbBbBbBbBbBb02');
	});

	it('skips the repeat of a message whose first line came in the previous chunk', () => {
		const lines = SESSION_TEXT.split('\n');
		const first = scanTranscriptText(lines.slice(0, 2).join('\n'), {lastMessageId: null, skipSidechain: true});
		const rest = scanTranscriptText(lines.slice(2).join('\n'), {lastMessageId: first.lastMessageId, skipSidechain: true});
		expect(first.usage.output + rest.usage.output).toBe(SESSION_OUTPUT);
		expect(first.usage.input + rest.usage.input).toBe(SESSION_INPUT);
	});
});

describe('the hook reading token usage from the transcript', () => {
	it('reports the session transcript usage as a delta on the session task', () => {
		const {home, ledgerFile} = homeWithLedger();
		const transcript = transcriptIn(home, 'session.jsonl');
		copyFileSync(new URL('../fixtures/transcripts/session.jsonl', import.meta.url), transcript);
		expect(runHook(home, hookPayload('Stop', transcript)).recordedIn).toBe('ledger');
		const events = tokenEvents(ledgerFile);
		expect(events).toHaveLength(1);
		expect(events[0]?.data).toMatchObject({input: SESSION_INPUT, output: SESSION_OUTPUT, messages: 2});
		withLedger(ledgerFile, ledger => {
			expect(ledger.reader.task(TASK)?.tokens).toEqual({
				input: SESSION_INPUT,
				output: SESSION_OUTPUT,
				total: SESSION_INPUT + SESSION_OUTPUT,
			});
		});
	});

	it('reads incrementally: only new complete lines, a split message counted once, nothing re-read', () => {
		// Given a transcript of which only the first two lines and half a line are written yet
		const {home, ledgerFile} = homeWithLedger();
		const transcript = transcriptIn(home, 'session.jsonl');
		const lines = SESSION_TEXT.split('\n');
		const head = `${lines.slice(0, 2).join('\n')}\n`;
		const partial = lines[2]?.slice(0, 40) ?? '';
		writeFileSync(transcript, head + partial);
		// When the hook runs, the rest is appended, and the hook runs twice more
		runHook(home, hookPayload('PreToolUse', transcript));
		const afterFirst = withLedger(ledgerFile, ledger => ledger.reader.transcriptCursor(transcript));
		// Overwrite what was already read with bigger numbers of the same length: a re-read would count them.
		const tampered = head.replace('"output_tokens":120', '"output_tokens":999');
		writeFileSync(transcript, tampered + SESSION_TEXT.slice(head.length));
		runHook(home, hookPayload('PostToolUse', transcript));
		runHook(home, hookPayload('Stop', transcript));
		// Then
		expect(afterFirst).toMatchObject({
			offset: Buffer.byteLength(head),
			lastMessageId: 'msg_01AaAaAaAaAaAaAaAaAa01',
			costState: null,
		});
		const events = tokenEvents(ledgerFile);
		expect(events.map(event => [event.data['input'], event.data['output']])).toEqual([
			[1503 + 12000, 120],
			[5 + 200 + 13500, 40],
		]);
		withLedger(ledgerFile, ledger => {
			expect(ledger.reader.transcriptCursor(transcript)?.offset).toBe(Buffer.byteLength(readFileSync(transcript)));
		});
	});

	it('counts a subagent transcript on the helper task, not the session', () => {
		const {home, ledgerFile} = homeWithLedger();
		const transcript = transcriptIn(home, 'session.jsonl');
		const helperTranscript = transcriptIn(home, 'agent-a1b2c3d.jsonl');
		copyFileSync(new URL('../fixtures/transcripts/session.jsonl', import.meta.url), transcript);
		writeFileSync(helperTranscript, SUBAGENT_TEXT);
		const stop = hookPayload('Stop', transcript, {
			hook_event_name: 'SubagentStop',
			agent_id: 'a1b2c3d',
			agent_type: 'Explore',
			agent_transcript_path: helperTranscript,
		});
		expect(runHook(home, stop).recordedIn).toBe('ledger');
		const helper = helperTaskId(TASK, 'a1b2c3d');
		withLedger(ledgerFile, ledger => {
			expect(ledger.reader.task(helper)).toMatchObject({
				parentId: TASK,
				source: 'claude-helper',
				tokens: {input: HELPER_INPUT, output: HELPER_OUTPUT, total: HELPER_INPUT + HELPER_OUTPUT},
			});
			expect(ledger.reader.task(TASK)?.tokens).toEqual({
				input: SESSION_INPUT,
				output: SESSION_OUTPUT,
				total: SESSION_INPUT + SESSION_OUTPUT,
			});
		});
	});

	it('a /compact SubagentStop with no agent_type and a missing transcript adds no helper and no tokens', () => {
		const {home, ledgerFile} = homeWithLedger();
		const stop = hookPayload('Stop', join(home, 'absent.jsonl'), {
			hook_event_name: 'SubagentStop',
			agent_id: 'compact1',
			agent_type: '',
			agent_transcript_path: join(home, 'absent-agent.jsonl'),
		});
		expect(runHook(home, stop).recordedIn).toBe('ledger');
		withLedger(ledgerFile, ledger => {
			expect(ledger.reader.task(helperTaskId(TASK, 'compact1'))).toBeUndefined();
			expect(ledger.reader.eventsOfType(['task.tokens_reported'])).toEqual([]);
			expect(ledger.reader.task(TASK)?.tokens).toEqual({input: null, output: null, total: null});
		});
	});

	it('a growing transcript is never counted twice when nothing new was written', () => {
		const {home, ledgerFile} = homeWithLedger();
		const transcript = transcriptIn(home, 'session.jsonl');
		writeFileSync(transcript, SESSION_TEXT);
		runHook(home, hookPayload('Stop', transcript));
		runHook(home, hookPayload('Stop', transcript));
		appendFileSync(transcript, '{"type":"user","message":{"role":"user","content":"more"}}\n');
		runHook(home, hookPayload('Stop', transcript));
		expect(tokenEvents(ledgerFile)).toHaveLength(1);
	});
});

describe('following live transcripts', () => {
	it('reads the answer of a session another process registered after the follow began, with no pass or hook between', async () => {
		// Given a follower started on an empty ledger (a reconciler between passes)
		const {home, ledgerFile} = homeWithLedger();
		const ledger = openLedger(ledgerFile);
		const follow = followTranscripts(ledger);
		try {
			follow.catchUp();
			// When another process's fold registers a session whose transcript Claude has not made yet
			const transcript = transcriptIn(home, `${SESSION}.jsonl`);
			runHook(home, hookPayload('SessionStart', transcript));
			withLedger(ledgerFile, other => foldSpool(other, join(home, 'spool')));
			// and Claude then writes its answers
			await waitFor(() => ledger.reader.transcriptsOf([TASK]).length > 0, {what: 'the cursor', on: [onLedgerChange(ledgerFile)]});
			writeFileSync(transcript, SESSION_TEXT);
			// Then the follower alone records the tokens
			const tokens = await waitFor(
				() => {
					const task = ledger.reader.task(TASK);
					return task && task.tokens.input === SESSION_INPUT ? task.tokens : undefined;
				},
				{what: 'the answer counted by the follower', on: [onLedgerChange(ledgerFile)], timeoutMs: 5000},
			);
			expect(tokens).toMatchObject({input: SESSION_INPUT, output: SESSION_OUTPUT});
		} finally {
			follow.close();
			ledger.close();
		}
	});
});
