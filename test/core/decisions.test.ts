import {createHash} from 'node:crypto';
import {describe, expect, it} from 'vitest';
import {argsHash, canonicalArgs} from '../../src/core/decisions/args-hash.ts';
import {decisionState, foldDecisions, openDecisionsOf, usableAnswer, type DecisionEvent} from '../../src/core/decisions/fold.ts';
import {EventType, type EventOfType} from '../../src/core/events.ts';
import {hostGatesOf} from '../../src/core/read-port/host-gates.ts';
import {hostQueue} from '../../src/core/read-port/host-queue.ts';

// The decision record (docs/decisions.md): the canonical hash an answer is bound to, and the fold
// of a question's events.

let seq = 0;
function event<T extends DecisionEvent['type']>(
	type: T,
	data: Extract<DecisionEvent, {type: T}>['data'],
	at = 1000,
): DecisionEvent {
	seq += 1;
	return {taskId: 'c-1', type, data, at, source: 'test', seq, dedupKey: null} as DecisionEvent;
}

const ARGS = {command: 'touch hi.txt', description: 'Create hi.txt'};
const HASH = argsHash(ARGS);

function asked(id = 'd-000000000001', expiresAt: number | null = null): DecisionEvent {
	return event(EventType.decisionAsked, {
		decisionId: id,
		kind: 'permission',
		agent: 'claude',
		tool: 'Bash',
		args: ARGS,
		argsHash: HASH,
		cwd: '/p',
		expiresAt,
		toolUseId: null,
		session: 's',
		waiter: {pid: 42, startTime: 7},
		budget: null,
	});
}

describe('argsHash', () => {
	it('is the SHA-256 of the RFC 8785 text: key order and spacing do not matter, values do', () => {
		expect(canonicalArgs({b: 1, a: [true, null, 'x']})).toBe('{"a":[true,null,"x"],"b":1}');
		expect(argsHash({description: 'Create hi.txt', command: 'touch hi.txt'})).toBe(HASH);
		expect(argsHash({command: 'touch hi.txt ', description: 'Create hi.txt'})).not.toBe(HASH);
		// RFC 8785 numbers: 1.0 and 1 are one number; 1e21 is written as ES does.
		expect(canonicalArgs({n: 1.0, m: 1e21})).toBe('{"m":1e+21,"n":1}');
		expect(HASH).toMatch(/^[0-9a-f]{64}$/);
		expect(HASH).toBe(createHash('sha256').update(canonicalArgs(ARGS)).digest('hex'));
	});

	it('never throws on what RFC 8785 refuses, and keeps such values apart', () => {
		const lone = argsHash({command: 'echo \ud800'});
		expect(lone).toMatch(/^[0-9a-f]{64}$/);
		expect(lone).not.toBe(argsHash({command: 'echo \ud801'}));
		expect(argsHash(undefined)).toBe(argsHash(null));
	});
});

describe('foldDecisions', () => {
	it('is open until answered; the answer is usable once, for its hash only', () => {
		const id = 'd-000000000001';
		const open = foldDecisions([asked(id)]).get(id);
		expect(open && decisionState(open, 2000)).toBe('open');
		const answered = foldDecisions([
			asked(id),
			event(EventType.decisionAnswered, {
				decisionId: id,
				answer: 'allow',
				reason: null,
				by: 'ann',
				argsHash: HASH,
				headroom: null,
			}),
		]).get(id);
		if (!answered) throw new Error('no decision');
		expect(decisionState(answered, 2000)).toBe('answered');
		expect(usableAnswer(answered, HASH)).toMatchObject({ok: true, answer: {answer: 'allow', by: 'ann'}});
		expect(usableAnswer(answered, argsHash({command: 'rm -rf /'}))).toMatchObject({ok: false});
		const used = foldDecisions([
			asked(id),
			event(EventType.decisionAnswered, {
				decisionId: id,
				answer: 'allow',
				reason: null,
				by: 'ann',
				argsHash: HASH,
				headroom: null,
			}),
			event(EventType.decisionUsed, {decisionId: id, argsHash: HASH}),
		]).get(id);
		if (!used) throw new Error('no decision');
		expect(decisionState(used, 2000)).toBe('used');
		expect(usableAnswer(used, HASH)).toMatchObject({ok: false, why: 'its answer was already used'});
	});

	it('keeps the first answer; an answer after a withdrawal, or a second ask under one id, changes nothing', () => {
		const id = 'd-000000000002';
		const folded = foldDecisions([
			asked(id),
			event(EventType.decisionWithdrawn, {decisionId: id, why: 'answered in the pane'}),
			event(EventType.decisionAnswered, {
				decisionId: id,
				answer: 'allow',
				reason: null,
				by: 'ann',
				argsHash: HASH,
				headroom: null,
			}),
			asked(id),
		]).get(id);
		if (!folded) throw new Error('no decision');
		expect(decisionState(folded, 2000)).toBe('withdrawn');
		expect(folded.answer).toBeNull();
		const twice = foldDecisions([
			asked(id),
			event(EventType.decisionAnswered, {
				decisionId: id,
				answer: 'deny',
				reason: 'no',
				by: 'ann',
				argsHash: HASH,
				headroom: null,
			}),
			event(EventType.decisionAnswered, {
				decisionId: id,
				answer: 'allow',
				reason: null,
				by: 'bob',
				argsHash: HASH,
				headroom: null,
			}),
		]).get(id);
		expect(twice?.answer).toMatchObject({answer: 'deny', reason: 'no', by: 'ann'});
	});

	it('lists open questions oldest first, without those past their window', () => {
		const decisions = foldDecisions([asked('d-00000000000a', 5000), asked('d-00000000000b'), asked('d-00000000000c', 1500)]);
		expect(openDecisionsOf(decisions.values(), 2000).map(decision => decision.id)).toEqual(['d-00000000000a', 'd-00000000000b']);
		const expired = decisions.get('d-00000000000c');
		expect(expired && decisionState(expired, 2000)).toBe('expired');
	});
});

describe('the Decisions lane', () => {
	it("shows a permission question once: Claude's later needs-your-permission Notification for that task is not a second entry", () => {
		const question = asked('d-00000000000d');
		const need: EventOfType<'need.raised'> = {
			taskId: 'c-1',
			type: EventType.needRaised,
			at: 7000,
			source: 'claude',
			seq: 99,
			dedupKey: null,
			data: {message: 'Claude needs your permission', kind: 'permission_prompt', lane: 'needs'},
		};
		const rows = {host: {id: 'h', label: null}, recentTasks: [], needs: [need], needTasks: [], gateEvents: [question]};
		const lanes = (gateEvents: typeof rows.gateEvents) =>
			hostQueue({...rows, gateEvents}, hostGatesOf(gateEvents), 8000)
				.lanes.filter(lane => lane.total > 0)
				.map(lane => [lane.name, lane.items.map(item => item.taskId)]);
		expect(lanes([question])).toEqual([['decisions', ['d-00000000000d']]]);
		// Once the question is withdrawn (answered in the pane), the Notification stands on its own again
		expect(lanes([question, event(EventType.decisionWithdrawn, {decisionId: 'd-00000000000d', why: 'pane'})])).toEqual([
			['needs', ['c-1']],
		]);
	});
});
