import {render} from 'ink-testing-library';
import {expect, it} from 'vitest';
import Output from '../../node_modules/ink/build/output.js';
import {BoardView} from '../../components/BoardView.tsx';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState} from '../../src/core/board/state.ts';
import {shareInkCaches} from '../../src/cli/ink-caches.ts';
import widestLine from '../../src/cli/widest-line.ts';
import stringWidth from 'string-width';

// Ink's own frame builder, kept before the board's replaces it.
const inkGet = Output.prototype.get;

it("shares Ink's line cache across frames, and every frame stays the same as drawn without it", () => {
	const frames = (): string[] =>
		[
			[160, 45],
			[80, 24],
		].map(
			([width, height]) =>
				render(
					<BoardView screen={selectScreen(initialBoardState(), 0, {width: width ?? 0, height: height ?? 0})} />,
				).lastFrame() ?? '',
		);
	const before = frames();
	// Ink still has its per-frame cache where the board looks for it (a new Ink fails here, not on screen).
	expect(shareInkCaches()).toBe(true);
	expect(frames()).toEqual(before);
	expect(frames()).toEqual(before);
	expect(shareInkCaches()).toBe(true);
});

/** A small seeded generator, so a failure is the same on every run. */
function generator(seed: number): (below: number) => number {
	// mulberry32
	let state = seed;
	return below => {
		state = (state + 0x6d2b79f5) | 0;
		let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
		mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
		return ((mixed ^ (mixed >>> 14)) >>> 0) % below;
	};
}

const ESC = '\u001B';
const PIECES = ['a', 'word', ' ', 'ab cd', '漢字', '😀', 'é', 'e\u0301', '🇫🇷', '…', '\t', '›'];
const STYLES = ['1', '2', '7', '31', '32', '33', '36', '90', '35'];

function styledText(next: (below: number) => number): string {
	let text = '';
	for (let index = next(8); index >= 0; index--) {
		const piece = PIECES[next(PIECES.length)] ?? '';
		text += next(3) === 0 ? `${ESC}[${STYLES[next(STYLES.length)]}m${piece}${ESC}[0m` : piece;
		if (next(9) === 0) text += '\n';
	}
	return text;
}

it('draws each frame row by row exactly as Ink draws it whole: random writes, clips, wide characters and styles', () => {
	expect(shareInkCaches()).toBe(true);
	const next = generator(35);
	const bold = (line: string): string => `${ESC}[1m${line}${ESC}[22m`;
	const numbered = (line: string, index: number): string => `${index}${line}`;
	for (let frame = 0; frame < 500; frame++) {
		const width = 1 + next(30);
		const height = 1 + next(8);
		const output = new Output({width, height});
		for (let operation = next(12); operation >= 0; operation--) {
			const kind = next(5);
			if (kind === 0) {
				const maybe = (): number | undefined => (next(4) === 0 ? undefined : next(width + 4) - 2);
				output.clip({x1: maybe(), x2: maybe(), y1: maybe(), y2: maybe()});
			} else if (kind === 1) {
				output.unclip();
			} else {
				const transformers = [bold, numbered].filter(() => next(2) === 0);
				output.write(next(width + 6) - 3, next(height + 4) - 2, styledText(next), {transformers});
			}
		}
		// The same operations, read by Ink's builder and by the board's (twice: the second from its cache).
		const expected = inkGet.call(output);
		expect(output.get(), `frame ${frame}`).toEqual(expected);
		expect(output.get(), `frame ${frame}, from the cache`).toEqual(expected);
	}
});

it('measures the widest line as widest-line 6 does (the widest of its lines by string-width), from its cache too', () => {
	const inkWidestLine = (text: string): number => Math.max(...text.split('\n').map(line => stringWidth(line)));
	for (const text of ['', 'a', 'ab\nabcd\nabc', '漢字\nab', `${ESC}[1mbold${ESC}[22m\n😀😀`, 'e\u0301\n🇫🇷🇫🇷🇫🇷']) {
		expect(widestLine(text)).toBe(inkWidestLine(text));
		expect(widestLine(text)).toBe(inkWidestLine(text));
	}
});
