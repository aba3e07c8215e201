import {describe, expect, it} from 'vitest';
import {cellWidth} from '../../src/core/cell-width.ts';
import {asciiJson, asciiText, SYMBOLS, symbols, symbolSetFor} from '../../src/core/symbols.ts';

describe('symbols', () => {
	it('are ASCII for TERM=dumb and a locale whose charset is not UTF-8, the first of LC_ALL, LC_CTYPE, LANG deciding', () => {
		expect(symbolSetFor({LANG: 'C', LC_ALL: 'C'})).toBe('ascii');
		expect(symbolSetFor({LANG: 'en_US.UTF-8', LC_ALL: 'C'})).toBe('ascii');
		expect(symbolSetFor({LANG: 'C', LC_CTYPE: 'C.UTF-8'})).toBe('unicode');
		expect(symbolSetFor({LANG: 'POSIX'})).toBe('ascii');
		expect(symbolSetFor({LANG: 'de_DE.ISO-8859-1'})).toBe('ascii');
		expect(symbolSetFor({LANG: 'en_GB.utf8'})).toBe('unicode');
		expect(symbolSetFor({LANG: 'en_GB.UTF-8', LC_ALL: ''})).toBe('unicode');
		expect(symbolSetFor({LANG: 'en_GB.UTF-8', TERM: 'dumb'})).toBe('ascii');
		expect(symbolSetFor({})).toBe('unicode');
	});

	it('each ASCII form is one printable ASCII character in the one cell its symbol takes', () => {
		for (const [name, {unicode, ascii}] of Object.entries(SYMBOLS)) {
			expect(ascii, name).toMatch(/^[\x20-\x7e]$/);
			expect(cellWidth(unicode), name).toBe(1);
		}
		expect(symbols('ascii').unseen).toBe('*');
		expect(symbols('unicode').unseen).toBe('●');
	});

	it('asciiText keeps every column: symbols to their forms, any other character a ? a cell', () => {
		const text = '● w-1 fix — 日本語 e\u0301 👍🏽 ▸ 2 helpers · █░ …';
		const ascii = asciiText(text);
		expect(ascii).toBe('* w-1 fix - ?????? ? ?? > 2 helpers | #. ~');
		expect(ascii).toMatch(/^[\x20-\x7e]*$/);
		expect(ascii.length).toBe(cellWidth(text));
		expect(asciiText('plain\ntext')).toBe('plain\ntext');
	});

	it('asciiJson is the same JSON in ASCII bytes', () => {
		const value = {title: 'fix — 日本語 👍', n: 1};
		const json = asciiJson(JSON.stringify(value, null, 2));
		expect(json).toMatch(/^[^\u0080-\uffff]*$/);
		expect(JSON.parse(json)).toEqual(value);
	});
});
