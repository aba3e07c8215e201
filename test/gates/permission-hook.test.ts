import {spawn} from 'node:child_process';
import {mkdirSync, readFileSync, writeFileSync, appendFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {argsHash} from '../../src/core/decisions/args-hash.ts';
import {foldPaneCall, NO_PANE_CALL} from '../../src/core/decisions/pane-answer.ts';
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
