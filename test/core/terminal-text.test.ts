import {describe, expect, it} from 'vitest';
import {terminalSafe, terminalSafeJson} from '../../src/core/terminal-text.ts';

const ESC = '\u001b';

describe('terminalSafe', () => {
	it('shows a title-setting OSC, a screen clear, a colour and a clipboard write as visible text', () => {
		const hostile = `a${ESC}]0;evil\u0007b${ESC}[2Jc${ESC}[31md${ESC}]52;c;ZXZpbA==\u0007e`;
		expect(terminalSafe(hostile)).toBe('a\\e]0;evil\\ab\\e[2Jc\\e[31md\\e]52;c;ZXZpbA==\\ae');
	});

	it('keeps one value on one line: CR, LF and tab are escaped', () => {
		expect(terminalSafe('one\r\ntwo\tthree')).toBe('one\\r\\ntwo\\tthree');
	});

	it('escapes NUL, DEL, 8-bit C1 controls, bidi overrides, line separators and lone surrogates', () => {
		expect(terminalSafe('\u0000\u007f\u009b31m\u202eevil\u2066\u2028\ud800')).toBe(
			'\\x00\\x7f\\x9b31m\\u{202e}evil\\u{2066}\\u{2028}\\u{d800}',
		);
	});

	it('leaves ordinary text, accents, emoji and CJK as they are (the same string)', () => {
		const text = 'fix the CSV export — café 🚀 日本語 C:\\path';
		expect(terminalSafe(text)).toBe(text);
	});

	it('is idempotent: escaping escaped text changes nothing', () => {
		const once = terminalSafe(`${ESC}[31m\n`);
		expect(terminalSafe(once)).toBe(once);
	});
});

describe('terminalSafeJson', () => {
	it('keeps the data exact: parsing it back gives the same values, with no raw control left in the text', () => {
		const value = {prompt: `${ESC}]0;evil\u0007 \u009b2J \u202e \n`, n: 1};
		const json = terminalSafeJson(value, 2);
		expect(JSON.parse(json)).toEqual(value);
		// eslint-disable-next-line no-control-regex -- asserting the absence of control characters
		expect(json).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
	});
});
