// The board's first frame without React or Ink (docs/board.md, "The first frame"): the same view
// model BoardView draws, laid out as BoardView's boxes lay it out, each text styled and cut as
// Ink's <Text> styles and cuts it (chalk and cli-truncate, the very packages Ink uses, so one copy
// of each is in the bundle and they decide colours alike). What it writes puts the same characters
// in the same styles in the same cells as Ink's first frame, which then overwrites it unchanged;
// test/components/plain-frame.test.ts holds the two to that, cell by cell. A screen it does not
// draw the same way (a view other than the lanes, a text Ink would wrap, panels taller than the
// room) gives null, and Ink draws the first frame as before.
import {styledCharsFromTokens, styledCharsToString, tokenize, type Token} from '@alcalzone/ansi-tokenize';
import chalk from 'chalk';
import cliTruncate from 'cli-truncate';
import {layoutRow} from '../src/core/board/row-layout.ts';
import {cellWidth} from '../src/core/cell-width.ts';
import type {PanelBlock, ScreenView} from '../src/core/board/screen-view.ts';
import {laneTone, type Tone} from '../src/core/board/tone.ts';
import {DEFAULT_COLORS} from '../src/core/board/palette.ts';

/** One text as Ink writes it: at column `x` of row `y`, already cut and styled. */
export type PlainPiece = {readonly x: number; readonly y: number; readonly text: string};

/** The styles of an Ink <Text> the board uses. */
type Style = {readonly color?: string; readonly dim?: boolean; readonly bold?: boolean; readonly inverse?: boolean};
/** A <Text>'s children: strings and nested <Text>s. */
type Span = string | null | {readonly style: Style; readonly children: readonly Span[]};

/** Thrown where Ink would lay the screen out otherwise than this file does: the frame is left to Ink. */
class NotDrawnHere extends Error {}

const nested = (style: Style, ...children: Span[]): Span => ({style, children});

/** What Ink's <Text> does to its text, in its order: dim, colour, bold, inverse. */
function styled(text: string, style: Style): string {
	let result = text;
	if (style.dim) result = chalk.dim(result);
	if (style.color) result = (chalk as unknown as Record<string, (text: string) => string>)[style.color]?.(result) ?? result;
	if (style.bold) result = chalk.bold(result);
	if (style.inverse) result = chalk.inverse(result);
	return result;
}

/** A <Text>'s children as one string, each nested <Text> styled (Ink's squashTextNodes). */
function squash(children: readonly Span[]): string {
	let text = '';
	for (const child of children) {
		if (child === null) continue;
		if (typeof child === 'string') {
			text += child;
			continue;
		}
		const inner = squash(child.children);
		text += inner.length > 0 ? styled(inner, child.style) : '';
	}
	return text;
}

/** Where the frame is being written, and the pieces so far. */
/** Where the pieces go, and each tone's colour in force (the config file's `colors`, palette.ts). */
type Pen = {readonly pieces: PlainPiece[]; readonly palette: Readonly<Record<Tone, string>>};

/**
 * One <Text> of one line at (x, y), `width` cells wide: cut at the end when it is wider
 * (`truncate-end`), or, for a text Ink would wrap, not drawn here at all.
 */
function text(
	pen: Pen,
	at: {readonly x: number; readonly y: number; readonly width: number},
	style: Style,
	wrap: 'wrap' | 'truncate-end',
	...children: Span[]
): void {
	let line = squash(children);
	if (line.includes('\n')) throw new NotDrawnHere('a text of several lines');
	if (line.length === 0) return;
	if (widthOf(line) > at.width) {
		if (wrap === 'wrap') throw new NotDrawnHere('a text Ink would wrap');
		line = cliTruncate(line, at.width, {position: 'end'});
	}
	if (line.length > 0) pen.pieces.push({x: at.x, y: at.y, text: asInkWrites(styled(line, style))});
}

/** The styles' codes as chalk writes them, each with the code that ends it. */
const STYLE_NAMES = ['bold', 'dim', 'inverse', 'black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white', 'gray'];
let endCodes: Map<string, string> | null = null;

