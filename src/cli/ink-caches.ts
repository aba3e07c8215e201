// Ink keeps a cache of each line's styled characters and widths, but makes a new one for every
// frame (one per Output), so every frame tokenizes and measures every line of the board again,
// though almost all of them are the same as the frame before: on the paper-sized ledger that was
// most of the time from an event to the screen (docs/board.md, "How it stays live"). The methods
// of Ink's cache are made to look in one cache that lives as long as the board. Ink is pinned
// (package.json) and bundled; test/components/ink-caches.test.ts fails if its cache moves.
import Output from '../../node_modules/ink/build/output.js';

/** Lines and texts remembered at most; past it the cache starts again (a board has a few hundred distinct lines). */
const MOST_REMEMBERED = 20_000;

type CacheMethods = {
	getStyledChars(line: string): unknown;
	getStringWidth(text: string): number;
	getWidestLine(text: string): number;
};

let isShared = false;

/** Makes Ink's per-frame caches one cache for the process; false when Ink no longer has them (nothing changed). */
export function shareInkCaches(): boolean {
	if (isShared) return true;
	// One cache, the first Output's, answers for every frame's.
	const shared = (new Output({width: 1, height: 1}) as unknown as {caches?: Record<string, unknown>}).caches;
	const methods = shared === undefined ? undefined : (Object.getPrototypeOf(shared) as Partial<CacheMethods>);
	const maps = shared === undefined ? [] : Object.values(shared).filter(value => value instanceof Map);
	if (!shared || !methods?.getStyledChars || !methods.getStringWidth || !methods.getWidestLine || maps.length === 0) return false;
	const {getStyledChars, getStringWidth, getWidestLine} = methods as CacheMethods;
	const bounded = (): void => {
		if (maps.some(map => map.size >= MOST_REMEMBERED)) for (const map of maps) map.clear();
	};
	// Each answer is a pure function of its text (Ink's own cache relies on that).
	methods.getStyledChars = line => (bounded(), getStyledChars.call(shared, line));
	methods.getStringWidth = text => (bounded(), getStringWidth.call(shared, text));
	methods.getWidestLine = text => (bounded(), getWidestLine.call(shared, text));
	isShared = true;
	return true;
}
