import {cellWidth, fitCells} from '../cell-width.ts';
import type {TaskRowView} from './selectors.ts';

/** The columns a task row can have, in screen order; the title takes what the others leave. */
export const ROW_COLUMN_KEYS = [
	'id',
	'host',
	'title',
	'source',
	'status',
	'age',
	'seen',
	'progress',
	'tokens',
	'cost',
	'pid',
] as const;
export type RowColumnKey = (typeof ROW_COLUMN_KEYS)[number];

/** The heading over each column (docs/board.md): the cells under them say only the value. */
export const ROW_HEADINGS: Readonly<Record<RowColumnKey, string>> = {
	id: 'ID',
	host: 'HOST',
	title: 'TITLE',
	source: 'SOURCE',
	status: 'STATUS',
	age: 'AGE',
	seen: 'LAST SEEN',
	progress: 'PROGRESS',
	tokens: 'TOKENS',
	cost: 'COST',
	pid: 'PID',
};

/**
 * The widest each column grows: a column is as wide as its heading and the widest value shown,
 * up to this (a longer value is cut with `…`). The title has no cap: it takes the rest.
 */
const COLUMN_CAPS: Readonly<Record<Exclude<RowColumnKey, 'title' | 'id'>, number>> = {
	host: 16,
	source: 12,
	// `active (1 helper running)` whole (docs/tree-and-cost.md).
	status: 25,
	age: 5,
	seen: 10,
	progress: 16,
	tokens: 13,
	cost: 10,
	pid: 8,
};

/** The marker column (`› ` on the selected row). */
const MARKER = 2;
/** Below this many columns the row drops LAST SEEN and cuts a long status (layoutColumns). */
const NARROW_WIDTH = 70;
/** `running/active` whole; `vanished (outcome unknown)` is cut on a narrow row. */
const NARROW_STATUS_CAP = 14;
/** The title keeps at least this many columns. */
const MIN_TITLE = 6;

/** What a row is drawn from: a board row, or a snapshot task written the same way. */
export type TaskRowCells = Pick<
	TaskRowView,
	'shownId' | 'host' | 'pending' | 'title' | 'source' | 'status' | 'age' | 'seen' | 'progress' | 'tokens' | 'cost' | 'pid'
> &
	Partial<Pick<TaskRowView, 'worktree'>>;

/** A row's cells as the columns write them (the words the headings say are left out). */
function rowCells(row: TaskRowCells): Readonly<Record<RowColumnKey, string>> {
	return {
		id: row.shownId,
		host: row.host ?? '—',
		// A fleet request not answered yet leads the title, so it shows at every width.
		title: row.pending === null ? row.title : `[${row.pending}] ${row.title}`,
		source: row.source,
		status: row.status,
		age: row.age,
		seen: row.seen,
		progress: row.progress === 'progress not reported' ? 'not reported' : row.progress,
		tokens: row.tokens,
		cost: row.cost,
		pid: row.pid,
	};
}

/** Which columns a row shows and how wide each is, for one screen of rows. */
export type RowColumns = {
	readonly shown: readonly RowColumnKey[];
	readonly widths: Readonly<Record<RowColumnKey, number>>;
};

/**
 * Sizes the columns to the terminal and the rows: every column when `isWide`; otherwise id, title,
 * status, last seen (not under 70 columns), and progress from 100 columns (the rest go to the
 * detail line). Each column is
 * as wide as its heading and its widest value (capped); the title takes every column left, so a
 * wide terminal shows long titles rather than padding.
 */
