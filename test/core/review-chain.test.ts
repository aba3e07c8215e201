import {describe, expect, it} from 'vitest';
import {decideRound, isDisagreement, mergeFixes, renderFixes, type RoundVerdict} from '../../src/core/review/chain.ts';
import type {Verdict} from '../../src/core/review/verdict.ts';

const APPROVE: Verdict = {kind: 'APPROVE'};
const fix = (...fixes: string[]): Verdict => ({kind: 'FIX', fixes});
const INVALID: Verdict = {kind: 'INVALID', reason: 'line 1 is prose'};
const STOPPED: Verdict = {kind: 'STOPPED', signal: 'SIGTERM'};
const round = (...verdicts: Verdict[]): RoundVerdict[] => verdicts.map((verdict, index) => ({reviewer: index + 1, verdict}));

describe('the review chain', () => {
	it.each<[string, number, RoundVerdict[], string, string | null]>([
		['one approval approves', 1, round(APPROVE), 'approved', null],
		['two approvals approve', 1, round(APPROVE, APPROVE), 'approved', null],
		['fixes in round 1 go back to the worker', 1, round(fix('a')), 'fix-round', null],
		['a disagreement in round 1 still sends the fixes back', 1, round(APPROVE, fix('a')), 'fix-round', null],
		['fixes in round 2 need a person', 2, round(fix('a')), 'needs-person', 'fixes-left'],
		['a disagreement in round 2 needs a person', 2, round(APPROVE, fix('a')), 'needs-person', 'fixes-left'],
		['INVALID needs a person, no fix round', 1, round(INVALID), 'needs-person', 'invalid'],
		['INVALID beside fixes: no fix round', 1, round(fix('a'), INVALID), 'needs-person', 'invalid'],
		['INVALID beside an approval: not approved', 1, round(APPROVE, INVALID), 'needs-person', 'invalid'],
		['STOPPED ends the chain, no fix round', 1, round(STOPPED), 'needs-person', 'stopped'],
		['STOPPED beside fixes: no fix round', 1, round(fix('a'), STOPPED), 'needs-person', 'stopped'],
		['STOPPED wins over INVALID', 1, round(INVALID, STOPPED), 'needs-person', 'stopped'],
		['no verdict at all is not an approval', 1, [], 'needs-person', 'invalid'],
	])('%s', (_name, number, verdicts, kind, cause) => {
		const decision = decideRound(number, verdicts);
		expect(decision.kind).toBe(kind);
		expect(decision.kind === 'needs-person' ? decision.cause : null).toBe(cause);
	});

	it('names who stopped, who answered INVALID, and who disagreed', () => {
		const stopped = decideRound(1, round(APPROVE, STOPPED));
		expect(stopped.kind === 'needs-person' && stopped.reason).toBe(
			'reviewer 2 stopped by SIGTERM in round 1: no verdict, no fix round',
		);
		const invalid = decideRound(1, round(INVALID));
		expect(invalid.kind === 'needs-person' && invalid.reason).toBe(
			'reviewer 1 answered INVALID in round 1 (line 1 is prose): no fix round',
		);
		const disagree = decideRound(2, round(APPROVE, fix('a', 'b')));
		expect(disagree).toEqual({
			kind: 'needs-person',
			cause: 'fixes-left',
			isDisagreement: true,
			reason: 'reviewers disagree: reviewer 1 approves, reviewer 2 asks for fixes; 2 fixes still asked for after round 2',
		});
		const left = decideRound(2, round(fix('a')));
		expect(left.kind === 'needs-person' && left.reason).toBe('1 fix still asked for after round 2 (reviewer 1)');
	});

	it('labels a round where one approves and another asks for fixes, and only that', () => {
		expect(isDisagreement(round(APPROVE, fix('a')))).toBe(true);
		expect(isDisagreement(round(fix('a'), fix('b')))).toBe(false);
		expect(isDisagreement(round(APPROVE, INVALID))).toBe(false);
		expect(isDisagreement(round(APPROVE))).toBe(false);
		const decision = decideRound(1, round(APPROVE, fix('a')));
		expect(decision.kind === 'fix-round' && decision.isDisagreement).toBe(true);
	});

	it('merges every reviewer’s fixes in reviewer order, each text once', () => {
		expect(mergeFixes(round(fix('a', 'b'), APPROVE, fix('b', 'c')))).toEqual(['a', 'b', 'c']);
		const decision = decideRound(1, round(fix('a'), fix('a', 'b')));
		expect(decision.kind === 'fix-round' && decision.fixes).toEqual(['a', 'b']);
	});

	it('honours a different round limit', () => {
		expect(decideRound(2, round(fix('a')), 3).kind).toBe('fix-round');
		expect(decideRound(1, round(fix('a')), 1).kind).toBe('needs-person');
	});

	it('writes the fixes numbered under who sent them back', () => {
		expect(renderFixes(['add a test', 'rename x'], {kind: 'review', round: 1})).toBe(
			'Your work was sent back by review (round 1). Make these fixes, then stop:\n1. add a test\n2. rename x',
		);
		expect(renderFixes(['use the v2 API'], {kind: 'person', by: 'dana'})).toBe(
			'Your work was sent back by dana. Do this, then stop:\n1. use the v2 API',
		);
	});
});
