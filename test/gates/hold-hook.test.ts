import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, symlinkSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {argsHash} from '../../src/core/decisions/args-hash.ts';
import {decisionState} from '../../src/core/decisions/fold.ts';
import {holdAction} from '../../src/core/decisions/hold-action.ts';
import {DEFAULT_HOLD_POLICY} from '../../src/core/decisions/hold-policy.ts';
import {EventType} from '../../src/core/events.ts';
import {takeAnswer} from '../../src/gates/decisions.ts';
import {holdHookAnswer, type HoldHookConfig} from '../../src/gates/hold-hook.ts';
import {isAnsweredWithoutLedger} from '../../src/gates/hold-quick.ts';
import {readDecisions} from '../../src/ledger/decisions.ts';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {event, scratchLedger} from '../helpers/ledger.ts';

// The hold hook (docs/headless-holds.md): one PreToolUse call of a wrapped run, answered at once
// from the ledger. The person's answer is written here as the gate writes it (the gate itself is
// tested in decisions.test.ts); what is tested is what the hook does with it.

const TASK = 'w-0123456789';
const RM = {command: 'rm -rf build', description: 'Remove build'};
const HEADLESS = {CONTROLROOM_TASK_ID: TASK, CLAUDE_CODE_ENTRYPOINT: 'sdk-cli', CLAUDE_CODE_SESSION_ATTENDED: '0'};
const INTERACTIVE = {CONTROLROOM_TASK_ID: TASK, CLAUDE_CODE_ENTRYPOINT: 'cli', CLAUDE_CODE_SESSION_ATTENDED: '1'};

function config(cwd: string, onBudget: 'stop' | 'ask' = 'stop'): HoldHookConfig {
	return {policy: DEFAULT_HOLD_POLICY, cwd, onBudget};
}

function payload(toolInput: Record<string, unknown>, toolUseId = 'toolu_1', toolName = 'Bash', cwd = '/w'): string {
	return JSON.stringify({
		hook_event_name: 'PreToolUse',
		session_id: 's-1',
		tool_use_id: toolUseId,
		tool_name: toolName,
		tool_input: toolInput,
		cwd,
	});
}

function decisionOf(output: string): string | undefined {
	return output === '' ? undefined : JSON.parse(output).hookSpecificOutput.permissionDecision;
}

function registered(ledger: Ledger, budget = 1000): void {
	ledger.writer.append([event(TASK, EventType.registered, {title: 't', budget, cwd: '/w'})]);
}

/** A person's answer, as the gate records it. */
function answered(
	ledger: Ledger,
	decisionId: string,
	answer: 'allow' | 'deny',
	reason: string | null,
	headroom: number | null = null,
) {
	const hash = readDecisions(ledger.reader).get(decisionId)?.argsHash ?? '';
	ledger.writer.append([
		event(TASK, EventType.decisionAnswered, {decisionId, answer, reason, by: 'person', argsHash: hash, headroom}, 2_000),
	]);
}

function onlyDecision(ledger: Ledger) {
	const all = [...readDecisions(ledger.reader).values()];
	expect(all).toHaveLength(1);
	return all[0]!;
}