export function layoutColumns(
	rows: readonly TaskRowCells[],
	width: number,
	isWide: boolean,
	idWidth: number,
	showHost = false,
): RowColumns {
	// A phone's page (docs/web.md) or a split pane under 70 columns: LAST SEEN gives its room to the
	// title and a long status is cut, else the title shrinks to a few letters nobody can read.
	const isNarrow = !isWide && width < NARROW_WIDTH;
	const shown = ROW_COLUMN_KEYS.filter(key => {
		if (key === 'host') return showHost;
		if (key === 'seen') return !isNarrow;
		if (key === 'progress') return isWide || width >= 100;
		if (key === 'source' || key === 'age' || key === 'tokens' || key === 'cost' || key === 'pid') return isWide;
		return true;
	});
	const widths = {} as Record<RowColumnKey, number>;
	const cells = rows.map(rowCells);
	for (const key of shown) {
		if (key === 'title') continue;
		if (key === 'id') {
			widths.id = Math.max(idWidth, cellWidth(ROW_HEADINGS.id));
			continue;
		}
		let widest = cellWidth(ROW_HEADINGS[key]);
		for (const cell of cells) widest = Math.max(widest, cellWidth(cell[key]));
		widths[key] = Math.min(widest, isNarrow && key === 'status' ? NARROW_STATUS_CAP : COLUMN_CAPS[key]);
	}
	// One space after each column; one column kept free at the right edge.
	const others = shown.filter(key => key !== 'title').reduce((sum, key) => sum + widths[key] + 1, 0);
	widths.title = Math.max(MIN_TITLE, width - MARKER - others - 2);
	return {shown, widths};
}

/** A row as three strings around the status cell (which alone is coloured). */
export type RowLayout = {readonly before: string; readonly status: string; readonly after: string};

function joinCells(
	columns: RowColumns,
	keys: readonly RowColumnKey[],
	cells: Readonly<Record<RowColumnKey, string>>,
	worktree: string | null = null,
): string {
	return keys
		.filter(key => columns.shown.includes(key))
		.map(
			key =>
				`${key === 'title' ? titleCell(cells.title, worktree, columns.widths.title) : fitCells(cells[key], columns.widths[key])} `,
		)
		.join('');
}

/**
 * The title cell: a worktree task's branch and change stay at its end, the title cut before them,
 * so they show at 80 columns too; where even they do not fit, the cell is cut as one.
 */
function titleCell(title: string, worktree: string | null, width: number): string {
	if (worktree === null) return fitCells(title, width);
	const suffix = `⎇ ${worktree}`;
	const room = width - cellWidth(suffix) - 1;
	if (room < MIN_TITLE) return fitCells(`${suffix} ${title}`, width);
	return fitCells(`${fitCells(title, room).trimEnd()} ${suffix}`, width);
}

const BEFORE_STATUS: readonly RowColumnKey[] = ['id', 'host', 'title', 'source'];
const AFTER_STATUS: readonly RowColumnKey[] = ['age', 'seen', 'progress', 'tokens', 'cost', 'pid'];

/** Lays out one row in `columns`; every cell is measured in terminal cells, so wide characters keep the columns straight. */
export function layoutRow(row: TaskRowCells, columns: RowColumns): RowLayout {
	const cells = rowCells(row);
	return {
		before: joinCells(columns, BEFORE_STATUS, cells, row.worktree ?? null),
		status: `${fitCells(cells.status, columns.widths.status)} `,
		after: joinCells(columns, AFTER_STATUS, cells).trimEnd(),
	};
}

/** The headings line over the rows, in the same columns (after the marker column). */
export function layoutHeadings(columns: RowColumns): string {
	return `${' '.repeat(MARKER)}${joinCells(columns, ROW_COLUMN_KEYS, ROW_HEADINGS)}`.trimEnd();
}

/** The title keeps at least this many columns while long ids can give way. */
const MIN_TITLE_COLUMNS = 24;
/** The id column never caps below this (whole session ids) nor above this. */
const ID_CAP_RANGE = {min: 14, max: 40} as const;
/** What the other columns take at most, for the id column's cap (their caps, and a space each). */
function othersAtMost(width: number, isWide: boolean): number {
	const c = COLUMN_CAPS;
	const showProgress = isWide || width >= 100;
	return (
		MARKER +
		c.status +
		c.seen +
		4 +
		(showProgress ? c.progress + 1 : 0) +
		(isWide ? c.source + c.age + c.tokens + c.cost + c.pid + 5 : 0)
	);
}

/**
 * How wide the id column may grow at a terminal width before long ids are cut to a unique prefix:
 * what the other columns and a readable title leave (whole ids from about 180 columns).
 */
export function idColumnCap(width: number, isWide: boolean): number {
	return Math.max(ID_CAP_RANGE.min, Math.min(ID_CAP_RANGE.max, width - othersAtMost(width, isWide) - MIN_TITLE_COLUMNS));
}
