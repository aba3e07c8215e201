import {styledCharsFromTokens, tokenize} from '@alcalzone/ansi-tokenize';
import chalk from 'chalk';
import {renderToString} from 'ink';
import stringWidth from 'string-width';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {BoardView} from '../../components/BoardView.tsx';
import {plainFrame, plainFrameText, type PlainPiece} from '../../components/plain-frame.ts';
import {openingBoard} from '../../src/core/board/opening.ts';
import {selectScreen, type ScreenView} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard, type BoardAction, type BoardState} from '../../src/core/board/state.ts';
import {foldDecisions, type DecisionEvent} from '../../src/core/decisions/fold.ts';
import {foldOrders, type OrderEvent} from '../../src/core/effects/fold.ts';
import {EventType, newEvent, type NewEvent} from '../../src/core/events.ts';
import {computeHumanQueue} from '../../src/core/human-queue.ts';
import {boardFixtureEvents, FIXED_NOW, foldTasks} from '../helpers/board-fixture.ts';
import {fixtureBoardState} from '../helpers/board-state.ts';

// The first frame is drawn before Ink by components/plain-frame.ts and then overwritten by Ink's
// own: the two must put the same character in the same style in every cell, or the board jumps
// as Ink takes over (docs/board.md, "The first frame").

/** A cell of the terminal: its character (empty behind a wide one) and its styles. */
type Cell = {readonly value: string; readonly styles: string};
const BLANK: Cell = {value: ' ', styles: ''};

function place(grid: Cell[][], x: number, y: number, text: string): void {
	const row = grid[y];
	if (!row) return;
	let column = x;
	for (const character of styledCharsFromTokens(tokenize(text))) {
		const styles = character.styles
			.map(style => style.code)
			.sort()
			.join(';');
		row[column] = {value: character.value, styles};
		const width = Math.max(1, stringWidth(character.value));
		for (let index = 1; index < width; index++) row[column + index] = {value: '', styles};
		column += width;
	}
}

const blankGrid = (width: number, height: number): Cell[][] =>
	Array.from({length: height}, () => Array.from({length: width}, () => BLANK));

/** What Ink's frame leaves on a blank screen: its rows from the top left. */
function inkCells(screen: ScreenView): Cell[][] {
	const grid = blankGrid(screen.width, screen.height);
	renderToString(<BoardView screen={screen} />, {columns: screen.width})
		.split('\n')
		.forEach((line, y) => place(grid, 0, y, line));
	return grid;
}

/** What the plain frame leaves on a blank screen, each piece where it goes. */
function plainCells(screen: ScreenView, pieces: readonly PlainPiece[]): Cell[][] {
	const grid = blankGrid(screen.width, screen.height);
	for (const piece of pieces) place(grid, piece.x, piece.y, piece.text);
	return grid;
}

/** The first differing row, for the message. */
function firstDifference(a: Cell[][], b: Cell[][]): string {
	const row = a.findIndex((cells, y) => JSON.stringify(cells) !== JSON.stringify(b[y]));
	const text = (cells: Cell[] | undefined) =>
		(cells ?? []).map(cell => `${cell.value}${cell.styles ? `[${cell.styles}]` : ''}`).join('');
	return row < 0 ? 'none' : `row ${row}:\n${text(a[row])}\n${text(b[row])}`;
}

const MIN = 60_000;

/** Titles as people write them: Japanese, emoji, combining accents, one far too long, and a plain one. */
function wideTitles(): BoardState {
	const titles = ['日本語のパーサーを直す', 'fix 🚀 deploy 👨‍👩‍👧 for 🇯🇵', 'naïve cafe\u0301 résumé', 'plain', '長い'.repeat(60)];
	const events: NewEvent[] = titles.flatMap((title, index) => [
		newEvent(
			EventType.registered,
			{title, cwd: '/repo'},
			{taskId: `t-w${index}`, at: FIXED_NOW - (10 + index) * MIN, source: 'wrapper'},
		),
		newEvent(
			EventType.started,
			{pid: 4000 + index, pgid: 4000 + index},
			{taskId: `t-w${index}`, at: FIXED_NOW - 10 * MIN, source: 'wrapper'},
		),
	]);
	const queue = computeHumanQueue({
		signals: [{taskId: 't-w1', lane: 'needs', reason: '漢字の質問 🚀 '.repeat(20), at: FIXED_NOW - MIN, seq: 9}],
		acknowledgedAt: new Map(),
		successes: [],
		taskKeys: new Map(),
	});
	return reduceBoard(initialBoardState(), {
		type: 'ledger-read',
		tasks: [...foldTasks(events).values()],
		queue,
		lastSeq: 9,
		isFull: true,
	});
}

