// Ink keeps a cache of each line's styled characters and widths, but makes a new one for every
// frame (one per Output), so every frame tokenizes and measures every line of the board again,
// though almost all of them are the same as the frame before: on the paper-sized ledger that was
// most of the time from an event to the screen (docs/board.md, "How it stays live"). The methods
// of Ink's cache are made to look in one cache that lives as long as the board.
//
// Then each frame Ink lays every styled character of the screen into a grid of cells and turns
// every row of it back into text with escape codes (Output.get), 7,200 cells at 160×45 for an
// event that changed one row. `get` is replaced by the same steps made row by row: a row's text
// is a pure function of the screen's width and what was written into it (where, and which
// styled text), so a row written as in an earlier frame is taken from a cache and only the others
// are laid out. Ink is pinned (package.json) and bundled; test/components/ink-caches.test.tsx
// fails if its cache moves, and draws random writes and clips both ways.
import {styledCharsToString, type StyledChar} from '@alcalzone/ansi-tokenize';
import sliceAnsi from 'slice-ansi';
import Output from '../../node_modules/ink/build/output.js';

/** Lines and texts remembered at most; past it the cache starts again (a board has a few hundred distinct lines). */
const MOST_REMEMBERED = 20_000;

type CacheMethods = {
	getStyledChars(line: string): StyledChar[];
	getStringWidth(text: string): number;
	getWidestLine(text: string): number;
};

type Clip = {x1?: number | undefined; x2?: number | undefined; y1?: number | undefined; y2?: number | undefined};
type Transformer = (line: string, index: number) => string;
type Operation =
	| {readonly type: 'write'; readonly x: number; readonly y: number; readonly text: string; readonly transformers: Transformer[]}
	| {readonly type: 'clip'; readonly clip: Clip}
	| {readonly type: 'unclip'};
/** Ink's Output as it is inside (its fields are private in its types). */
type InkOutput = {width: number; height: number; operations: Operation[]; caches: CacheMethods};

let isShared = false;

/**
 * Makes Ink's per-frame caches one cache for the process, and its frames row by row; false when
 * Ink no longer has them (nothing changed).
 */
export function shareInkCaches(): boolean {
	if (isShared) return true;
	// One cache, the first Output's, answers for every frame's.
	const shared = (new Output({width: 1, height: 1}) as unknown as {caches?: Record<string, unknown>}).caches;
	const methods = shared === undefined ? undefined : (Object.getPrototypeOf(shared) as Partial<CacheMethods>);
	const maps = shared === undefined ? [] : Object.values(shared).filter(value => value instanceof Map);
	const prototype = Output.prototype as unknown as {get?: unknown; operations?: unknown};
	if (!shared || !methods?.getStyledChars || !methods.getStringWidth || !methods.getWidestLine || maps.length === 0) return false;
	if (typeof prototype.get !== 'function') return false;
	const {getStyledChars, getStringWidth, getWidestLine} = methods as CacheMethods;
	const rows = new Map<string, string>();
	const bounded = (): void => {
		if (maps.some(map => map.size >= MOST_REMEMBERED)) for (const map of maps) map.clear();
		if (rows.size >= MOST_REMEMBERED) rows.clear();
	};
	// Each answer is a pure function of its text (Ink's own cache relies on that).
	methods.getStyledChars = line => (bounded(), getStyledChars.call(shared, line));
	methods.getStringWidth = text => (bounded(), getStringWidth.call(shared, text));
	methods.getWidestLine = text => (bounded(), getWidestLine.call(shared, text));
	Object.defineProperty(Output.prototype, 'get', {
		value: function get(this: InkOutput) {
			return frameByRows(this, rows);
		},
		configurable: true,
		writable: true,
	});
	isShared = true;
	return true;
}

