import type {Readable} from 'node:stream';

/**
 * The lines of a stream (split on `\n`; a `\r` before it is left for the reader's trim), read in
 * large chunks: cheaper per line than node:readline, whose per-line events and regex split cost
 * more than a bulk import's parsing.
 */
export async function* readLines(input: Readable): AsyncGenerator<string> {
	input.setEncoding('utf8');
	let rest = '';
	for await (const chunk of input as AsyncIterable<string>) {
		const text = rest + chunk;
		let start = 0;
		for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
			yield text.slice(start, end);
			start = end + 1;
		}
		rest = text.slice(start);
	}
	if (rest.length > 0) yield rest;
}
