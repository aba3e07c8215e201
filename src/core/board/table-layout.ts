import {cellWidth} from '../cell-width.ts';

// The static tables (the drill-down's spend, the track record, the help's keys) are drawn by
// ink-table, which measures a cell with String.length: a Japanese title is counted at half its
// width and a ZWJ emoji at four times. So the widths are decided here, in terminal cells
// (src/core/cell-width.ts), and the table's cells are fitted to them when drawn
// (components/CellTable.tsx). docs/board.md, "Static tables".

/** Cells between two columns (ink-table's padding of one on each side). */
export const TABLE_GAP = 2;

export type TableColumn = {
	readonly heading: string;
	readonly align?: 'left' | 'right';
	/** Never wider than this (a long model name, a status). */
	readonly cap?: number;
	/** Takes what the others leave and gives way first when the table is too wide (a title). */
	readonly grows?: boolean;
};

/** A table laid out in terminal cells: every column's width, and the cells, trimmed. */
export type TableView = {
	readonly columns: readonly (TableColumn & {readonly width: number})[];
	readonly rows: readonly (readonly string[])[];
	/** Rows left out for want of lines (said under the table). */
	readonly more: number;
};

/** The cells a table of these widths takes on a line (a cell of padding at each end). */
export function tableWidth(widths: readonly number[]): number {
	return widths.reduce((sum, width) => sum + width + TABLE_GAP, 0);
}

/**
 * Each column as wide as its heading and its widest cell (in cells, capped), then narrowed until
 * the table fits `maxWidth`: the growing column first (down to its heading), then the widest
 * column a cell at a time. A cell wider than its column is cut with `…` when drawn.
 */
export function layoutTable(
	columns: readonly TableColumn[],
	rows: readonly (readonly string[])[],
	maxWidth: number,
	maxRows = Number.MAX_SAFE_INTEGER,
): TableView {
	const shown = rows.slice(0, Math.max(0, maxRows)).map(row => columns.map((_, index) => (row[index] ?? '').trim()));
	const widths = columns.map((column, index) => {
		const widest = Math.max(cellWidth(column.heading), ...shown.map(row => cellWidth(row[index] ?? '')));
		return Math.min(widest, column.cap ?? widest);
	});
	let over = tableWidth(widths) - maxWidth;
	const grows = columns.findIndex(column => column.grows === true);
	if (over > 0 && grows >= 0) {
		const floor = Math.min(widths[grows] ?? 0, Math.max(4, cellWidth(columns[grows]?.heading ?? '')));
		const give = Math.min(over, (widths[grows] ?? 0) - floor);
		widths[grows] = (widths[grows] ?? 0) - give;
		over -= give;
	}
	while (over > 0) {
		const widest = widths.indexOf(Math.max(...widths));
		if ((widths[widest] ?? 0) <= 1) break;
		widths[widest] = (widths[widest] ?? 0) - 1;
		over -= 1;
	}
	return {
		columns: columns.map((column, index) => ({...column, width: widths[index] ?? 0})),
		rows: shown,
		more: rows.length - shown.length,
	};
}
