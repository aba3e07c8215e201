import {describe, expect, it} from 'vitest';
import {KEY_TABLE} from '../../src/core/board/keymap.ts';
import {PANELS} from '../../src/core/board/panels/index.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState} from '../../src/core/board/state.ts';

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
});
