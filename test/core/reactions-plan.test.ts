import {describe, expect, it} from 'vitest';
import {nextDelivery, planReactions, type Trigger} from '../../src/core/reactions/plan.ts';
import {parseReactionRules, type ReactionRule} from '../../src/core/reactions/rules.ts';

// The pure part of reactions (docs/reactions.md): which rule fires on what, once, and what a send's
// delivery does next.

function rulesOf(text: string): ReactionRule[] {
	const parsed = parseReactionRules(text);
	if ('problems' in parsed) throw new Error(parsed.problems.join('\n'));
	return [...parsed.rules.rules];
}

const live = () => ({isLive: true, status: 'running'});
const MIN = 60_000;

function ci(seq: number, at: number, taskId = 't-1'): Trigger {
	return {
		key: `ci:${seq}`,
		event: 'ci-failed',
		taskId,
		at,
		seq,
		text: 'CI failed',
		log: {lines: ['a', 'b', 'c'], total: 3, url: null},
		chain: [],
	};
}

describe('planReactions', () => {
	const rules = rulesOf(
		'version: 1\nrules:\n  - {name: r, on: ci-failed, do: send, lines: 2, retry-window: 10m, escalate-after: 2}\n',
	);

	it('sends the last N lines, skips within the window, escalates after N sends', () => {
		const firings = planReactions({
			rules,
			triggers: [ci(1, 0), ci(2, 5 * MIN), ci(3, 20 * MIN), ci(4, 40 * MIN)],
			past: [],
			fired: new Set(),
			liveness: live,
			now: 0,
		});
		expect(firings.map(firing => firing.outcome)).toEqual(['send', 'skip', 'send', 'escalate']);
		expect(firings[0]?.message?.split('\n').slice(1)).toEqual(['b', 'c']);
		expect(firings[3]?.reason).toBe('sent 2 times already (escalate-after 2)');
	});

	it('fires once per trigger: a key already in the ledger fires nothing', () => {
		const fired = new Set(['reaction:r:ci:1']);
		expect(planReactions({rules, triggers: [ci(1, 0)], past: [], fired, liveness: live, now: 0})).toEqual([]);
	});

	it('escalates a send to a task that has ended', () => {
		const [firing] = planReactions({
			rules,
			triggers: [ci(1, 0)],
			past: [],
			fired: new Set(),
			liveness: () => ({isLive: false, status: 'done'}),
			now: 0,
		});
		expect(firing?.outcome).toBe('escalate');
		expect(firing?.reason).toBe('task t-1 is done: nobody to send to');
	});

	it('notifies a silence only past the rule minutes', () => {
		const stalled = rulesOf('version: 1\nrules:\n  - {name: quiet, on: stalled, minutes: 20, do: notify}\n');
		const silence = (silentMs: number): Trigger => ({
			key: `stalled:t-1:${silentMs}`,
			event: 'stalled',
			taskId: 't-1',
			at: 0,
			seq: null,
			text: 'silent',
			silentMs,
			chain: [],
		});
		const plan = (silentMs: number) =>
			planReactions({rules: stalled, triggers: [silence(silentMs)], past: [], fired: new Set(), liveness: live, now: 0});
		expect(plan(19 * MIN)).toEqual([]);
		expect(plan(21 * MIN).map(firing => firing.outcome)).toEqual(['notify']);
	});
});

describe('nextDelivery', () => {
	const state = (attempts: {attempt: number; outcome: string; at: number}[]) => ({
		firedSeq: 9,
		rule: 'r',
		retries: 1,
		taskId: 't-1',
		attempts: attempts.map(each => ({...each, detail: null})),
	});

	it('tries again after a failure up to the retries, then escalates', () => {
		expect(nextDelivery(state([]), 0)).toEqual({kind: 'attempt', attempt: 1});
		expect(
			nextDelivery(
				state([
					{attempt: 1, outcome: 'attempting', at: 0},
					{attempt: 1, outcome: 'failed', at: 1},
				]),
				2,
			),
		).toEqual({kind: 'attempt', attempt: 2});
		expect(
			nextDelivery(
				state([
					{attempt: 1, outcome: 'failed', at: 1},
					{attempt: 2, outcome: 'failed', at: 2},
				]),
				3,
			).kind,
		).toBe('escalate');
		expect(nextDelivery(state([{attempt: 1, outcome: 'queued', at: 1}]), 3)).toEqual({kind: 'none'});
		// Claimed by a step still at it: nobody else tries
		expect(nextDelivery(state([{attempt: 1, outcome: 'attempting', at: 0}]), 1000)).toEqual({kind: 'none'});
	});
});
