import {describe, expect, it} from 'vitest';
import {planBoardCommand, type BoardAbilities} from '../../src/core/board/command-plan.ts';
import {
	bindingsShown,
	BOARD_MODES,
	BoardCommand,
	helpBar,
	helpLines,
	KEY_TABLE,
	keyName,
	matchBinding,
	type BoardMode,
	type KeyBinding,
} from '../../src/core/board/keymap.ts';
import {wrapWords} from '../../src/core/board/panels/help.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {reduceBoard, type BoardAction, type BoardState} from '../../src/core/board/state.ts';
import type {DecisionRecord} from '../../src/core/decisions/fold.ts';
import {FIXED_NOW} from '../helpers/board-fixture.ts';
import {fixtureBoardState} from '../helpers/board-state.ts';

// The keys issue 39 adds or changes (docs/board.md, "Keys"): d to Decisions, a read-only board,
// and `?` help that scrolls where it is taller than the screen.

const ALL_WIRED: BoardAbilities = {canStop: true, canSendBack: true, canApprove: true, canSendBackOrder: true, canDecide: true};
const SIZE = {width: 160, height: 45};

function openQuestion(): DecisionRecord {
	return {
		id: 'd-000000000001',
		taskId: 't-quiet',
		kind: 'permission',
		agent: 'claude',
		tool: 'Bash',
		args: {command: 'npm test'},
		argsHash: 'h',
		cwd: null,
		askedAt: FIXED_NOW - 30_000,
		askedSeq: 1,
		expiresAt: null,
		toolUseId: null,
		session: null,
		waiter: null,
		budget: null,
		answer: null,
		usedAt: null,
		withdrawn: null,
	};
}

function withQuestion(...actions: BoardAction[]): BoardState {
	const read: BoardAction = {
		type: 'ledger-read',
		tasks: [],
		queue: {lanes: [], total: 0},
		lastSeq: 30,
		isFull: false,
		decisions: [openQuestion()],
	};
	return fixtureBoardState(read, ...actions);
}

function pressIn(state: BoardState, input: string, abilities: BoardAbilities = ALL_WIRED, table = KEY_TABLE) {
	const screen = selectScreen(state, FIXED_NOW, SIZE, {keyTable: table, isReadOnly: abilities.isReadOnly === true});
	const binding = matchBinding(input, {}, state.mode, table);
	if (!binding) throw new Error(`${input} means nothing in ${state.mode}`);
	const plan = planBoardCommand(state, screen, binding, abilities, FIXED_NOW);
	return {plan, after: plan.actions.reduce(reduceBoard, state)};
}

/** Which commands each key means in each mode, for keys bound more than once. */
function collisions(table: readonly KeyBinding[]): string[] {
	const found: string[] = [];
	for (const mode of BOARD_MODES) {
		const byKey = new Map<string, Set<BoardCommand>>();
		for (const binding of table.filter(each => each.modes.includes(mode)))
			for (const key of binding.keys) byKey.set(key, new Set([...(byKey.get(key) ?? []), binding.command]));
		for (const [key, commands] of byKey) if (commands.size > 1) found.push(`${mode} ${key}: ${[...commands].join(' ')}`);
	}
	return found;
}