/** A held call and two open questions beside the fixture's tasks. */
function heldAndAsked(): BoardState {
	let at = FIXED_NOW - 5 * MIN;
	const order = <T extends OrderEvent['type']>(type: T, data: OrderEvent['data']): OrderEvent =>
		({...newEvent(type, data as never, {taskId: 'o-1', at: (at += 1000), source: 'gateway'}), seq: at}) as OrderEvent;
	const orders = foldOrders([
		order(EventType.orderOpened, {worker: 'writer', budgetCalls: 10, expiresMs: 3_600_000}),
		order(EventType.effectHeld, {
			id: 'fs/write_file#1',
			seq: 1,
			upstream: 'fs',
			tool: 'write_file',
			args: {path: 'NOTES.md', content: 'a\nb'},
			expiresAt: FIXED_NOW + 60 * MIN,
		}),
	]);
	const asked = (id: string, seq: number): DecisionEvent =>
		({
			...newEvent(
				EventType.decisionAsked,
				{
					id,
					kind: 'deferred',
					agent: 'claude',
					tool: 'Bash',
					args: {command: `rm -rf build-${id}`},
					argsHash: `hash-${id}`,
					cwd: '/repo',
					expiresAt: null,
					toolUseId: `toolu_${id}`,
					session: 'sess',
					waiter: null,
					budget: null,
					source: 'wrapper',
				} as never,
				{taskId: 't-quiet', at: FIXED_NOW - seq * 1000, source: 'wrapper'},
			),
			seq,
		}) as DecisionEvent;
	const decisions = [...foldDecisions([asked('d-1', 40), asked('d-2', 41)]).values()];
	return reduceBoard(fixtureBoardState(), {
		type: 'ledger-read',
		tasks: [],
		queue: fixtureBoardState().queue,
		lastSeq: 50,
		isFull: false,
		orders: {records: [...orders.values()], deadApprovers: []},
		decisions,
	});
}

const SIZES = [
	[160, 45],
	[80, 24],
	[100, 30],
	[120, 40],
	[140, 50],
	[200, 60],
] as const;

/** Each board, the actions after its first read, and whether it is one a board can open on (it must then be drawn). */
const STATES: [string, () => BoardState, BoardAction[], boolean][] = [
	['the fixture', () => fixtureBoardState(), [], true],
	['the fixture, Needs you focused', () => fixtureBoardState(), [{type: 'toggle-focus'}], false],
	[
		'the fixture, filtered',
		() => fixtureBoardState(),
		[{type: 'start-prompt', kind: 'filter'}, {type: 'prompt-input', text: 'quiet'}, {type: 'prompt-commit'}],
		false,
	],
	[
		'the fixture with a notice',
		() => fixtureBoardState(),
		[{type: 'notify', notice: {tone: 'error', text: 'reconciler pass failed: disk full'}}],
		true,
	],
	['the fixture, sorted', () => fixtureBoardState(), [{type: 'cycle-sort'}], false],
	['the fixture, cursor further down', () => fixtureBoardState(), [{type: 'select', taskId: null, index: 4}], false],
	[
		'the fixture with an integrity alert',
		() => fixtureBoardState(),
		[{type: 'integrity-checked', problems: ['page 4: btree broken']}],
		true,
	],
	['wide characters', wideTitles, [], true],
	['a held call and open questions', heldAndAsked, [], true],
	['an empty board', initialBoardState, [], true],
];

describe('the plain first frame', () => {
	// The test runner turns colours off (FORCE_COLOR=0); the cells are compared with their styles.
	const level = chalk.level;
	beforeAll(() => {
		chalk.level = 1;
	});
	afterAll(() => {
		chalk.level = level;
	});

	for (const [name, state, actions, isOpening] of STATES) {
		for (const [width, height] of SIZES) {
			it(`puts the same cells as Ink's frame: ${name} at ${width}×${height}`, () => {
				for (const options of [{}, {ledgerLabel: '~/.local/state/controlroom/ledger.db'}]) {
					const screen = selectScreen(actions.reduce(reduceBoard, state()), FIXED_NOW, {width, height}, options);
					const pieces = plainFrame(screen);
					// A board opens on the lanes: that frame is always drawn; one it leaves to Ink is left whole.
					if (isOpening) expect(pieces, 'drawn').not.toBeNull();
					if (pieces === null) continue;
					const plain = plainCells(screen, pieces ?? []);
					const ink = inkCells(screen);
					expect(plain, firstDifference(plain, ink)).toEqual(ink);
				}
			});
		}
	}

	it('leaves to Ink what it does not draw the same way: a timeline, help, a prompt, panels taller than the room', () => {
		const size = {width: 100, height: 30};
		for (const action of [
			{type: 'open-timeline', taskId: 't-quiet', events: []},
			{type: 'toggle-help'},
			{type: 'start-prompt', kind: 'filter'},
		] as BoardAction[]) {
			expect(plainFrame(selectScreen(reduceBoard(fixtureBoardState(), action), FIXED_NOW, size)), action.type).toBeNull();
		}
		expect(plainFrame(selectScreen(heldAndAsked(), FIXED_NOW, {width: 60, height: 8}))).toBeNull();
	});

	it('writes each piece at its row and column, then puts the cursor where Ink starts', () => {
		expect(
			plainFrameText([
				{x: 0, y: 0, text: 'a'},
				{x: 4, y: 2, text: 'b'},
			]),
		).toBe('\u001B[1;1Ha\u001B[3;5Hb\u001B[H');
	});
});

describe('the board as it opens', () => {
	it('puts the cursor where the first screen drew it, and that screen is the one drawn from the state it opens with', () => {
		const tasks = foldTasks(boardFixtureEvents());
		const read = {tasks: [...tasks.values()], queue: fixtureBoardState().queue, lastSeq: 27, isFull: true};
		for (const [width, height] of SIZES) {
			const {state, screen} = openingBoard(read, FIXED_NOW, {width, height}, {});
			expect(state.selectedId).toBe(screen.selectedId);
			expect(screen).toEqual(selectScreen(state, FIXED_NOW, {width, height}, {}));
		}
	});
});
