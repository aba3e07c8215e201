import {tokenize} from '@alcalzone/ansi-tokenize';
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import {BOARD_NARROW_CHARACTERS, cellWidth, fitCells} from '../../src/core/cell-width.ts';

// The board's own characters are measured by their count (src/core/cell-width.ts): each must be
// what string-width and Ink's tokenizer say it is, one cell, one grapheme, not wide.
describe('the characters the board draws', () => {
	for (const character of BOARD_NARROW_CHARACTERS) {
		it(`${character} (U+${character.codePointAt(0)?.toString(16).toUpperCase()}) is one cell, one code unit and one grapheme`, () => {
			expect(character.length).toBe(1);
			expect(stringWidth(character)).toBe(1);
			expect(tokenize(`a${character}b`)).toEqual([
				{type: 'char', value: 'a', fullWidth: false},
				{type: 'char', value: character, fullWidth: false},
				{type: 'char', value: 'b', fullWidth: false},
			]);
		});
	}

	it('measures texts of them as string-width does, and texts with anything else through string-width', () => {
		const texts = [
			`running 4 · stalled 0 › ● ↳ ░░░░█ 0/20 …`,
			// A combining mark, an emoji's presentation selector, a joiner and a wide character after them.
			`·\u0301`,
			`⚠\uFE0F`,
			`→\u200D→`,
			`› 日本語`,
			`● 🚀 done`,
		];
		for (const text of texts) expect(cellWidth(text), text).toBe(stringWidth(text));
		expect(fitCells('› ● task — fix the thing', 10)).toBe('› ● task …');
	});
});
