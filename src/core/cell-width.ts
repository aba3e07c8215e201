import stringWidth from 'string-width';

// How many terminal cells a string takes, as terminals draw it: East Asian wide characters and
// most emoji take two, combining marks and zero-width joiners none, a flag or a family emoji one
// grapheme of two. string-width (the measure Ink itself lays text out with) knows the Unicode
// tables; a character count would shift every later column by one for each wide character.

/**
 * Characters the board itself draws (separators, arrows, marks, bars) that are one cell each, one
 * code point and one grapheme: string-width says 1 for each (test/core/cell-width.test.ts holds it
 * to that). A text of these and printable ASCII is measured by its length: string-width's grapheme
 * segmenter and emoji tests took most of the first frame's layout, for rows that hold nothing else.
 */
export const BOARD_NARROW_CHARACTERS = '·…—–→←↑↓×›●“”└€⚠▾▸░█⎿↳≠';

const NARROW_ONLY = new RegExp(`^[\\x20-\\x7e${BOARD_NARROW_CHARACTERS}]*$`);

/** The terminal cells `text` takes (text already made terminal-safe: no control characters). */
export function cellWidth(text: string): number {
	return NARROW_ONLY.test(text) ? text.length : stringWidth(text);
}

const segmenter = new Intl.Segmenter();

/**
 * `text` fitted to exactly `width` cells: cut with `…` when it is wider (never through the middle
 * of a grapheme or a wide character: a wide character that would straddle the edge gives way to a
 * space), padded with spaces when narrower. The one measure for every column the board, the
 * snapshot text and the tables draw.
 */
export function fitCells(text: string, width: number): string {
	if (width <= 0) return '';
	const cells = cellWidth(text);
	if (cells <= width) return text + ' '.repeat(width - cells);
	if (NARROW_ONLY.test(text)) return `${text.slice(0, width - 1)}…`;
	let kept = '';
	let used = 0;
	for (const {segment} of segmenter.segment(text)) {
		const next = stringWidth(segment);
		if (used + next > width - 1) break;
		kept += segment;
		used += next;
	}
	return `${kept}…${' '.repeat(width - 1 - used)}`;
}

/** `text` cut with `…` to at most `width` cells, not padded. */
export function cutCells(text: string, width: number): string {
	return cellWidth(text) <= width ? text : fitCells(text, width).trimEnd();
}

/**
 * `text` broken into lines of at most `width` cells (at graphemes; at a space where one is near the
 * end of a line), for a long value shown whole, such as a held call's arguments in the timeline.
 */
export function wrapCells(text: string, width: number): string[] {
	if (width <= 0 || cellWidth(text) <= width) return [text];
	const lines: string[] = [];
	let line = '';
	let used = 0;
	// Printable ASCII is a cell a character: read it a character at a time (a 100 KB argument then
	// wraps in milliseconds, not the seconds a grapheme at a time takes), the same lines either way.
	const isNarrow = NARROW_ONLY.test(text);
	const segments: Iterable<string> = isNarrow ? text : Array.from(segmenter.segment(text), part => part.segment);
	for (const segment of segments) {
		const cells = isNarrow ? 1 : stringWidth(segment);
		if (used + cells > width) {
			const space = line.lastIndexOf(' ');
			// Break at the last space when it keeps most of the line; else mid-word.
			if (space > line.length * 0.6) {
				lines.push(line.slice(0, space));
				line = line.slice(space + 1);
			} else {
				lines.push(line);
				line = '';
			}
			used = cellWidth(line);
		}
		line += segment;
		used += cells;
	}
	if (line !== '') lines.push(line);
	return lines;
}
