import {cellWidth, wrapCells} from '../../cell-width.ts';
import {
	bindingsShown,
	BoardCommand,
	helpLines,
	KEY_TABLE,
	keyTableFor,
	keyWordsOf,
	type HelpLine,
	type KeyWords,
} from '../keymap.ts';
import type {HelpScreen} from '../screen-view.ts';
import {layoutTable, type TableColumn, type TableView} from '../table-layout.ts';
import type {BoardPanel} from './panel.ts';

/** The narrowest a help column is drawn in: the key (10) and enough words to read. */
const HELP_COLUMN_MIN = 60;

/** The help's table: the keys (as wide as the widest), then what they do, wrapped at the column's edge. */
const HELP_TABLE: readonly TableColumn[] = [
	{heading: 'KEYS', cap: 12},
	{heading: 'WHAT IT DOES', grows: true},
];

/**
 * What a key does, in lines of at most `width` cells broken between words (help is prose: at 40
 * columns `confirmatio` / `n` reads worse than a short line); only a word wider than a line is cut.
 */
export function wrapWords(text: string, width: number): string[] {
	const lines: string[] = [];
	let line = '';
	for (const word of text.split(' ')) {
		const joined = line === '' ? word : `${line} ${word}`;
		if (cellWidth(joined) <= width) {
			line = joined;
			continue;
		}
		if (line !== '') lines.push(line);
		const parts = wrapCells(word, width);
		line = parts.pop() ?? '';
		lines.push(...parts);
	}
	if (line !== '' || lines.length === 0) lines.push(line);
	return lines;
}

/** Help's lines as table rows `width` cells wide: what a key does goes on over as many rows as it needs, never cut. */
function wrappedTable(lines: readonly HelpLine[], width: number): TableView {
	const laid = layoutTable(
		HELP_TABLE,
		lines.map(line => [line.keys, line.description]),
		width,
	);
	const room = Math.max(8, laid.columns[1]?.width ?? width);
	const rows = lines.flatMap(line =>
		wrapWords(line.description, room).map((part, index) => [index === 0 ? line.keys : '', part]),
	);
	return {...laid, rows};
}

/** Splits help's lines in two at the line that leaves the two columns' rows most even. */
function halves(lines: readonly HelpLine[], columnWidth: number): [TableView, TableView] {
	let best: [TableView, TableView] | null = null;
	for (let cut = 1; cut < lines.length; cut += 1) {
		const pair: [TableView, TableView] = [
			wrappedTable(lines.slice(0, cut), columnWidth),
			wrappedTable(lines.slice(cut), columnWidth),
		];
		const taller = (tables: [TableView, TableView]) => Math.max(tables[0].rows.length, tables[1].rows.length);
		if (best === null || taller(pair) < taller(best)) best = pair;
	}
	return best ?? [wrappedTable(lines, columnWidth), wrappedTable([], columnWidth)];
}

/**
 * Help never draws more lines than there are rows (Ink squeezes an overfull frame into overlapping
 * lines), and never cuts what a key does: each description wraps in its column. It is one column
 * under its headings where that fits, else two side by side where the width allows, else one that
 * scrolls (`scroll` rows down), its last line saying which lines are shown.
 */
export function fitHelp(
	lines: readonly HelpLine[],
	rows: number,
	width: number,
	scroll = 0,
	keys: KeyWords = keyWordsOf(),
): HelpScreen {
	const whole = wrappedTable(lines, width);
	if (whole.rows.length + 1 <= rows) return {hasTitle: true, tables: [whole], window: null, note: null};
	// Side by side the columns share the width, two cells apart (HelpPanel's gap).
	const columnWidth = Math.floor((width - 2) / 2);
	if (columnWidth >= HELP_COLUMN_MIN) {
		const pair = halves(lines, columnWidth);
		if (Math.max(pair[0].rows.length, pair[1].rows.length) + 1 <= rows)
			return {hasTitle: true, tables: pair, window: null, note: null};
	}
	// The headings, the rows that fit, and the line that says where the window is.
	const shown = Math.max(1, rows - 2);
	const total = whole.rows.length;
	const start = Math.max(0, Math.min(scroll, total - shown));
	const window = {start, end: Math.min(total, start + shown), total, scrollMax: Math.max(0, total - shown), pageSize: shown};
	const [down, up, page] = [keys[BoardCommand.down], keys[BoardCommand.up], keys[BoardCommand.pageDown]];
	const where = `lines ${start + 1}–${window.end} of ${total}`;
	const note = `${window.end < total ? '↓' : '↑'} ${where} (${down}/${up}, ${page})`;
	return {hasTitle: rows >= 3, tables: [{...whole, rows: whole.rows.slice(start, window.end)}], window, note};
}

/** `?` help: every key of the key table in force (keymap.ts is its one source), none that acts on a read-only board. */
export const HELP: BoardPanel = {
	name: 'help',
	commands: [BoardCommand.help, BoardCommand.down, BoardCommand.up, BoardCommand.pageDown, BoardCommand.pageUp],
	view: ({state, available, width, options, keys}) => {
		if (state.mode !== 'help') return {view: {help: null}};
		const lines = helpLines(
			bindingsShown(keyTableFor(options.past !== undefined, options.keyTable ?? KEY_TABLE), options.isReadOnly),
		);
		const help = fitHelp(lines, available, width, state.helpScroll, keys);
		return {
			view: {help},
			// j/k scroll only where help is taller than the screen.
			keys: {hidden: help.window === null ? [BoardCommand.up] : []},
			scroll: {scrollMax: help.window?.scrollMax ?? 0, pageSize: help.window?.pageSize ?? 1},
		};
	},
};