function endCodeOf(code: string): string | undefined {
	if (endCodes === null || endCodes.size === 0) {
		endCodes = new Map();
		for (const name of STYLE_NAMES) {
			const [open, close] = (chalk as unknown as Record<string, (text: string) => string>)[name]?.('\0').split('\0') ?? [];
			if (!open || !close) continue;
			endCodes.set(open, close);
			endCodes.set(close, close);
		}
	}
	return endCodes.get(code);
}

// eslint-disable-next-line no-control-regex -- the codes chalk wrote are what is looked for
const SGR = /\u001B\[[0-9;]*m/g;

/**
 * A styled text as Ink's tokenizer reads it, with each run of text between two codes as one
 * character: the styled characters of a run all have the same styles, so joined again they give
 * the same output, without taking the text apart grapheme by grapheme. Null for a code this file
 * does not write.
 */
function runTokens(text: string): Token[] | null {
	const tokens: Token[] = [];
	let at = 0;
	for (const match of text.matchAll(SGR)) {
		if (match.index > at) tokens.push({type: 'char', value: text.slice(at, match.index), fullWidth: false});
		const endCode = endCodeOf(match[0]);
		if (endCode === undefined) return null;
		tokens.push({type: 'ansi', code: match[0], endCode});
		at = match.index + match[0].length;
	}
	if (at < text.length) tokens.push({type: 'char', value: text.slice(at), fullWidth: false});
	return tokens;
}

/**
 * A styled text as Ink writes it: split into styled characters and joined again (Output.get), which
 * can change what a terminal shows. From bold and dim to dim alone it writes only the end of bold,
 * and a terminal ends dim with it (both end with code 22): Ink's " no verdicts yet" after a bold dim
 * title is not dim on screen, so here it is not either.
 */
function asInkWrites(text: string): string {
	return styledCharsToString(styledCharsFromTokens(runTokens(text) ?? tokenize(text)));
}

/** The cells a styled text takes (its codes take none). */
const widthOf = (text: string): number => cellWidth(text.includes('\u001B') ? text.replace(SGR, '') : text);

/** A column of one-line texts in a box of `height` rows whose overflow is hidden: the lines past it are not drawn. */
function clippedColumn(
	pen: Pen,
	box: {readonly x: number; readonly y: number; readonly width: number; readonly height: number},
	lines: readonly {readonly style: Style; readonly wrap: 'wrap' | 'truncate-end'; readonly children: readonly Span[]}[],
): void {
	lines.slice(0, Math.max(0, box.height)).forEach((line, index) => {
		text(pen, {x: box.x, y: box.y + index, width: box.width}, line.style, line.wrap, ...line.children);
	});
}

const line = (style: Style, wrap: 'wrap' | 'truncate-end', ...children: Span[]) => ({style, wrap, children});

/** The header: the name, the ledger, the counts and the burn rate cut to what the sort order leaves. */
function header(pen: Pen, screen: ScreenView): void {
	const sortWidth = cellWidth(screen.header.sort);
	const left = screen.width - 1 - sortWidth;
	if (left < 0) throw new NotDrawnHere('a sort order wider than the screen');
	text(
		pen,
		{x: 0, y: 0, width: left},
		{},
		'truncate-end',
		nested({bold: true, color: 'cyan'}, 'controlroom', ' '),
		screen.ledger === null ? null : nested({dim: true}, `${screen.ledger}  `),
		nested({}, screen.header.counts),
		screen.header.burn ? nested({dim: true}, ` · ${screen.header.burn}`) : null,
	);
	text(pen, {x: screen.width - sortWidth, y: 0, width: sortWidth}, {color: 'cyan'}, 'wrap', screen.header.sort);
}

/** LanesPanel: the headings, the rows of each lane, and what is above and below the window. */
function lanes(pen: Pen, screen: ScreenView, y: number): number {
	const {lanes: view, width} = screen;
	const isFocused = !screen.queue.isFocused;
	const lines = [
		line({dim: true, bold: true}, 'truncate-end', view.headings),
		...(view.above === null ? [] : [line({dim: true}, 'truncate-end', `  ${view.above}`)]),
		...view.lines.map(entry => {
			if (entry.kind === 'lane') {
				return line(
					{bold: true, color: pen.palette[laneTone(entry.lane)]},
					'wrap',
					`${entry.title} (${entry.count})`,
					entry.count === 0 ? nested({dim: true}, '  none') : null,
				);
			}
			const {row} = entry;
			const isSelected = isFocused && row.id === screen.selectedId;
			const layout = layoutRow(row, view.columns);
			return line(
				{bold: isSelected || row.isUnseen === true},
				'truncate-end',
				nested({color: 'cyan'}, isSelected ? '› ' : row.isUnseen ? '● ' : '  '),
				layout.before,
				nested({color: pen.palette[row.tone]}, layout.status),
				layout.after,
			);
		}),
		...(view.below === null ? [] : [line({dim: true}, 'truncate-end', `  ${view.below}`)]),
	];
	clippedColumn(pen, {x: 0, y, width, height: lines.length}, lines);
	return lines.length;
}

/** TaskDetail: the selected task's other cells, on screens too narrow for a wide row. */
function detail(pen: Pen, screen: ScreenView, y: number): number {
	const row = screen.selected;
	if (!row) {
		text(pen, {x: 0, y, width: screen.width}, {dim: true}, 'wrap', ' ');
		return 1;
	}
	const id = row.host === null ? '' : `${row.host} · `;
	const shown = row.shownId === row.id || row.host !== null ? '' : `${row.id} · `;
	text(
		pen,
		{x: 0, y, width: screen.width},
		{dim: true},
		'truncate-end',
		`  ↳ ${id}${shown}${row.source} · age ${row.age} · ${row.progress} · tokens ${row.tokens} · cost ${row.cost} · pid ${row.pid}`,
	);
	return 1;
}

/** NeedsYouPanel. */
function needsYou(pen: Pen, screen: ScreenView, box: {x: number; y: number; width: number}): void {
	const {queue} = screen;
	const lines: ReturnType<typeof line>[] = [];
	for (const lane of queue.lanes) {
		lines.push(line({bold: true}, 'truncate-end', ` ${lane.name} (${lane.items.length + lane.more})`));
		for (const item of lane.items) {
			lines.push(line({inverse: queue.isFocused && item.taskId === queue.selectedTaskId}, 'truncate-end', `   ${item.text}`));
		}
		if (lane.more > 0) lines.push(line({dim: true}, 'truncate-end', `   +${lane.more} more`));
	}
	if (lines.length === 0) lines.push(line({dim: true}, 'truncate-end', '   nothing needs you'));
	const titleColor = queue.isFocused ? pen.palette['accent'] : pen.palette[queue.total > 0 ? 'warn' : 'muted'];
	const title = `NEEDS YOU (${queue.total})${queue.isFocused ? ' — k acknowledges, x sends back, tab moves on' : ''}`;
	clippedColumn(pen, {...box, height: queue.height}, [
		line({bold: true, color: titleColor}, 'wrap', title),
		...lines.slice(0, Math.max(1, queue.height - 1)),
	]);
}

/** ReviewsPanel, side by side (`height` rows) or compact (one line). */
function reviews(
	pen: Pen,
	screen: ScreenView,
	box: {x: number; y: number; width: number; height: number},
	isCompact: boolean,
): void {
	const view = screen.reviews;
	if (isCompact) {
		const first = view.rows[0];
		text(
			pen,
			box,
			{},
			'truncate-end',
			nested({bold: true, dim: !first}, `REVIEWS (${view.total})`),
			first ? nested({color: pen.palette[first.tone]}, ` ${first.text}`) : nested({dim: true}, ' no verdicts yet'),
			view.total > 1 ? nested({dim: true}, `  +${view.total - 1} more`) : null,
		);
		return;
	}
	const room = Math.max(1, box.height - 1);
	const shown = view.rows.length > room ? view.rows.slice(0, room - 1) : view.rows;
	const more = view.rows.length - shown.length;
	clippedColumn(pen, box, [
		line({bold: true, dim: view.total === 0}, 'wrap', `REVIEWS (${view.total})`),
		...(view.total === 0 ? [line({dim: true}, 'truncate-end', '   no verdicts yet')] : []),
		...shown.map(row => line({color: pen.palette[row.tone]}, 'truncate-end', `   ${row.text}`)),
		...(more > 0 ? [line({dim: true}, 'wrap', `   +${more} more`)] : []),
	]);
}

/** HeldEffectsPanel, compact (one line) or as a list. */
function heldEffects(pen: Pen, screen: ScreenView, box: {x: number; y: number; width: number}, isCompact: boolean): number {
	const {effects} = screen;
	const title = `HELD EFFECTS (${effects.heldCount})${effects.markedCount > 0 ? ` · ${effects.markedCount} marked` : ''}`;
	const titleColor = effects.isFocused ? pen.palette['accent'] : pen.palette[effects.heldCount > 0 ? 'warn' : 'muted'];
	if (isCompact) {
		const index = effects.lines.findIndex(entry => entry.kind === 'effect' || entry.kind === 'outcome');
		const first = effects.lines[index];
		const args = effects.lines[index + 1]?.kind === 'args' ? `  ${effects.lines[index + 1]?.text ?? ''}` : '';
		text(
			pen,
			box,
			{bold: effects.heldCount > 0, color: titleColor},
			'truncate-end',
			`${title}${effects.heldCount > 0 ? ' (tab to act)' : ''}: ${first ? first.text.trim() : 'none'}${args}`,
		);
		return 1;
	}
	const shown = effects.lines.slice(0, Math.max(1, effects.height - 1));
	clippedColumn(pen, {...box, height: effects.height}, [
		line(
			{bold: true, color: titleColor},
			'truncate-end',
			`${title}${effects.isFocused ? ' — space marks, a approves, x sends back' : ''}`,
		),
		...(shown.length === 0 ? [line({dim: true}, 'truncate-end', '   nothing held')] : []),
		...shown.map(entry =>
			entry.kind === 'order'
				? line({bold: true}, 'truncate-end', ` ${entry.text}`)
				: entry.kind === 'args'
					? line({dim: true}, 'truncate-end', `      ${entry.text}`)
					: entry.kind === 'effect'
						? line(
								{inverse: entry.isSelected, ...(entry.isMarked ? {color: pen.palette['accent']} : {})},
								'truncate-end',
								`  ${entry.text}`,
							)
						: line({color: pen.palette[entry.tone]}, 'truncate-end', `  ${entry.text}`),
		),
	]);
	return effects.height;
}

/** The band Needs you, Reviews and Held effects share: side by side, or stacked. */
function band(pen: Pen, screen: ScreenView, y: number): number {
	const {width} = screen;
	if (screen.isSideBySide) {
		const widths = screen.panelWidths;
		if (widths.queue + widths.reviews + widths.effects + 2 > width) throw new NotDrawnHere('panels wider than the screen');
		needsYou(pen, screen, {x: 0, y, width: widths.queue});
		reviews(pen, screen, {x: widths.queue + 1, y, width: widths.reviews, height: screen.queue.height}, false);
		heldEffects(pen, screen, {x: widths.queue + widths.reviews + 2, y, width: widths.effects}, false);
		return Math.max(screen.queue.height, screen.effects.height);
	}
	needsYou(pen, screen, {x: 0, y, width});
	reviews(pen, screen, {x: 0, y: y + screen.queue.height, width, height: 1}, true);
	const effectsHeight = heldEffects(pen, screen, {x: 0, y: y + screen.queue.height + 1, width}, !screen.effects.isFocused);
	return screen.queue.height + 1 + effectsHeight;
}

/** DecisionsPanel. */
function decisions(pen: Pen, screen: ScreenView, y: number): number {
	const view = screen.decisions;
	if (!view) return 0;
	const shown = view.lines.length < view.count ? ` · ${view.start + 1}–${view.start + view.lines.length} shown` : '';
	clippedColumn(pen, {x: 0, y, width: screen.width, height: view.height}, [
		line(
			{bold: true, color: view.isFocused ? pen.palette['accent'] : pen.palette['warn']},
			'truncate-end',
			`DECISIONS (${view.count})${shown}${view.isFocused ? ' — enter shows it whole, a allows, x denies' : ' (tab to answer)'}`,
		),
		...view.lines.map(entry =>
			line({inverse: entry.isSelected}, 'truncate-end', `${entry.isSelected ? ' › ' : '   '}${entry.text}`),
		),
	]);
	return view.height;
}

/** BlockPanel: a title and toned lines. */
function block(pen: Pen, screen: ScreenView, panel: PanelBlock, y: number): number {
	clippedColumn(pen, {x: 0, y, width: screen.width, height: panel.height}, [
		line({bold: true, color: pen.palette[panel.isFocused ? 'accent' : 'info']}, 'truncate-end', panel.title),
		...panel.lines.map(entry => line(entry.tone === null ? {} : {color: pen.palette[entry.tone]}, 'truncate-end', entry.text)),
	]);
	return panel.height;
}

/** The Footer's status line (a question, or the filter and the notice) and the help bar. */
function footer(pen: Pen, screen: ScreenView, y: number): void {
	const {prompt, confirm, notice, bar, filter, width} = screen;
	const filterText = filter === null ? '' : `/${filter} (esc clears)  `;
	if (prompt) throw new NotDrawnHere('a prompt');
	if (!confirm && notice && cellWidth(filterText + notice.text) > width) throw new NotDrawnHere('a notice Ink would wrap');
	const at = {x: 0, y, width};
	if (confirm) {
		text(pen, at, {color: pen.palette['warn'], bold: true}, 'truncate-end', confirm);
	} else if (filter !== null || notice) {
		text(
			pen,
			at,
			{},
			'truncate-end',
			filter === null
				? null
				: nested(
						{bold: true, color: pen.palette['accent']},
						`/${filter}`,
						nested({dim: true}, ` (esc clears)${notice ? '  ' : ''}`),
					),
			notice ? nested({color: pen.palette[notice.tone]}, notice.text) : null,
		);
	} else {
		text(pen, at, {}, 'wrap', ' ');
	}
	text(
		pen,
		{x: 0, y: y + 1, width},
		{},
		'truncate-end',
		...bar.map(item =>
			nested(
				{dim: item.isDisabled},
				item.keys ? nested({bold: !item.isDisabled}, item.keys) : null,
				`${item.keys ? ' ' : ''}${item.label}  `,
			),
		),
	);
}

const FOOTER_LINES = 2;

/**
 * The pieces of the first frame as BoardView draws `screen` (the lanes and the panels under them),
 * or null when this screen is one it leaves to Ink.
 */
export function plainFrame(
	screen: ScreenView,
	palette: Readonly<Record<Tone, string>> = DEFAULT_COLORS,
): readonly PlainPiece[] | null {
	if (screen.log || screen.timeline || screen.help || screen.approval || screen.question) return null;
	const pen: Pen = {pieces: [], palette};
	try {
		header(pen, screen);
		screen.alerts.forEach((alert, index) =>
			text(
				pen,
				{x: 0, y: 1 + index, width: screen.width},
				{color: pen.palette['error'], bold: true},
				'truncate-end',
				`⚠ ${alert}`,
			),
		);
		const top = 1 + screen.alerts.length;
		const bottom = screen.height - FOOTER_LINES;
		let y = top;
		y += lanes(pen, screen, y);
		if (!screen.isWideRows) y += detail(pen, screen, y);
		y += band(pen, screen, y);
		y += decisions(pen, screen, y);
		for (const panel of screen.blocks) y += block(pen, screen, panel, y);
		// Taller than the room: Ink would shrink the panels to fit.
		if (y > bottom) return null;
		footer(pen, screen, bottom);
		return pen.pieces;
	} catch (error) {
		if (error instanceof NotDrawnHere) return null;
		throw error;
	}
}

/**
 * The pieces as terminal output on a blank screen: each text at its place (row and column are
 * 1-based), then the cursor back at the top left, where Ink starts its first frame.
 */
export function plainFrameText(pieces: readonly PlainPiece[]): string {
	return `${pieces.map(piece => `\u001B[${piece.y + 1};${piece.x + 1}H${piece.text}`).join('')}\u001B[H`;
}
