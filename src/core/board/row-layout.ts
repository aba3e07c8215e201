import type {TaskRowView} from './selectors.ts';

/** Column widths of a task row; the title takes what is left, the id column is sized to the ids shown. */
export const ROW_COLUMNS = {
	marker: 2,
	id: 15,
	host: 12,
	source: 9,
	status: 18,
	age: 5,
	idle: 18,
	progress: 22,
	tokens: 18,
	pid: 11,
} as const;

/** Cuts `text` to `width` characters (with `…` when cut) and pads it to exactly that width plus a gap. */
export function cell(text: string, width: number): string {
	const chars = [...text];
	const fitted = chars.length > width ? `${chars.slice(0, Math.max(0, width - 1)).join('')}…` : text;
	return `${fitted}${' '.repeat(Math.max(0, width - Math.min(chars.length, width)))} `;
}

/** A row as three strings around the status cell (which alone is coloured), fitted to `width`. */
export type RowLayout = {readonly before: string; readonly status: string; readonly after: string};

/**
 * Lays out a row as plain text: every column when wide; otherwise id, title, status, idle, and
 * progress from 100 columns. The id column is `idWidth` wide (see `layoutIds`). One Text per row
 * keeps an idle frame cheap to draw.
 */
export function layoutRow(
	row: TaskRowView,
	isWide: boolean,
	width: number,
	idWidth: number = ROW_COLUMNS.id,
	showHost = false,
): RowLayout {
	const c = ROW_COLUMNS;
	const showProgress = isWide || width >= 100;
	const fixed =
		idWidth +
		c.status +
		c.idle +
		3 +
		(showHost ? c.host + 1 : 0) +
		(showProgress ? c.progress + 1 : 0) +
		(isWide ? c.source + c.age + c.tokens + c.pid + 4 : 0);
	const titleWidth = Math.max(6, width - c.marker - fixed - 1);
	// A fleet request not answered yet leads the title, so it shows at every width.
	const title = row.pending === null ? row.title : `[${row.pending}] ${row.title}`;
	const before =
		cell(row.shownId, idWidth) +
		(showHost ? cell(row.host ?? '—', c.host) : '') +
		cell(title, titleWidth) +
		(isWide ? cell(row.source, c.source) : '');
	const after =
		(isWide ? cell(row.age, c.age) : '') +
		cell(row.idle, c.idle) +
		(showProgress ? cell(row.progress, c.progress) : '') +
		(isWide ? cell(`tokens ${row.tokens}`, c.tokens) + cell(`pid ${row.pid}`, c.pid) : '');
	return {before, status: cell(row.status, c.status), after: after.trimEnd()};
}

/** The title keeps at least this many columns while long ids can give way. */
const MIN_TITLE_COLUMNS = 24;
/** The id column never caps below this (whole session ids) nor above this. */
const ID_CAP_RANGE = {min: 14, max: 40} as const;

/**
 * How wide the id column may grow at a terminal width before long ids are cut to a unique prefix:
 * what the other columns and a readable title leave (whole ids from about 180 columns).
 */
export function idColumnCap(width: number, isWide: boolean): number {
	const c = ROW_COLUMNS;
	const showProgress = isWide || width >= 100;
	const others =
		c.marker +
		c.status +
		c.idle +
		4 +
		(showProgress ? c.progress + 1 : 0) +
		(isWide ? c.source + c.age + c.tokens + c.pid + 4 : 0);
	return Math.max(ID_CAP_RANGE.min, Math.min(ID_CAP_RANGE.max, width - others - MIN_TITLE_COLUMNS));
}
