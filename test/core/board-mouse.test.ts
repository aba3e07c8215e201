import {describe, expect, it} from 'vitest';
import {applyKeyRemaps} from '../../src/core/board/key-config.ts';
import {BoardCommand} from '../../src/core/board/keymap.ts';
import {mouseAction, parseMouse} from '../../src/core/board/mouse.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {reduceBoard} from '../../src/core/board/state.ts';
import {FIXED_NOW} from '../helpers/board-fixture.ts';
import {fixtureBoardState} from '../helpers/board-state.ts';

const SIZE = {width: 160, height: 45};
const press = (button: number, column: number, row: number) => ({button, column, row, isRelease: false});

/** The 1-based terminal row each lane line is drawn on: header, alerts, column headings, an ↑ line, then the lines. */
function rowOf(screen: ReturnType<typeof selectScreen>, taskId: string): number {
	const index = screen.lanes.lines.findIndex(line => line.kind === 'row' && line.row.id === taskId);
	return 1 + screen.alerts.length + 1 + (screen.lanes.above === null ? 0 : 1) + index + 1;
}

describe('the mouse', () => {
	it('reads SGR reports, with or without their ESC, and nothing else', () => {
		expect(parseMouse('[<0;12;7M')).toEqual({button: 0, column: 12, row: 7, isRelease: false});
		expect(parseMouse('\u001B[<65;1;200m')).toEqual({button: 65, column: 1, row: 200, isRelease: true});
		for (const input of ['j', '[<0;12M', '[<0;12;7X', '[<a;1;1M', '[<0;1;1M[<0;1;1M', '[A']) expect(parseMouse(input)).toBeNull();
	});

	it('puts the cursor on the row clicked, and on nothing for a click off the rows', () => {
		const screen = selectScreen(fixtureBoardState(), FIXED_NOW, SIZE);
		const row = rowOf(screen, 't-lost');
		expect(mouseAction(screen, press(0, 5, row))).toEqual({
			kind: 'select',
			taskId: 't-lost',
			index: screen.order.indexOf('t-lost'),
		});
		// A lane's heading, the header, the release of the button, the right button: nothing.
		expect(mouseAction(screen, press(0, 5, row - 1))).toBeNull();
		expect(mouseAction(screen, press(0, 5, 1))).toBeNull();
		expect(mouseAction(screen, {...press(0, 5, row), isRelease: true})).toBeNull();
		expect(mouseAction(screen, press(2, 5, row))).toBeNull();
		// Shift held (4) is still a click.
		expect(mouseAction(screen, press(4, 5, row))).toMatchObject({kind: 'select', taskId: 't-lost'});
	});

	it('finds the row under the click below an alert line', () => {
		const screen = selectScreen({...fixtureBoardState(), dropped: 2}, FIXED_NOW, SIZE);
		expect(screen.alerts).toHaveLength(1);
		expect(mouseAction(screen, press(0, 5, rowOf(screen, 't-lost')))).toMatchObject({taskId: 't-lost'});
	});

	it('clicks on no row under a view that covers the lanes (help)', () => {
		const help = reduceBoard(fixtureBoardState(), {type: 'toggle-help'});
		const screen = selectScreen(help, FIXED_NOW, SIZE);
		expect(screen.mode).toBe('help');
		expect(mouseAction(screen, press(0, 5, 5))).toBeNull();
	});

	it('scrolls with the wheel as up and down do, through the keys in force', () => {
		const screen = selectScreen(fixtureBoardState(), FIXED_NOW, SIZE);
		expect(mouseAction(screen, press(65, 5, 5))).toMatchObject({kind: 'command', binding: {command: BoardCommand.down}});
		expect(mouseAction(screen, press(64, 5, 5))).toMatchObject({kind: 'command', binding: {command: BoardCommand.up}});
		const remapped = applyKeyRemaps({down: 'J', up: 'K'});
		if ('problem' in remapped) throw new Error(remapped.problem);
		expect(mouseAction(screen, press(65, 5, 5), remapped.table)).toMatchObject({
			binding: {command: BoardCommand.down, keys: ['J']},
		});
	});

	it('neither scrolls nor selects while a prompt takes text', () => {
		const typing = reduceBoard(fixtureBoardState(), {type: 'start-prompt', kind: 'filter'});
		const screen = selectScreen(typing, FIXED_NOW, SIZE);
		expect(screen.mode).toBe('input');
		expect(mouseAction(screen, press(65, 5, 5))).toBeNull();
		expect(mouseAction(screen, press(0, 5, 5))).toBeNull();
	});
});
