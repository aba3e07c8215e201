import {spawn, spawnSync} from 'node:child_process';
import {mkdirSync, readFileSync, writeFileSync, appendFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {argsHash} from '../../src/core/decisions/args-hash.ts';
import {foldPaneCall, NO_PANE_CALL} from '../../src/core/decisions/pane-answer.ts';
import {callIdFromPreToolUse} from '../../src/core/decisions/pre-tool-use.ts';
import {EventType} from '../../src/core/events.ts';
import {readDecisions} from '../../src/ledger/decisions.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {permissionAnswer, runPermissionHook, type PermissionHookRequest} from '../../src/gates/permission-hook.ts';
import {scratchDir} from '../helpers/cli.ts';
import {onExit, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// The PermissionRequest hook's rules without Claude (the real TUI is in
// test/e2e/decisions-claude.e2e.test.ts): what it records, what ends its wait, what it prints.

const PAYLOAD = JSON.parse(
	readFileSync(new URL('../fixtures/decisions/PermissionRequest.interactive.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const ARGS = PAYLOAD['tool_input'];
/** The spool hook `hooks install` puts in Claude's settings: the PreToolUse before a dialog comes through it. */
const SPOOL_HOOK = fileURLToPath(new URL('../../src/producers/agent-hook/spool-hook.sh', import.meta.url));

function world(): {ledgerFile: string; configDir: string; transcript: string; payload: Record<string, unknown>} {
	const dir = scratchDir('cr-permission-hook-');
	const ledgerFile = join(dir, 'ledger.db');
	openLedger(ledgerFile).close();
	const configDir = join(dir, 'claude');
	const folder = join(configDir, 'projects', '-p');
	mkdirSync(folder, {recursive: true});
	const transcript = join(folder, 's.jsonl');
	writeFileSync(transcript, '');
	return {ledgerFile, configDir, transcript, payload: {...PAYLOAD, transcript_path: transcript}};
}

function request(w: ReturnType<typeof world>, extra: Partial<PermissionHookRequest> = {}): PermissionHookRequest {
	return {
		payload: w.payload,
		ledgerFile: w.ledgerFile,
		env: {CLAUDE_PID: String(process.pid), CLAUDE_CONFIG_DIR: w.configDir},
		windowMs: 60_000,
		signal: new AbortController().signal,
		pollMs: 20,
		...extra,
	};
}

/** The one question the hook asked, once it is in the ledger. */
async function asked(ledgerFile: string): Promise<string> {
	return waitFor(
		() => {
			const ledger = openLedger(ledgerFile);
			try {
				return [...readDecisions(ledger.reader).keys()][0] ?? null;
			} finally {
				ledger.close();
			}
		},
		{what: 'the question', on: [onLedgerChange(ledgerFile)]},
	);
}

function decision(ledgerFile: string, id: string) {
	const ledger = openLedger(ledgerFile);
	try {
		return readDecisions(ledger.reader).get(id);
	} finally {
		ledger.close();
	}
}

function answer(ledgerFile: string, id: string, value: 'allow' | 'deny', reason: string | null): void {
	const ledger = openLedger(ledgerFile);
	try {
		const record = readDecisions(ledger.reader).get(id);
		// The person gate is tested on `decide` (test/gates/decisions.test.ts); here the answer is written as it records one.
		ledger.writer.append([
			{
				taskId: record?.taskId ?? '',
				type: EventType.decisionAnswered,
				at: Date.now(),
				source: 'test',
				data: {decisionId: id, answer: value, reason, by: 'ann', argsHash: record?.argsHash ?? '', headroom: null},
			},
		]);
	} finally {
		ledger.close();
	}
}

describe('the PermissionRequest hook', () => {
	it('prints a person’s allow exactly, once, and a deny with its reason (never updatedInput or interrupt)', async () => {
		const w = world();
		const running = runPermissionHook(request(w));
		const id = await asked(w.ledgerFile);
		expect(decision(w.ledgerFile, id)).toMatchObject({
			kind: 'permission',
			tool: 'Bash',
			args: ARGS,
			argsHash: argsHash(ARGS),
			taskId: expect.stringMatching(/^c-[0-9a-f]{12}$/),
		});
		answer(w.ledgerFile, id, 'allow', null);
		expect(await running).toEqual({
			kind: 'answered',
			decisionId: id,
			stdout: '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}',
		});
		expect(decision(w.ledgerFile, id)?.usedAt).not.toBeNull();
		expect(permissionAnswer('deny', 'not here')).toBe(
			'{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not here"}}}',
		);
	});

	it('withdraws and prints nothing when told to end (No or Esc in the pane), when Yes in the pane shows in the transcript, or when the agent is gone', async () => {
		const told = world();
		const stop = new AbortController();
		const ending = runPermissionHook(request(told, {signal: stop.signal}));
		const first = await asked(told.ledgerFile);
		stop.abort();
		expect(await ending).toMatchObject({kind: 'nothing', why: 'told to end'});
		expect(decision(told.ledgerFile, first)?.withdrawn?.why).toMatch(/^the agent ended the wait/);

		const pane = world();
		// An earlier identical call, settled before the hook started, is not the one asked about
		appendFileSync(
			pane.transcript,
			`${JSON.stringify({message: {content: [{type: 'tool_use', id: 'toolu_old', name: 'Bash', input: ARGS}]}})}\n${JSON.stringify({message: {content: [{type: 'tool_result', tool_use_id: 'toolu_old'}]}})}\n`,
		);
		const watching = runPermissionHook(request(pane));
		const second = await asked(pane.ledgerFile);
		appendFileSync(
			pane.transcript,
			`${JSON.stringify({message: {content: [{type: 'tool_use', id: 'toolu_new', name: 'Bash', input: {description: 'Create hi.txt', command: 'touch hi.txt'}}]}})}\n`,
		);
		appendFileSync(
			pane.transcript,
			`${JSON.stringify({message: {content: [{type: 'tool_result', tool_use_id: 'toolu_new'}]}})}\n`,
		);
		expect(await watching).toMatchObject({kind: 'nothing', why: 'answered in the pane'});
		expect(decision(pane.ledgerFile, second)?.withdrawn?.why).toBe('answered in the agent pane');

		const gone = world();
		const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
		const dead = runPermissionHook(request(gone, {env: {CLAUDE_PID: String(child.pid), CLAUDE_CONFIG_DIR: gone.configDir}}));
		const third = await asked(gone.ledgerFile);
		child.kill('SIGKILL');
		await waitFor(() => child.exitCode !== null || child.signalCode !== null, {what: 'the agent gone', on: [onExit(child)]});
		expect(await dead).toMatchObject({kind: 'nothing', why: 'the agent is gone'});
		expect(decision(gone.ledgerFile, third)?.withdrawn?.why).toBe('the agent is gone');
	});

	it('names the call by the PreToolUse just before it (the spool hook recorded it), before its tool_use is in the transcript', async () => {
		const w = world();
		const preToolUse = (id: string, input: unknown) =>
			JSON.stringify({
				...PAYLOAD,
				hook_event_name: 'PreToolUse',
				tool_input: input,
				tool_use_id: id,
				permission_suggestions: undefined,
			});
		// What the real spool hook wrote for the session's calls: an earlier one of other arguments, then this one
		for (const [id, input] of [
			['toolu_other', {command: 'ls', description: 'List'}],
			['toolu_this', ARGS],
		] as const) {
			const spooled = spawnSync('/bin/sh', [SPOOL_HOOK, '--agent', 'claude'], {
				input: preToolUse(id, input),
				env: {...process.env, CONTROLROOM_HOME: dirname(w.ledgerFile)},
			});
			expect(spooled.status).toBe(0);
		}
		const running = runPermissionHook(request(w));
		const id = await asked(w.ledgerFile);
		expect(decision(w.ledgerFile, id)?.toolUseId).toBe('toolu_this');
		answer(w.ledgerFile, id, 'deny', null);
		expect(await running).toMatchObject({kind: 'answered'});
	});

	it('callIdFromPreToolUse: the newest PreToolUse of that tool and hash, never an id an earlier question took', () => {
		const event = (id: string, input: unknown, event = 'PreToolUse', toolName = 'Bash') => ({
			data: {event, toolName, payload: {tool_use_id: id, tool_input: input}},
		});
		const hash = argsHash(ARGS);
		const newestFirst = [event('c', {command: 'ls'}), event('b', ARGS), event('a', ARGS), event('p', ARGS, 'PostToolUse')];
		expect(callIdFromPreToolUse(newestFirst, 'Bash', hash)).toBe('b');
		expect(callIdFromPreToolUse(newestFirst, 'Bash', hash, new Set(['b']))).toBe('a');
		expect(callIdFromPreToolUse(newestFirst, 'Write', hash)).toBeNull();
		// A payload the ledger cut (a long string shortened) hashes otherwise: no id rather than a wrong one
		expect(callIdFromPreToolUse([event('d', {...(ARGS as object), command: 'touch h…'})], 'Bash', hash)).toBeNull();
		expect(callIdFromPreToolUse([{data: {event: 'PreToolUse', toolName: 'Bash', payload: null}}], 'Bash', hash)).toBeNull();
	});

	it('never answers on a timeout, without a ledger, or for input that is not a PermissionRequest', async () => {
		const w = world();
		expect(await runPermissionHook(request(w, {windowMs: 50}))).toMatchObject({kind: 'nothing', why: 'the window passed'});
		const id = await asked(w.ledgerFile);
		expect(decision(w.ledgerFile, id)?.withdrawn?.why).toMatch(/^its window passed unanswered/);
		expect(await runPermissionHook(request(w, {ledgerFile: join(scratchDir(), 'none.db')}))).toMatchObject({
			kind: 'nothing',
			decisionId: null,
		});
		for (const payload of [null, 'text', [], {...PAYLOAD, hook_event_name: 'PreToolUse'}, {...PAYLOAD, tool_name: 7}]) {
			expect(await runPermissionHook(request(w, {payload}))).toMatchObject({kind: 'nothing', decisionId: null});
		}
	});
});

describe('foldPaneCall', () => {
	const hash = argsHash(ARGS);
	const use = (id: string) => ({message: {content: [{type: 'tool_use', id, name: 'Bash', input: ARGS}]}});
	const result = (id: string) => ({message: {content: [{type: 'tool_result', tool_use_id: id}]}});

	it('takes the newest unsettled call of that tool and hash as ours, and its result as the pane’s answer', () => {
		const baseline = foldPaneCall(NO_PANE_CALL, [use('a'), result('a'), use('b')], 'Bash', hash);
		expect(baseline).toMatchObject({toolUseId: 'b', isAnswered: false});
		expect(foldPaneCall(baseline, [result('b')], 'Bash', hash)).toMatchObject({toolUseId: 'b', isAnswered: true});
		// Written after the hook started and answered at once: still ours
		const late = foldPaneCall(foldPaneCall(NO_PANE_CALL, [], 'Bash', hash), [use('c'), result('c')], 'Bash', hash);
		expect(late).toMatchObject({toolUseId: 'c', isAnswered: true});
		// Another tool or other arguments are never ours; lines that are not messages are skipped
		expect(
			foldPaneCall(
				NO_PANE_CALL,
				[null, 'x', {message: {content: [{type: 'tool_use', id: 'd', name: 'Bash', input: {command: 'rm -rf /'}}]}}],
				'Bash',
				hash,
			).toolUseId,
		).toBeNull();
	});
});