describe('the hold hook', () => {
	it('defers a held headless call at once, recording the question bound to its call', () => {
		const ledger = scratchLedger();
		registered(ledger);
		expect(decisionOf(holdHookAnswer(ledger, config('/w'), payload(RM), HEADLESS))).toBe('defer');
		expect(onlyDecision(ledger)).toMatchObject({
			taskId: TASK,
			kind: 'deferred',
			tool: 'Bash',
			args: RM,
			argsHash: argsHash(RM),
			toolUseId: 'toolu_1',
			session: 's-1',
			// No window: a headless question waits for a person however long it takes, and never runs on a timeout
			expiresAt: null,
		});
		expect(decisionState(onlyDecision(ledger), Date.now() + 10 * 365 * 86_400_000)).toBe('open');
		// Fired again for the same call (a resume before any answer): held again, not asked twice.
		expect(decisionOf(holdHookAnswer(ledger, config('/w'), payload(RM), HEADLESS))).toBe('defer');
		expect(readDecisions(ledger.reader).size).toBe(1);
		// An ordinary call is left to Claude's own permissions.
		expect(holdHookAnswer(ledger, config('/w'), payload({command: 'ls'}, 'toolu_2'), HEADLESS)).toBe('');
	});

	it('lets the carried answer run the call once: two processes carrying it, one runs', () => {
		const ledger = scratchLedger();
		registered(ledger);
		holdHookAnswer(ledger, config('/w'), payload(RM), HEADLESS);
		const question = onlyDecision(ledger);
		answered(ledger, question.id, 'allow', null);
		expect(takeAnswer(ledger, question.id, question.argsHash, 'wrapper')).not.toBeNull();
		const carried = JSON.stringify({decisionId: question.id});
		const env = {...HEADLESS, CONTROLROOM_CARRIED_ANSWER: carried};
		expect(decisionOf(holdHookAnswer(ledger, config('/w'), payload(RM), env))).toBe('allow');
		expect(decisionOf(holdHookAnswer(ledger, config('/w'), payload(RM), env))).toBe('defer');
	});

	it('never takes an answer the ledger does not hold as a person’s, taken: a forged or untaken one is held', () => {
		const ledger = scratchLedger();
		registered(ledger);
		holdHookAnswer(ledger, config('/w'), payload(RM), HEADLESS);
		const question = onlyDecision(ledger);
		const forged = {...HEADLESS, CONTROLROOM_CARRIED_ANSWER: JSON.stringify({decisionId: question.id, answer: 'allow'})};
		expect(decisionOf(holdHookAnswer(ledger, config('/w'), payload(RM), forged))).toBe('defer');
		// Answered but not taken by a wrapper: still held.
		answered(ledger, question.id, 'allow', null);
		expect(decisionOf(holdHookAnswer(ledger, config('/w'), payload(RM), forged))).toBe('defer');
	});

	it('gives a carried denial its reason; changed arguments under the same call id are a new question', () => {
		const ledger = scratchLedger();
		registered(ledger);
		holdHookAnswer(ledger, config('/w'), payload(RM), HEADLESS);
		const question = onlyDecision(ledger);
		answered(ledger, question.id, 'deny', 'keep build');
		takeAnswer(ledger, question.id, question.argsHash, 'wrapper');
		const env = {...HEADLESS, CONTROLROOM_CARRIED_ANSWER: JSON.stringify({decisionId: question.id})};
		const denied = JSON.parse(holdHookAnswer(ledger, config('/w'), payload(RM), env));
		expect(denied.hookSpecificOutput).toMatchObject({permissionDecision: 'deny', permissionDecisionReason: 'keep build'});
		const changed = {command: 'rm -rf build/f', description: 'Remove build'};
		expect(decisionOf(holdHookAnswer(ledger, config('/w'), payload(changed), env))).toBe('defer');
		const asked = [...readDecisions(ledger.reader).values()];
		expect(asked).toHaveLength(2);
		expect(asked[1]).toMatchObject({argsHash: argsHash(changed), kind: 'deferred'});
	});

	it('holds a write outside the folder through a link inside it', () => {
		const dir = scratchDir('cr-hold-');
		mkdirSync(join(dir, 'project'));
		symlinkSync('/tmp', join(dir, 'project', 'out'));
		const ledger = scratchLedger();
		registered(ledger);
		const write = (path: string, id: string) =>
			decisionOf(
				holdHookAnswer(ledger, config(join(dir, 'project')), payload({file_path: path, content: 'x'}, id, 'Write'), HEADLESS),
			);
		expect(write(join(dir, 'project', 'a.txt'), 'toolu_a')).toBeUndefined();
		expect(write('b/c.txt', 'toolu_b')).toBeUndefined();
		expect(write(join(dir, 'project', 'out', 'x.txt'), 'toolu_c')).toBe('defer');
		expect(write('../elsewhere.txt', 'toolu_d')).toBe('defer');
	});

	it('interactively leaves held calls to Claude’s dialog, and denies with the reason once the budget is crossed, asking once', () => {
		const ledger = scratchLedger();
		registered(ledger, 1000);
		expect(holdHookAnswer(ledger, config('/w', 'ask'), payload(RM), INTERACTIVE)).toBe('');
		ledger.writer.append([event(TASK, EventType.tokensReported, {input: 1500, output: 10})]);
		const first = JSON.parse(holdHookAnswer(ledger, config('/w', 'ask'), payload({command: 'ls'}, 'toolu_9'), INTERACTIVE));
		expect(first.hookSpecificOutput.permissionDecision).toBe('deny');
		expect(first.hookSpecificOutput.permissionDecisionReason).toContain('token budget 1000 crossed (1510 spent)');
		holdHookAnswer(ledger, config('/w', 'ask'), payload({command: 'ls'}, 'toolu_10'), INTERACTIVE);
		const budget = onlyDecision(ledger);
		expect(budget).toMatchObject({kind: 'budget', budget: {spent: 1510, budget: 1000}});
		// Approved with headroom: the budget is 1000 + 2000, and calls go on.
		answered(ledger, budget.id, 'allow', null, 2000);
		expect(holdHookAnswer(ledger, config('/w', 'ask'), payload({command: 'ls'}, 'toolu_11'), INTERACTIVE)).toBe('');
	});

	it('answers nothing outside a wrapped PreToolUse', () => {
		const ledger = scratchLedger();
		expect(holdHookAnswer(ledger, config('/w'), payload(RM), {CLAUDE_CODE_ENTRYPOINT: 'sdk-cli'})).toBe('');
		expect(holdHookAnswer(ledger, config('/w'), JSON.stringify({hook_event_name: 'PostToolUse'}), HEADLESS)).toBe('');
		expect(() => holdHookAnswer(ledger, config('/w'), 'not json', HEADLESS)).toThrow('not JSON');
	});
});

