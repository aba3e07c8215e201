// Ink measures the widest line of every text on the screen at every frame (render-node-to-output.js,
// with the widest-line package), though nearly every text is the frame before's: on the paper-sized
// ledger that was a fifth of Ink's time for an event. The build aliases widest-line to this, the
// same measure (string-width, the version Ink uses) remembered per text.
import stringWidth from 'string-width';

/** Texts remembered at most; past it the cache starts again (a board has a few hundred distinct texts). */
const MOST_REMEMBERED = 20_000;

const widths = new Map<string, number>();

/** The width in terminal cells of the widest line of `text`, as widest-line 6 measures it. */
export default function widestLine(text: string): number {
	let width = widths.get(text);
	if (width === undefined) {
		width = 0;
		for (const line of text.split('\n')) width = Math.max(width, stringWidth(line));
		if (widths.size >= MOST_REMEMBERED) widths.clear();
		widths.set(text, width);
	}
	return width;
}
