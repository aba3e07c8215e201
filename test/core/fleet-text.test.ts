import {describe, expect, it} from 'vitest';
import {fleetJson, fleetObject, fleetText} from '../../src/core/fleet-text.ts';

describe('what PostgreSQL can hold (fleet-text)', () => {
	it.each([
		{what: 'plain text', text: 'fix the bug', shipped: 'fix the bug', isChanged: false},
		{what: 'a surrogate pair (an emoji)', text: 'ok 😀', shipped: 'ok 😀', isChanged: false},
		{what: 'a NUL', text: 'a\u0000b', shipped: 'a\\u0000b', isChanged: true},
		{what: 'a lone high surrogate', text: 'x\ud800y', shipped: 'x\\ud800y', isChanged: true},
		{what: 'a lone low surrogate', text: '\udc00!', shipped: '\\udc00!', isChanged: true},
		{what: 'a high surrogate at the end', text: 'end\ud83d', shipped: 'end\\ud83d', isChanged: true},
	])('$what: $shipped', ({text, shipped, isChanged}) => {
		expect(fleetText(text)).toEqual({text: shipped, isChanged});
		expect(Buffer.from(fleetText(text).text, 'utf8').toString('utf8')).toBe(fleetText(text).text);
	});

	it('JSON with a NUL escape in a value or a key comes back as JSON without one, and unchanged JSON byte for byte', () => {
		const text = JSON.stringify({message: 'a\u0000b', ['k\u0000']: ['\ud800', 1, {deep: 'x\u0000'}]});
		expect(text).toContain('\\u0000');
		const shipped = fleetJson(text);
		expect(shipped.isChanged).toBe(true);
		expect(shipped.text).not.toMatch(/(?<!\\)\\u0000/);
		expect(JSON.parse(shipped.text)).toEqual({message: 'a\\u0000b', 'k\\u0000': ['\\ud800', 1, {deep: 'x\\u0000'}]});
		const clean = '{"b": 1,  "a": "\\u00e9"}';
		expect(fleetJson(clean)).toEqual({text: clean, isChanged: false});
		// An escaped backslash before u0000 is not a NUL: left as it is
		const literal = JSON.stringify({path: 'C:\\u0000'});
		expect(fleetJson(literal)).toEqual({text: literal, isChanged: false});
	});

	it('a value nested 1,000 deep is fixed (ledger payloads nest at most 64; the walk is a queue, not a recursion)', () => {
		let value: unknown = 'bottom\u0000';
		for (let depth = 0; depth < 1000; depth += 1) value = [value];
		const fixed = fleetObject(value);
		expect(fixed.isChanged).toBe(true);
		let bottom = fixed.value;
		while (Array.isArray(bottom)) bottom = bottom[0];
		expect(bottom).toBe('bottom\\u0000');
	});
});
