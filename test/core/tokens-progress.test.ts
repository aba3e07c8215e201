import {describe, expect, it} from 'vitest';
import {formatProgress, formatTokens} from '../../src/core/format.ts';
import {makeProgress, parseProgressLine, progressFromList, withDeclaredTotal} from '../../src/core/progress.ts';
import {addTokens, codexTurnDelta, isOverBudget, tokensOf, UNKNOWN_TOKENS} from '../../src/core/tokens.ts';

describe('tokens', () => {
	it('keeps unknown plus unknown unknown, never 0', () => {
		expect(addTokens(UNKNOWN_TOKENS, {input: null, output: null})).toEqual({input: null, output: null, total: null});
		expect(formatTokens(UNKNOWN_TOKENS, null)).toBe('unknown');
		expect(formatTokens(UNKNOWN_TOKENS, 40_000_000)).toBe('unknown/40M');
	});

	it('adds known counts and leaves the unknown side unknown', () => {
		expect(addTokens(tokensOf(100, null), {input: 50, output: null})).toEqual({input: 150, output: null, total: 150});
		expect(addTokens(tokensOf(100, 10), {input: 1, output: 2})).toEqual({input: 101, output: 12, total: 113});
	});

	it('turns cumulative Codex usage into the turn’s own share', () => {
		expect(codexTurnDelta(undefined, {input: 8000, output: 240})).toEqual({input: 8000, output: 240});
		expect(codexTurnDelta({input: 8000, output: 240}, {input: 17_000, output: 500})).toEqual({input: 9000, output: 260});
	});

	it('is never over budget on unknown usage', () => {
		expect(isOverBudget(UNKNOWN_TOKENS, 10)).toBe(false);
		expect(isOverBudget(tokensOf(11, 0), 10)).toBe(true);
		expect(isOverBudget(tokensOf(11, 0), null)).toBe(false);
	});
});

describe('progress', () => {
	it('exists only with a positive denominator', () => {
		expect(makeProgress(0, 0)).toBeNull();
		expect(makeProgress(3, 2)).toEqual({done: 2, total: 2});
		expect(formatProgress(null)).toBe('progress not reported');
		expect(formatProgress({done: 1, total: 4}, 4)).toBe('█░░░ 1/4');
	});

	it('reads an agent’s PROGRESS n/total line and nothing else', () => {
		expect(parseProgressLine('PROGRESS 3/7')).toEqual({done: 3, total: 7});
		expect(parseProgressLine('  PROGRESS 3 / 7 ')).toEqual({done: 3, total: 7});
		expect(parseProgressLine('progress 3/7')).toBeNull();
		expect(parseProgressLine('PROGRESS 45%')).toBeNull();
	});

	it('counts completed items of a todo list, and a declared total wins', () => {
		const todos = [{status: 'completed'}, {status: 'in_progress'}, {status: 'pending'}];
		const reported = progressFromList(todos, todo => todo.status === 'completed');
		expect(reported).toEqual({done: 1, total: 3});
		expect(withDeclaredTotal(reported!, 5)).toEqual({done: 1, total: 5});
		expect(withDeclaredTotal(reported!, null)).toEqual({done: 1, total: 3});
	});
});
