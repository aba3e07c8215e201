import {describe, expect, it} from 'vitest';
import {defaultHeadroom, parseHeadroom} from '../../src/core/board/decisions-view.ts';
import {initialBoardState, reduceBoard, type BoardState} from '../../src/core/board/state.ts';
import type {DecisionRecord} from '../../src/core/decisions/fold.ts';

// The board's side of the questions (docs/decisions.md, "The board"): the budget prompt's default
// and what it reads, and where Tab and Esc go while questions are open.

function budgetQuestion(budget: DecisionRecord['budget']): DecisionRecord {
	return {
		id: 'd-000000000001',
		taskId: 'w-1',
		kind: 'budget',
		agent: 'claude',
		tool: 'Bash',
		args: {command: 'ls'},
		argsHash: 'h',
		cwd: null,
		askedAt: 0,
		askedSeq: 1,
		expiresAt: null,
		toolUseId: null,
		session: null,
		waiter: null,
		budget,
		answer: null,
		usedAt: null,
		withdrawn: null,
	};
}

describe('the budget prompt', () => {
	it('defaults to what is over the budget and two more turns at its rate, to the next thousand; the budget when the rate is unknown', () => {
		expect(defaultHeadroom(budgetQuestion({spent: 36_576, budget: 30_000, perTurn: 12_192}))).toBe(31_000);
		expect(defaultHeadroom(budgetQuestion({spent: 31_000, budget: 30_000, perTurn: null}))).toBe(30_000);
		expect(defaultHeadroom(budgetQuestion(null))).toBe(10_000);
	});

	it.each([
		['', 31_000],
		['+20000', 20_000],
		['20000', 20_000],
		[' 20k ', 20_000],
		['20,000', 20_000],
	])('reads %j as %i tokens', (text, tokens) => {
		expect(parseHeadroom(text, 31_000)).toEqual({ok: true, tokens});
	});

	it.each(['lots', '0', '-5', '1.5', '+', '9'.repeat(30), '\u001b[2J'])('refuses %j with one line, escaped', text => {
		const read = parseHeadroom(text, 31_000);
		expect(read.ok).toBe(false);
		// Nothing a terminal would act on: the text quoted is escaped.
		if (!read.ok) expect([...read.why].some(char => (char.codePointAt(0) ?? 0) < 0x20)).toBe(false);
	});
});

function withQuestions(count: number): BoardState {
	return reduceBoard(initialBoardState(), {
		type: 'ledger-read',
		tasks: [],
		queue: {lanes: [], total: 0},
		lastSeq: 1,
		isFull: true,
		decisions: Array.from({length: count}, (_, index) => ({...budgetQuestion(null), id: `d-00000000000${index}`})),
	});
}

describe('the Decisions panel in the focus order', () => {
	it('takes the focus after Held effects while a question is open, and is skipped while none is', () => {
		const tab = (state: BoardState) => reduceBoard(state, {type: 'toggle-focus'});
		expect(
			[1, 2, 3, 4].reduce<BoardState[]>((seen, _) => [...seen, tab(seen.at(-1) ?? withQuestions(1))], []).map(s => s.mode),
		).toEqual(['queue', 'effects', 'decisions', 'list']);
		expect(tab(tab(tab(withQuestions(0)))).mode).toBe('list');
	});

	it('gives the focus back to the lanes when the last question goes', () => {
		const focused = reduceBoard(
			reduceBoard(reduceBoard(reduceBoard(withQuestions(1), {type: 'toggle-focus'}), {type: 'toggle-focus'}), {
				type: 'toggle-focus',
			}),
			{
				type: 'ledger-read',
				tasks: [],
				queue: {lanes: [], total: 0},
				lastSeq: 2,
				isFull: false,
				decisions: [],
			},
		);
		expect(focused.mode).toBe('list');
	});

	it('holds the typed answer in the reducer on Enter, so a fast Enter never answers with what was drawn before', () => {
		let state = reduceBoard(withQuestions(1), {type: 'start-prompt', kind: 'headroom', decisionId: 'd-000000000000'});
		state = reduceBoard(state, {type: 'prompt-edit', edit: {kind: 'type', text: '+5000'}});
		state = reduceBoard(state, {type: 'prompt-commit'});
		expect(state.pendingAnswer).toEqual({decisionId: 'd-000000000000', kind: 'headroom', text: '+5000'});
		expect(reduceBoard(state, {type: 'answer-taken'}).pendingAnswer).toBeNull();
	});
});
