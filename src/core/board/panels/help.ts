import {BoardCommand, helpLines, type HelpLine} from '../keymap.ts';
import type {HelpScreen} from '../screen-view.ts';
import {layoutTable, type TableColumn} from '../table-layout.ts';
import type {BoardPanel} from './panel.ts';

/** The narrowest a help column is drawn in: the key (10) and enough words to read. */
const HELP_COLUMN_MIN = 60;

/** The help's table: the keys (as wide as the widest), then what they do, cut at the column's edge. */
const HELP_TABLE: readonly TableColumn[] = [
	{heading: 'KEYS', cap: 12},
	{heading: 'WHAT IT DOES', grows: true},
];

function fitHelpColumns(lines: readonly HelpLine[], rows: number, width: number): Omit<HelpScreen, 'tables'> {
	if (lines.length + 1 <= rows) return {hasTitle: true, columns: [lines], more: 0};
	if (width >= 2 * HELP_COLUMN_MIN && Math.ceil(lines.length / 2) <= rows) {
		const half = Math.ceil(lines.length / 2);
		return {hasTitle: half + 1 <= rows, columns: [lines.slice(0, half), lines.slice(half)], more: 0};
	}
	if (lines.length <= rows) return {hasTitle: false, columns: [lines], more: 0};
	const shown = Math.max(0, rows - 1);
	return {hasTitle: false, columns: [lines.slice(0, shown)], more: lines.length - shown};
}

/**
 * Help never draws more lines than there are rows (Ink squeezes an overfull frame into overlapping
 * lines): the title goes first, then the keys go into two columns where the width allows, and only
 * then are the last keys left out, with a line saying how many.
 */
export function fitHelp(lines: readonly HelpLine[], rows: number, width: number): HelpScreen {
	const fitted = fitHelpColumns(lines, rows, width);
	// Side by side the columns share the width, two cells apart (HelpPanel's gap).
	const columnWidth = fitted.columns.length > 1 ? Math.floor((width - 2) / 2) : width;
	const tables = fitted.columns.map(column =>
		layoutTable(
			HELP_TABLE,
			column.map(line => [line.keys, line.description]),
			columnWidth,
		),
	);
	return {...fitted, tables};
}

/** `?` help: every key of the key table, in the table's words (keymap.ts is its one source). */
export const HELP: BoardPanel = {
	name: 'help',
	commands: [BoardCommand.help],
	view: ({state, available, width}) => ({view: {help: state.mode === 'help' ? fitHelp(helpLines(), available, width) : null}}),
};
