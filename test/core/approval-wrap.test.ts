import {describe, expect, it} from 'vitest';
import {wrapLine} from '../../src/core/board/approval-view.ts';
import {cellWidth} from '../../src/core/cell-width.ts';

// The confirmation before `y` shows a held call's arguments whole: wrapping may break lines but
// never drop, split or overflow what the person approves.
describe('approval confirmation wrapping', () => {
	it('keeps every character of wide text and fits each line to the cells terminals draw', () => {
		const text = 'path = "日本語のパーサーを直す/👩‍👩‍👧‍👦 notes a b c.md"';
		const lines = wrapLine(text, 10, '  ');
		expect(lines.map((line, index) => (index === 0 ? line : line.slice(2))).join('')).toBe(text);
		for (const line of lines) expect(cellWidth(line)).toBeLessThanOrEqual(10);
		// The family emoji is one grapheme of two cells: it is never cut through its joiners
		expect(lines.some(line => line.includes('👩‍👩‍👧‍👦'))).toBe(true);
	});

	it('breaks plain ASCII at the width, spaces kept', () => {
		expect(wrapLine('abcd efgh ijkl', 8)).toEqual(['abcd efg', 'h ijkl']);
	});
});
