import {BoardCommand, KEY_TABLE, type BoardMode, type KeyBinding} from './keymap.ts';
import type {ScreenView} from './screen-view.ts';

// The board's mouse (docs/board.md, "Mouse"): a click on a task's row puts the cursor on it, the
// wheel moves as j and k do. The terminal reports in SGR form (`ESC [ < button ; column ; row M`,
// `m` on release), turned on by board.ts while the board has the screen; Ink hands the report over
// as one input, its ESC taken off.

/** One mouse report: the button code, and the 1-based cell it happened in. */
export type MouseReport = {
	readonly button: number;
	readonly column: number;
	readonly row: number;
	readonly isRelease: boolean;
};

// eslint-disable-next-line no-control-regex -- a report may still start with its ESC
const SGR_REPORT = /^\u001B?\[<(\d{1,4});(\d{1,5});(\d{1,5})([Mm])$/;

/** A mouse report in SGR form, or null for any other input. */
export function parseMouse(input: string): MouseReport | null {
	const match = SGR_REPORT.exec(input);
	if (!match) return null;
	return {button: Number(match[1]), column: Number(match[2]), row: Number(match[3]), isRelease: match[4] === 'm'};
}

/** What a report asks of the board: the cursor on a task, a command (the wheel), or nothing. */
export type MouseAction =
	| {readonly kind: 'select'; readonly taskId: string; readonly index: number}
	| {readonly kind: 'command'; readonly binding: KeyBinding}
	| null;

// Shift, Alt and Ctrl held add 4, 8 and 16 to the button code; the wheel adds 64.
const MODIFIERS = 4 | 8 | 16;
const WHEEL = 64;

/** The modes whose view the wheel scrolls: the lanes, Needs you, Held effects, a timeline, a log, help, a question shown whole. */
const WHEEL_MODES: readonly BoardMode[] = [
	'list',
	'queue',
	'effects',
	'decisions',
	'timeline',
	'log',
	'help',
	'confirm',
	'question',
];

/** The line of the lanes' window drawn at terminal row `row` (1-based), or null: header, alerts, headings, `↑` line above. */
function laneLineAt(screen: ScreenView, row: number) {
	const firstRow = 1 + screen.alerts.length + 1 + (screen.lanes.above === null ? 0 : 1) + 1;
	return screen.lanes.lines[row - firstRow] ?? null;
}

/**
 * What a mouse report does on the screen drawn: a press of the left button on a row selects it; the
 * wheel is k or j (the binding of up or down in the mode, whatever keys the config file gave them).
 */
export function mouseAction(screen: ScreenView, report: MouseReport, table: readonly KeyBinding[] = KEY_TABLE): MouseAction {
	if (report.isRelease) return null;
	const button = report.button & ~MODIFIERS;
	if (button === WHEEL || button === WHEEL + 1) {
		const command = button === WHEEL ? BoardCommand.up : BoardCommand.down;
		const binding = table.find(each => each.command === command && each.modes.includes(screen.mode));
		return WHEEL_MODES.includes(screen.mode) && binding !== undefined ? {kind: 'command', binding} : null;
	}
	// The left button, on the lanes as they are drawn (not under a view that covers them).
	if (button !== 0 || screen.mode !== 'list') return null;
	const line = laneLineAt(screen, report.row);
	if (line === null || line.kind !== 'row') return null;
	const index = screen.order.indexOf(line.row.id);
	return index < 0 ? null : {kind: 'select', taskId: line.row.id, index};
}