describe('d', () => {
	it('is bound to nothing else in any mode: the only key meaning two things is k in Needs you (acknowledge over move up)', () => {
		expect(collisions(KEY_TABLE)).toEqual([`queue k: ${BoardCommand.acknowledge} ${BoardCommand.up}`]);
		expect(KEY_TABLE.filter(binding => binding.keys.includes('d')).map(binding => binding.command)).toEqual([
			BoardCommand.decisions,
		]);
	});

	it.each<[string, BoardAction[]]>([
		['the lanes', []],
		['Needs you', [{type: 'toggle-focus'}]],
		['Held effects', [{type: 'toggle-focus'}, {type: 'toggle-focus'}]],
		['a timeline', [{type: 'open-timeline', taskId: 't-quiet', events: []}]],
		['the log view', [{type: 'open-log', taskId: 't-quiet'}]],
	])('jumps from %s to Decisions while a question is open, closing the view it was pressed in', (_where, actions) => {
		const {plan, after} = pressIn(withQuestion(...actions), 'd');
		expect(plan.kind).toBe('act');
		expect(after.mode).toBe('decisions');
		expect(after.timeline).toBeNull();
		expect(after.log).toBeNull();
		// Esc from Decisions goes back to the lanes.
		expect(reduceBoard(after, {type: 'back'}).mode).toBe('list');
	});

	it('says why not while no question waits, and the bar offers it only while one does', () => {
		const {plan, after} = pressIn(fixtureBoardState(), 'd');
		expect(plan).toMatchObject({kind: 'refuse', message: 'd: no question waits for an answer (Decisions shows while one does)'});
		expect(after.mode).toBe('list');
		const bar = (state: BoardState) => selectScreen(state, FIXED_NOW, SIZE).bar.map(item => `${item.keys} ${item.label}`);
		expect(bar(fixtureBoardState())).not.toContain('d decisions');
		expect(bar(withQuestion())).toContain('d decisions');
	});

	it('types into a prompt like any letter', () => {
		expect(matchBinding('d', {}, 'input')).toBeUndefined();
	});

	it('brings Decisions onto a short screen (40×12), which leaves it out without the focus', () => {
		const small = {width: 40, height: 12};
		expect(selectScreen(withQuestion(), FIXED_NOW, small).decisions).toBeNull();
		expect(selectScreen(withQuestion(), FIXED_NOW, {width: 80, height: 24}).decisions).not.toBeNull();
		const {after} = pressIn(withQuestion(), 'd');
		const screen = selectScreen(after, FIXED_NOW, small);
		expect(screen.decisions?.isFocused).toBe(true);
		expect(screen.decisions?.hint).toBe(' — enter shows it whole, a allows, x denies');
		// Needs you gives its rows to it, down to its title, so everything fits the 12 rows.
		expect(screen.queue.height).toBe(1);
	});
});

describe('a read-only board (board --read-only)', () => {
	const READ_ONLY: BoardAbilities = {...ALL_WIRED, isReadOnly: true};
	const ACTIONS: readonly BoardCommand[] = [
		BoardCommand.stop,
		BoardCommand.approve,
		BoardCommand.mark,
		BoardCommand.sendBack,
		BoardCommand.message,
		BoardCommand.acknowledge,
		BoardCommand.confirm,
		BoardCommand.cancel,
	];

	it('lists no action key in ? help, and only the others', () => {
		const shown = bindingsShown(KEY_TABLE, true);
		expect(new Set(shown.map(binding => binding.command))).toEqual(
			new Set(KEY_TABLE.map(binding => binding.command).filter(command => !ACTIONS.includes(command))),
		);
		const keys = helpLines(shown).map(line => line.keys);
		for (const key of ['s', 'a', 'x', 'space', 'y/n']) expect(keys).not.toContain(key);
		expect(keys).toEqual(expect.arrayContaining(['j/↓', 'k/↑', 'enter/→/←', 'l', '/', 'o', '?', 'q', 'd']));
		// k only moves: the line no longer says it acknowledges.
		expect(helpLines(shown).find(line => line.keys === 'k/↑')?.description).toBe('move up');
	});

	it.each<BoardMode>(['list', 'queue', 'effects', 'timeline', 'decisions'])('shows no action key in the help bar in %s', mode => {
		const bar = helpBar(mode, new Set(), bindingsShown(KEY_TABLE, true)).map(item => item.command);
		for (const command of ACTIONS) expect(bar).not.toContain(command);
		expect(bar).toContain(BoardCommand.quit);
	});

	it.each([
		['s', []],
		['a', []],
		['x', []],
		['k', [{type: 'toggle-focus'}]],
		[' ', [{type: 'toggle-focus'}, {type: 'toggle-focus'}]],
		['a', [{type: 'toggle-focus'}, {type: 'toggle-focus'}, {type: 'toggle-focus'}]],
	] as const)('refuses %j, saying the board is read-only, and changes nothing', (input, actions) => {
		const state = withQuestion(...actions);
		const {plan, after} = pressIn(state, input, READ_ONLY);
		const shown = keyName(input, {});
		expect(plan).toEqual({
			kind: 'refuse',
			actions: [],
			message: `${shown}: this board is read-only (--read-only): it shows everything and changes nothing`,
		});
		expect(after).toBe(state);
	});

	it('still moves, opens, filters, sorts and shows help', () => {
		for (const input of ['j', 'o', '/', '?']) expect(pressIn(fixtureBoardState(), input, READ_ONLY).plan.kind).toBe('act');
		expect(pressIn(withQuestion(), 'd', READ_ONLY).after.mode).toBe('decisions');
	});

	it('says so in the screen it draws', () => {
		expect(selectScreen(fixtureBoardState(), FIXED_NOW, SIZE, {isReadOnly: true}).isReadOnly).toBe(true);
		expect(selectScreen(fixtureBoardState(), FIXED_NOW, SIZE).isReadOnly).toBe(false);
	});
});

