import {describe, expect, it} from 'vitest';
import {PayloadError} from '../../src/ledger/ingest-line.ts';
import {parseLine} from '../../src/ledger/ingest-map.ts';
import {
	fieldLimitProblem,
	invalidUtf8Offset,
	keptPayload,
	MAX_KEPT_PAYLOAD_CHARS,
	nestsDeeperThan,
} from '../../src/ledger/payload-limits.ts';
import {claudePayload} from '../helpers/payloads.ts';

const SESSION = '33333333-aaaa-4bbb-8ccc-000000000001';

function reasonOf(line: string | Uint8Array): string {
	try {
		parseLine(line, {now: 1_000});
	} catch (error) {
		if (error instanceof PayloadError) return error.message;
		throw error;
	}
	return 'accepted';
}

/** A value nested `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
	let value: unknown = 'bottom';
	for (let level = 0; level < depth; level += 1) value = {inner: value};
	return value;
}

describe('the edge every line passes', () => {
	it('refuses nesting 10,000 deep with a reason, before parsing, and never throws anything else', () => {
		const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
		expect(reasonOf(deep)).toBe('payload: nested deeper than 64 levels');
		expect(reasonOf(`{"session_id":"s","hook_event_name":"Stop","x":${'{"a":'.repeat(65)}1${'}'.repeat(65)}}`)).toBe(
			'payload: nested deeper than 64 levels',
		);
	});

	it('still scans a line with many brackets: deep nesting behind more than 64 brackets in strings is refused', () => {
		const deep = `{"text":"${'['.repeat(200)}","x":${'['.repeat(65)}${']'.repeat(65)}}`;
		expect(nestsDeeperThan(deep)).toBe(true);
		expect(nestsDeeperThan(`{"text":"${'['.repeat(200)}","x":${'['.repeat(60)}${']'.repeat(60)}}`)).toBe(false);
		expect(nestsDeeperThan(`${'['.repeat(64)}${']'.repeat(64)}`)).toBe(false);
		expect(nestsDeeperThan(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe(true);
	});

	it('counts brackets only outside strings', () => {
		expect(nestsDeeperThan(JSON.stringify({text: '[[[[[[[[[['.repeat(100)}))).toBe(false);
		expect(nestsDeeperThan(JSON.stringify({text: 'a \\" [[[[[['}), 3)).toBe(false);
	});

	it('refuses a line over 4 MiB, invalid UTF-8, NUL bytes, and truncated JSON, each naming the problem', () => {
		expect(reasonOf(JSON.stringify(claudePayload('Stop', SESSION, {big: 'x'.repeat(5 * 1024 * 1024)})))).toMatch(
			/^line: \d+ bytes, over the 4194304 allowed$/,
		);
		const invalid = Buffer.concat([Buffer.from('{"session_id":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
		expect(reasonOf(invalid)).toBe('line: not valid UTF-8 (at byte 16)');
		expect(reasonOf(`{"session_id":"a\u0000b","hook_event_name":"Stop"}`)).toBe('line: not valid JSON');
		expect(reasonOf('{"session_id": "trunc')).toBe('line: not valid JSON');
	});

	it('caps ids, names and paths: a 200 KB session id, a 5,000-character cwd, control characters in an id', () => {
		expect(fieldLimitProblem({session_id: 's'.repeat(200_000)})).toBe('session_id: 200000 characters, over the 256 allowed');
		expect(fieldLimitProblem({cwd: `/${'d'.repeat(5000)}`})).toBe('cwd: 5001 characters, over the 4096 allowed');
		expect(fieldLimitProblem({session_id: 'a\u001b[2Jb'})).toBe('session_id: contains control characters');
		expect(fieldLimitProblem({cwd: '/tmp/odd name\twith tab'})).toBeNull();
		expect(reasonOf(JSON.stringify(claudePayload('Stop', 's'.repeat(300))))).toBe(
			'session_id: 300 characters, over the 256 allowed',
		);
	});

	it('finds the first byte that is not UTF-8', () => {
		expect(invalidUtf8Offset(Buffer.from('plain ascii and é'))).toBe(-1);
		const bytes = Buffer.concat([Buffer.alloc(1000, 0x61), Buffer.from([0xff]), Buffer.alloc(10, 0x61)]);
		expect(invalidUtf8Offset(bytes)).toBe(1000);
		expect(invalidUtf8Offset(Buffer.from([0x61, 0xe2, 0x82]))).toBe(3);
	});
});

describe('the kept payload', () => {
	it('is built without recursion: a value nested 100,000 deep is cut at 64 levels, not a RangeError', () => {
		const kept = keptPayload(nested(100_000));
		let depth = 0;
		let cursor: unknown = kept;
		while (cursor && typeof cursor === 'object') {
			cursor = (cursor as {inner: unknown}).inner;
			depth += 1;
		}
		expect(depth).toBe(64);
		expect(cursor).toBe('… [cut: nested deeper than 64]');
		expect(() => JSON.stringify(kept)).not.toThrow();
	});

	it('keeps top-level fields first and cuts what passes the allowance, saying how much', () => {
		const payload = {prompt: 'the question', list: Array.from({length: 1_000_000}, (_, index) => index), after: 'kept too'};
		const kept = keptPayload(payload) as {prompt: string; list: unknown[]; after: string};
		expect(kept.prompt).toBe('the question');
		expect(kept.after).toBe('kept too');
		expect(kept.list.at(-1)).toMatch(/^… \[\d+ more items cut\]$/);
		expect(JSON.stringify(kept).length).toBeLessThan(MAX_KEPT_PAYLOAD_CHARS * 1.2);
	});

	it('keeps a payload within every limit as it is, and copies one that needs a cut', () => {
		const plain = {prompt: 'fix it', tool_input: {todos: [{content: 'a', status: 'completed'}]}, n: 1, ok: true, none: null};
		expect(keptPayload(plain)).toBe(plain);
		const atTheLimit = {out: 'y'.repeat(2000)};
		expect(keptPayload(atTheLimit)).toBe(atTheLimit);
		const long = {keep: 'x', nested: {out: 'y'.repeat(2001)}};
		expect(keptPayload(long)).not.toBe(long);
		expect(keptPayload(long)).toEqual({keep: 'x', nested: {out: `${'y'.repeat(2000)}… [2001 chars]`}});
		const deep = nested(65);
		expect(keptPayload(deep)).not.toBe(deep);
		const shallow = nested(64);
		expect(keptPayload(shallow)).toBe(shallow);
		// Many short strings that together pass the allowance: cut, exactly as before.
		const wide = {items: Array.from({length: 20_000}, () => 'z'.repeat(20))};
		const kept = keptPayload(wide) as {items: string[]};
		expect(kept).not.toBe(wide);
		expect(kept.items.at(-1)).toMatch(/^… \[\d+ more items cut\]$/);
	});

	it('cuts long strings with their length', () => {
		expect(keptPayload({out: 'y'.repeat(5000)})).toEqual({out: `${'y'.repeat(2000)}… [5000 chars]`});
	});
});
