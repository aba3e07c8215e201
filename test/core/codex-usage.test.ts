import {describe, expect, it} from 'vitest';
import {countCodexTurn, todoProgress, type CodexUsageState} from '../../src/core/codex-usage.ts';

describe('countCodexTurn', () => {
	it('subtracts the thread’s previous cumulative total', () => {
		let state: CodexUsageState = new Map();
		const deltas = [
			{input: 1000, output: 100},
			{input: 2500, output: 250},
		].map(usage => {
			const counted = countCodexTurn(state, 't', usage);
			state = counted.state;
			return counted.delta;
		});
		expect(deltas).toEqual([
			{input: 1000, output: 100},
			{input: 1500, output: 150},
		]);
	});

	it('adds nothing for a replayed turn and keeps threads apart', () => {
		const first = countCodexTurn(new Map(), 'a', {input: 500, output: 50});
		expect(countCodexTurn(first.state, 'a', {input: 500, output: 50}).delta).toEqual({input: 0, output: 0});
		expect(countCodexTurn(first.state, 'b', {input: 300, output: 30}).delta).toEqual({input: 300, output: 30});
	});

	it('starts over when a total goes down (a new thread under the same key)', () => {
		const first = countCodexTurn(new Map(), null, {input: 900, output: 90});
		expect(countCodexTurn(first.state, null, {input: 100, output: 10}).delta).toEqual({input: 100, output: 10});
	});
});

describe('todoProgress', () => {
	it('is completed over total, and null for an empty list', () => {
		expect(todoProgress([{completed: true}, {completed: false}, {completed: true}])).toEqual({done: 2, total: 3});
		expect(todoProgress([])).toBeNull();
	});
});