/** What was written into each row: its x and the line, transformed, as Ink's `get` would lay them in order. */
function rowWrites(output: InkOutput): {x: number; line: string}[][] {
	const rows: {x: number; line: string}[][] = Array.from({length: output.height}, () => []);
	const clips: Clip[] = [];
	for (const operation of output.operations) {
		if (operation.type === 'clip') clips.push(operation.clip);
		if (operation.type === 'unclip') clips.pop();
		if (operation.type !== 'write') continue;
		const placed = clipped(output, operation, clips.at(-1));
		if (placed === null) continue;
		const {lines, x, y} = placed;
		let offsetY = 0;
		for (const [index, text] of lines.entries()) {
			const row = rows[y + offsetY];
			// As Ink: a line past the last row (or above the first) is not drawn, nor any after it.
			if (!row) continue;
			let line = text;
			for (const transformer of operation.transformers) line = transformer(line, index);
			row.push({x, line});
			offsetY++;
		}
	}
	return rows;
}

/** A write's lines and place once its clip is applied (Ink's own steps); null when it lies wholly outside. */
function clipped(
	output: InkOutput,
	operation: Extract<Operation, {type: 'write'}>,
	clip: Clip | undefined,
): {lines: string[]; x: number; y: number} | null {
	let {x, y} = operation;
	let lines = operation.text.split('\n');
	if (!clip) return {lines, x, y};
	const clipHorizontally = typeof clip.x1 === 'number' && typeof clip.x2 === 'number';
	const clipVertically = typeof clip.y1 === 'number' && typeof clip.y2 === 'number';
	if (clipHorizontally) {
		const width = output.caches.getWidestLine(operation.text);
		if (x + width < (clip.x1 as number) || x > (clip.x2 as number)) return null;
	}
	if (clipVertically && (y + lines.length < (clip.y1 as number) || y > (clip.y2 as number))) return null;
	if (clipHorizontally) {
		const x1 = clip.x1 as number;
		const x2 = clip.x2 as number;
		lines = lines.map(line => {
			const from = x < x1 ? x1 - x : 0;
			const width = output.caches.getStringWidth(line);
			const to = x + width > x2 ? x2 - x : width;
			return sliceAnsi(line, from, to);
		});
		if (x < x1) x = x1;
	}
	if (clipVertically) {
		const y1 = clip.y1 as number;
		const y2 = clip.y2 as number;
		const from = y < y1 ? y1 - y : 0;
		const height = lines.length;
		const to = y + height > y2 ? y2 - y : height;
		lines = lines.slice(from, to);
		if (y < y1) y = y1;
	}
	return {lines, x, y};
}

const BLANK: StyledChar = {type: 'char', value: ' ', fullWidth: false, styles: []};

/** One row as Ink's `get` makes it: blank cells, each write's characters laid in order, then back to text. */
function rowText(output: InkOutput, writes: readonly {x: number; line: string}[]): string {
	const cells: (StyledChar | undefined)[] = Array.from({length: output.width}, () => BLANK);
	for (const {x, line} of writes) {
		let offsetX = x;
		for (const character of output.caches.getStyledChars(line)) {
			cells[offsetX] = character;
			const characterWidth = Math.max(1, output.caches.getStringWidth(character.value));
			// A wide character's other cells are cleared, as Ink does, so no stray space follows it.
			for (let index = 1; index < characterWidth; index++) {
				cells[offsetX + index] = {type: 'char', value: '', fullWidth: false, styles: character.styles};
			}
			offsetX += characterWidth;
		}
	}
	return styledCharsToString(cells.filter((cell): cell is StyledChar => cell !== undefined)).trimEnd();
}

/** Ink's frame, each row taken from the cache when it was written the same way before. */
function frameByRows(output: InkOutput, rows: Map<string, string>): {output: string; height: number} {
	const texts = rowWrites(output).map(writes => {
		if (writes.length === 0) return '';
		let key = String(output.width);
		for (const {x, line} of writes) key += `\u0000${x}\u0000${line}`;
		let text = rows.get(key);
		if (text === undefined) {
			text = rowText(output, writes);
			rows.set(key, text);
		}
		return text;
	});
	return {output: texts.join('\n'), height: output.height};
}