describe('the hold hook without the ledger (its cheap path)', () => {
	it('answers without the ledger only where the full hook, whatever the ledger holds, answers nothing', () => {
		const cwd = scratchDir('cr-hold-quick-');
		const carried = JSON.stringify({decisionId: 'd-000000000001'});
		const cases: [string, NodeJS.ProcessEnv, 'stop' | 'ask'][] = [];
		const calls = [
			payload({command: 'ls'}, 'toolu_a'),
			payload(RM, 'toolu_b'),
			payload({file_path: '/etc/passwd', content: 'x'}, 'toolu_c', 'Write'),
			payload({file_path: join(cwd, 'in.txt'), content: 'x'}, 'toolu_d', 'Write'),
			payload({}, 'toolu_e', 'mcp__db__drop'),
			JSON.stringify({hook_event_name: 'PostToolUse'}),
			'not json',
		];
		for (const call of calls)
			for (const env of [
				HEADLESS,
				INTERACTIVE,
				{...HEADLESS, CONTROLROOM_CARRIED_ANSWER: carried},
				{CLAUDE_CODE_ENTRYPOINT: 'sdk-cli'},
			])
				for (const onBudget of ['stop', 'ask'] as const) cases.push([call, env, onBudget]);
		let quick = 0;
		for (const [call, env, onBudget] of cases) {
			if (!isAnsweredWithoutLedger(config(cwd, onBudget), call, env)) continue;
			quick += 1;
			// A ledger where the budget is far crossed and a risky call of the task waits for a person.
			// (A question for this very call cannot exist: the run's policy, fixed on its command line,
			// never held it; src/gates/hold-quick.ts.)
			const ledger = scratchLedger();
			registered(ledger, 1);
			holdHookAnswer(ledger, config(cwd), payload(RM, 'toolu_waiting'), HEADLESS);
			expect(holdHookAnswer(ledger, config(cwd, onBudget), call, env), `${call} ${JSON.stringify(env)}`).toBe('');
		}
		// Every ordinary call of a run that does not pause on its budget takes the cheap path
		expect(quick).toBeGreaterThanOrEqual(8);
		expect(isAnsweredWithoutLedger(config(cwd), payload({command: 'ls'}), HEADLESS)).toBe(true);
		expect(isAnsweredWithoutLedger(config(cwd), payload(RM), HEADLESS)).toBe(false);
		expect(isAnsweredWithoutLedger(config(cwd, 'ask'), payload({command: 'ls'}), HEADLESS)).toBe(false);
		expect(isAnsweredWithoutLedger(config(cwd), 'not json', HEADLESS)).toBe(false);
	});

	it('bin/controlroom hold-hook answers an ordinary call without opening a ledger, and holds a risky one', () => {
		const home = join(scratchDir('cr-hold-bin-'), 'no-ledger-here');
		const policy = Buffer.from('{}', 'utf8').toString('base64url');
		const hook = (call: string) =>
			spawnSync(process.execPath, [BIN, 'hold-hook', '--cwd', home, '--policy', policy], {
				input: call,
				encoding: 'utf8',
				env: {...process.env, ...HEADLESS, CONTROLROOM_HOME: home},
			});
		const ordinary = hook(payload({command: 'ls'}));
		expect(ordinary).toMatchObject({status: 0, stdout: ''});
		expect(existsSync(home)).toBe(false);
		const risky = hook(payload(RM));
		expect(risky.status).toBe(0);
		expect(decisionOf(risky.stdout.trim())).toBe('defer');
	});
});

describe('holdAction', () => {
	const base = {isHeadless: true, toolUseId: 't', argsHash: 'h', carried: null, pending: null, budget: null, policyReason: null};

	it('never allows without a carried answer for the same call and hash', () => {
		expect(holdAction({...base, policyReason: 'x'})).toMatchObject({kind: 'defer', ask: 'deferred'});
		const carried = {decisionId: 'd', toolUseId: 't', argsHash: 'other', answer: 'allow' as const, reason: null};
		expect(holdAction({...base, carried})).toEqual({kind: 'none'});
		expect(holdAction({...base, carried: {...carried, toolUseId: 'u', argsHash: 'h'}})).toEqual({kind: 'none'});
		expect(holdAction({...base, carried: {...carried, argsHash: 'h'}})).toEqual({kind: 'allow', decisionId: 'd'});
	});

	it('pauses on a crossed budget before the policy, and never on an unknown spend', () => {
		const budget = {spent: 31_000, budget: 30_000, asked: null};
		expect(holdAction({...base, budget})).toMatchObject({kind: 'defer', ask: 'budget'});
		expect(holdAction({...base, budget: {...budget, asked: 'd-1'}})).toMatchObject({kind: 'defer', ask: null, decisionId: 'd-1'});
		expect(holdAction({...base, budget: {...budget, spent: null}})).toEqual({kind: 'none'});
	});
});
