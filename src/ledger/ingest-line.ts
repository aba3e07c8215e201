import {invalidUtf8Offset, MAX_DEPTH, MAX_LINE_BYTES, nestsDeeperThan} from './payload-limits.ts';
import {MAX_REJECT_RAW_CHARS} from './writer.ts';

/** A line that could not be mapped, with the field that failed. */
export class PayloadError extends Error {}

/** A line as it arrived: text, or bytes not yet known to be UTF-8. */
export type RawLine = string | Uint8Array;

/** A line's real size and sha1 (base64url) when only its head is passed in (a line longer than can be held). */
export type StreamedLine = {readonly bytes: number; readonly sha1: string};

export function byteLength(raw: RawLine): number {
	return typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
}

/**
 * The edge every line passes first (hook stdin, spool files, `ingest`): its size, its encoding,
 * its nesting, then JSON. Returns the text, or throws PayloadError naming the limit it broke.
 * `totalBytes` is the line's real size when only its head was kept (a line too long to hold).
 */
export function decodeLine(raw: RawLine, totalBytes = byteLength(raw)): string {
	if (totalBytes > MAX_LINE_BYTES) throw new PayloadError(`line: ${totalBytes} bytes, over the ${MAX_LINE_BYTES} allowed`);
	if (typeof raw === 'string') return raw;
	const bad = invalidUtf8Offset(raw);
	if (bad >= 0) throw new PayloadError(`line: not valid UTF-8 (at byte ${bad})`);
	return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
}

/** JSON.parse behind the nesting limit, failing as a PayloadError naming the line. */
export function parseJsonText(text: string): unknown {
	// Checked before parsing: a payload nested 10,000 deep must cost a scan, not a stack.
	if (nestsDeeperThan(text)) throw new PayloadError(`payload: nested deeper than ${MAX_DEPTH} levels`);
	try {
		return JSON.parse(text) as unknown;
	} catch {
		throw new PayloadError('line: not valid JSON');
	}
}

/** The reason a line was refused: a PayloadError says it; anything else is named as the mapping failing on it. */
export function rejectReason(error: unknown): string {
	if (error instanceof PayloadError) return error.message;
	const named = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
	return `mapping failed: ${named.slice(0, 500)}`;
}

/** Enough of a rejected line to fill the kept head (MAX_REJECT_RAW_CHARS characters), decoded leniently. */
export function rejectedHead(raw: RawLine): string {
	if (typeof raw === 'string') return raw.length > MAX_REJECT_RAW_CHARS ? raw.slice(0, MAX_REJECT_RAW_CHARS) : raw;
	const head = raw.subarray(0, MAX_REJECT_RAW_CHARS * 4);
	return Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('utf8').slice(0, MAX_REJECT_RAW_CHARS);
}
