import {createHash, type Hash} from 'node:crypto';
import type {Readable} from 'node:stream';
import type {RawLine, StreamedLine} from './ingest-line.ts';
import {MAX_LINE_BYTES} from './payload-limits.ts';
import {MAX_REJECT_RAW_CHARS} from './writer.ts';

/** How much of a line too long to hold is kept for its reject. */
const HEAD_BYTES = MAX_REJECT_RAW_CHARS * 4;

/** One line of a byte stream; `streamed` when only its head was kept. */
export type ByteLine = {readonly raw: RawLine; readonly streamed?: StreamedLine};

/**
 * The lines of a byte stream, split on bytes, not decoded text, so invalid UTF-8 is refused by the
 * edge rather than patched by a decoder; a line longer than MAX_LINE_BYTES is never held whole:
 * its head is kept for the reject, its size and hash counted as it streams past.
 */
export async function* byteLines(input: Readable): AsyncGenerator<ByteLine> {
	let parts: Buffer[] = [];
	let held = 0;
	// Set once the current line passed the limit: from then on only its size and hash are kept.
	let long: {head: Buffer; bytes: number; hash: Hash} | null = null;
	const endLine = (): ByteLine => {
		const line: ByteLine = long
			? {raw: long.head, streamed: {bytes: long.bytes, sha1: long.hash.digest('base64url')}}
			: {raw: parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts)};
		parts = [];
		held = 0;
		long = null;
		return line;
	};
	const add = (piece: Buffer): void => {
		if (piece.length === 0) return;
		if (long) {
			long.bytes += piece.length;
			long.hash.update(piece);
			return;
		}
		parts.push(piece);
		held += piece.length;
		if (held > MAX_LINE_BYTES) {
			const whole = Buffer.concat(parts);
			long = {head: Buffer.from(whole.subarray(0, HEAD_BYTES)), bytes: whole.length, hash: createHash('sha1').update(whole)};
			parts = [];
			held = 0;
		}
	};
	for await (const chunk of input) {
		const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
		let start = 0;
		for (let end = bytes.indexOf(0x0a, start); end >= 0; end = bytes.indexOf(0x0a, start)) {
			add(bytes.subarray(start, end));
			yield endLine();
			start = end + 1;
		}
		add(bytes.subarray(start));
	}
	if (held > 0 || long) yield endLine();
}
