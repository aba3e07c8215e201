import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {argsHash} from '../../src/core/decisions/args-hash.ts';
import {askDecision, openDecisions, takeAnswer, withdrawDecision} from '../../src/gates/decisions.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {runAsPerson} from '../helpers/person.ts';

// The decision gate (docs/decisions.md): a question asked by anyone, answered only by a person at
// a terminal (`controlroom decide`), carried out once and only for the arguments it was shown.

const ARGS = {command: 'rm -rf build', description: 'Remove build'};

function ledgerWithAQuestion(): {ledger: string; env: NodeJS.ProcessEnv; id: string} {
	const dir = scratchDir('cr-decide-');
	const ledger = join(dir, 'ledger.db');
	const open = openLedger(ledger);
	try {
		const {decisionId} = askDecision(open, {
			taskId: 'c-0123456789ab',
			kind: 'permission',
			agent: 'claude',
			tool: 'Bash',
			args: ARGS,
			cwd: dir,
			expiresAt: null,
			toolUseId: 'toolu_1',
			session: 's-1',
			waiter: null,
			budget: null,
			source: 'claude',
		});
		return {ledger, env: {CONTROLROOM_HOME: dir}, id: decisionId};
	} finally {
		open.close();
	}
}

describe('controlroom decide', () => {
	it('a person allows; the answer is taken once, for the same arguments only', () => {
		const {ledger, env, id} = ledgerWithAQuestion();
		expect(id).toMatch(/^d-[0-9a-f]{12}$/);
		const run = runAsPerson(['decide', id.slice(0, 6), 'allow', '--ledger', ledger], {env});
		expect(run.stderr).toBe('');
		expect(run.stdout).toBe(`allowed ${id} (Bash for c-0123456789ab)\n`);
		expect(run.status).toBe(0);
		const open = openLedger(ledger);
		try {
			expect(openDecisions(open)).toEqual([]);
			expect(takeAnswer(open, id, argsHash({...ARGS, command: 'rm -rf /'}))).toBeNull();
			expect(takeAnswer(open, id, argsHash(ARGS))).toMatchObject({answer: 'allow'});
			expect(takeAnswer(open, id, argsHash(ARGS))).toBeNull();
			expect(withdrawDecision(open, id, 'late')).toBe(false);
		} finally {
			open.close();
		}
		const again = runAsPerson(['decide', id, 'deny', '--ledger', ledger], {env});
		expect(again.status).toBe(1);
		expect(again.stderr).toMatch(new RegExp(`^controlroom: ${id}: already answered allow by .*\\n$`));
	});

	it('a deny carries its reason; a withdrawn question takes no answer', () => {
		const {ledger, env, id} = ledgerWithAQuestion();
		const run = runAsPerson(['decide', id, 'deny', '--reason', 'keep   build', '--json', '--ledger', ledger], {env});
		expect(run.status).toBe(0);
		expect(JSON.parse(run.stdout)).toMatchObject({id, answer: {answer: 'deny', reason: 'keep build'}});
		const second = ledgerWithAQuestion();
		const open = openLedger(second.ledger);
		try {
			expect(withdrawDecision(open, second.id, 'answered in the agent pane')).toBe(true);
		} finally {
			open.close();
		}
		const late = runAsPerson(['decide', second.id, 'allow', '--ledger', second.ledger], {env: second.env});
		expect(late.status).toBe(1);
		expect(late.stderr).toBe(`controlroom: ${second.id}: no longer waiting (answered in the agent pane)\n`);
	});

	it('refuses an agent (no terminal): exit 77, nothing answered; bad lines exit 64', () => {
		const {ledger, env, id} = ledgerWithAQuestion();
		const run = runCli(['decide', id, 'allow', '--ledger', ledger], {env});
		expect(run.status).toBe(77);
		expect(run.stderr).toMatch(/^controlroom: decide d-[0-9a-f]+: refused: only a person at a terminal says yes/);
		const open = openLedger(ledger);
		try {
			expect(openDecisions(open).map(decision => decision.id)).toEqual([id]);
		} finally {
			open.close();
		}
		expect(runCli(['decide', id, 'maybe', '--ledger', ledger], {env})).toMatchObject({
			status: 64,
			stderr: "controlroom: decide: expected allow or deny, got 'maybe'\n",
		});
		expect(runAsPerson(['decide', 'd-nothere', 'allow', '--ledger', ledger], {env}).status).toBe(1);
	});

	it('lists questions in snapshot decisions[] and the Decisions lane, terminal-safe; --fail-on decisions fails while one can be answered', () => {
		const {ledger, env, id} = ledgerWithAQuestion();
		const open = openLedger(ledger);
		let hostile: string;
		try {
			hostile = askDecision(open, {
				taskId: 'c-0123456789ab',
				kind: 'permission',
				agent: 'claude',
				tool: 'Bash',
				args: {command: 'echo \u001b[2J\u001b]8;;http://x\u0007link\u001b]8;;\u0007'},
				cwd: null,
				expiresAt: null,
				toolUseId: null,
				session: null,
				waiter: null,
				budget: null,
				source: 'claude',
			}).decisionId;
		} finally {
			open.close();
		}
		const json = JSON.parse(runCli(['snapshot', '--json', '--ledger', ledger], {env}).stdout) as {
			decisions: {id: string; state: string; isWaiting: boolean | null; args: unknown}[];
			queue: {lanes: {name: string; items: {taskId: string; reason: string}[]}[]};
		};
		expect(json.decisions.map(decision => [decision.id, decision.state, decision.isWaiting])).toEqual([
			[id, 'open', null],
			[hostile, 'open', null],
		]);
		expect(json.decisions[0]?.args).toEqual(ARGS);
		const lane = json.queue.lanes.find(each => each.name === 'decisions');
		expect(lane?.items.map(item => item.taskId)).toEqual([id, hostile]);
		expect(lane?.items[0]?.reason).toBe(
			'claude asks (permission): Bash command="rm -rf build" description="Remove build" (c-0123456789ab)',
		);
		const text = runCli(['snapshot', '--ledger', ledger], {env}).stdout;
		expect(text).toContain(hostile);
		expect(text.includes('\u001b') || text.includes('\u0007')).toBe(false);
		const failing = runCli(['snapshot', '--fail-on', 'decisions', '--ledger', ledger], {env});
		expect(failing.status).toBe(1);
		expect(failing.stderr).toBe(`controlroom: --fail-on decisions: 2 questions (${id}, ${hostile})\n`);
		expect(runAsPerson(['decide', id, 'allow', '--ledger', ledger], {env}).status).toBe(0);
		expect(runAsPerson(['decide', hostile, 'deny', '--reason', 'no escape codes', '--ledger', ledger], {env}).status).toBe(0);
		expect(runCli(['snapshot', '--fail-on', 'decisions', '--ledger', ledger], {env}).status).toBe(0);
	});
});