describe('? help', () => {
	it('wraps what a key does between words, cutting only a word wider than its column (40×12)', () => {
		expect(wrapWords('move down (in a confirmation, scroll it)', 27)).toEqual(['move down (in a', 'confirmation, scroll it)']);
		expect(wrapWords('a b', 10)).toEqual(['a b']);
		expect(wrapWords('abcdefghijkl xy', 5)).toEqual(['abcde', 'fghij', 'kl xy']);
		expect(wrapWords('', 5)).toEqual(['']);
		// Every key's words fit the column; where no word is wider than it, the lines rejoin to the words whole.
		for (const width of [8, 12, 27, 60])
			for (const line of helpLines(KEY_TABLE)) {
				const parts = wrapWords(line.description, width);
				for (const part of parts) expect(part.length).toBeLessThanOrEqual(width);
				if (width >= 27) expect(parts.join(' ')).toBe(line.description);
			}
	});

	it('scrolls with j, k, PgDn and g/G where it is taller than the screen, and only there', () => {
		const small = {width: 80, height: 24};
		const helpAt = (state: BoardState) => selectScreen(state, FIXED_NOW, small);
		let state = fixtureBoardState({type: 'toggle-help'});
		const first = helpAt(state);
		expect(first.help?.window).toMatchObject({start: 0, total: expect.any(Number)});
		expect(first.bar.map(item => `${item.keys} ${item.label}`)).toContain('j/k scroll');
		const press = (input: string, key = {}) => {
			const plan = planBoardCommand(state, helpAt(state), matchBinding(input, key, 'help')!, ALL_WIRED, FIXED_NOW);
			state = plan.actions.reduce(reduceBoard, state);
			return helpAt(state).help?.window;
		};
		expect(press('j')?.start).toBe(1);
		expect(press('j')?.start).toBe(2);
		expect(press('k')?.start).toBe(1);
		// A page down goes no further than the last line at the bottom.
		const {total, pageSize} = first.help!.window!;
		expect(press('', {pageDown: true})).toMatchObject({start: Math.min(1 + pageSize, total - pageSize), end: total});
		expect(press('g')?.start).toBe(0);
		expect(press('G')?.end).toBe(total);
		// Shown again, it starts at the top.
		state = reduceBoard(reduceBoard(state, {type: 'toggle-help'}), {type: 'toggle-help'});
		expect(helpAt(state).help?.window?.start).toBe(0);
		// At 160×45 it all shows: nothing to scroll, and the bar does not offer it.
		const whole = selectScreen(fixtureBoardState({type: 'toggle-help'}), FIXED_NOW, SIZE);
		expect(whole.help?.window).toBeNull();
		expect(whole.bar.map(item => item.label)).not.toContain('scroll');
	});
});
