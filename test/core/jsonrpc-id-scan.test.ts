import {describe, expect, it} from 'vitest';
import {JsonRpcIdScanner} from '../../src/core/jsonrpc-id-scan.ts';

/** The id the scanner finds in `line`, fed in pieces of `piece` bytes (1: a byte at a time). */
function idIn(line: string, piece = 7): string | number | null {
	const bytes = new TextEncoder().encode(line);
	const scanner = new JsonRpcIdScanner();
	for (let at = 0; at < bytes.length; at += piece) scanner.feed(bytes.subarray(at, at + piece));
	return scanner.id();
}

describe('the JSON-RPC id of a line read in pieces', () => {
	it.each([
		['last', '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"},"id":7}', 7],
		['first', '{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{}}', 7],
		['between method and params', '{"method":"tools/call","id":"a-7","params":{"arguments":{"blob":"xxxx"}}}', 'a-7'],
		['with blanks around it', '{ "method" : "m" , "id" : 12 , "params" : { } }', 12],
		['a string with escapes and non-ASCII', String.raw`{"id":"q\"é\\","method":"m"}`, 'q"é\\'],
		['negative', '{"method":"m","id":-3}', -3],
		['twice (JSON.parse keeps the last)', '{"id":1,"method":"m","id":2}', 2],
	])('is found %s', (_where, line, id) => {
		for (const piece of [1, 3, 7, 4096]) expect(idIn(line, piece)).toEqual(id);
		expect(JSON.parse(line).id).toEqual(id);
	});

	it.each([
		['inside the params', '{"method":"m","params":{"id":5,"arguments":{"id":6}}}'],
		['inside a string', String.raw`{"method":"m","note":"\"id\":5","params":{}}`],
		['as a string value', '{"method":"id","params":"id"}'],
		['null', '{"id":null,"method":"m"}'],
		['an object', '{"id":{"n":1},"method":"m"}'],
		['a fraction', '{"id":1.5,"method":"m"}'],
		['a string over 200 characters', `{"id":"${'x'.repeat(201)}","method":"m"}`],
		['in a batch (an array)', '[{"id":1,"method":"m"}]'],
		['a key that only starts with id', '{"idx":4,"method":"m"}'],
	])('is not found %s', (_where, line) => {
		for (const piece of [1, 5, 4096]) expect(idIn(line, piece)).toBeNull();
	});

	it('finds it in a line of 11 MiB, after the params, fed in 64 KiB pieces', () => {
		const line = `{"method":"tools/call","params":{"name":"x","arguments":{"blob":"${'y'.repeat(11 << 20)}"}},"id":42}`;
		expect(idIn(line, 65_536)).toBe(42);
	});
});
