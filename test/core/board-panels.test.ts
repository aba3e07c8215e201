import {describe, expect, it} from 'vitest';
import {KEY_TABLE} from '../../src/core/board/keymap.ts';
import {PANELS} from '../../src/core/board/panels/index.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState, type BoardState} from '../../src/core/board/state.ts';
import {FIXED_NOW} from '../helpers/board-fixture.ts';
import {fixtureBoardState} from '../helpers/board-state.ts';

describe('the board panels', () => {
	it('each answers only commands of the key table, which stays the one source of help, the bar and the docs', () => {
		const commands = new Set(KEY_TABLE.map(binding => binding.command));
		for (const panel of PANELS)
			for (const command of panel.commands) expect(commands.has(command), `${panel.name}: ${command}`).toBe(true);
		expect(new Set(PANELS.map(panel => panel.name)).size).toBe(PANELS.length);
	});

	it('give the lanes every row they do not ask for themselves, at 160×45 and 80×24', () => {
		for (const [width, height] of [
			[160, 45],
			[80, 24],
		] as const) {
			const screen = selectScreen(initialBoardState(), 0, {width, height});
			// header, column headings, the band under the lanes, any other panel's rows, the footer (and the detail line when narrow)
			const band = screen.queue.height + (screen.isSideBySide ? 0 : 1 + screen.effects.height);
			const blocks = screen.blocks.reduce((sum, block) => sum + block.height, 0);
			expect(screen.lanes.height + band + blocks + 1 + 1 + 2 + (screen.isWideRows ? 0 : 1)).toBe(height);
		}
	});

	it('say what to run first on a board with no agent, and only there, fitted to the rows the lanes leave', () => {
		const steps = (state: BoardState, width: number, height: number) =>
			selectScreen(state, FIXED_NOW, {width, height}).blocks.find(block => block.name === 'first-steps');
		const empty = initialBoardState();
		for (const [width, height] of [
			[160, 45],
			[80, 24],
		] as const) {
			const block = steps(empty, width, height);
			expect(block?.title).toBe('NO AGENT ON THE BOARD YET: to see one here, run');
			expect(block?.lines.map(line => line.text.trim().split(/ {2,}/)[0])).toEqual([
				'controlroom hooks install',
				'controlroom run -- CMD',
				'controlroom demo',
				'controlroom doctor',
			]);
			for (const line of block?.lines ?? []) expect(line.text.length).toBeLessThanOrEqual(80);
		}
		// Too few rows for every step: the first alone, or nothing, never the lanes squeezed out.
		expect(steps(empty, 80, 16)?.lines.length ?? 0).toBeLessThan(4);
		expect(steps(empty, 40, 12)).toBeUndefined();
		// A board with tasks, or a filter that hides them all, has no use for it.
		expect(steps(fixtureBoardState(), 160, 45)).toBeUndefined();
		expect(steps({...empty, filter: 'zzz'}, 160, 45)).toBeUndefined();
	});
});
