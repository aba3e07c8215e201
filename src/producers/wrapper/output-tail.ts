/** The wrapper keeps at most this much of the end of a child's stdout, as its report (docs/review.md). */
export const OUTPUT_KEPT_BYTES = 8 * 1024;

/** The end of a stream, bounded: chunks in, the last OUTPUT_KEPT_BYTES out, starting at a line. */
export type OutputTail = {
	push(chunk: Buffer): void;
	/** The kept text (from the first whole line when cut), the bytes seen, and whether it was cut. */
	result(): {readonly text: string; readonly bytes: number; readonly isCut: boolean};
};

export function outputTail(limit = OUTPUT_KEPT_BYTES): OutputTail {
	let chunks: Buffer[] = [];
	let held = 0;
	let bytes = 0;
	return {
		push(chunk) {
			bytes += chunk.length;
			chunks.push(chunk);
			held += chunk.length;
			// Keep a little more than the limit, so dropping whole chunks never leaves less than it.
			while (held - (chunks[0]?.length ?? 0) >= limit) held -= chunks.shift()?.length ?? 0;
			if (chunks.length > 64) chunks = [Buffer.concat(chunks)];
		},
		result() {
			const all = Buffer.concat(chunks);
			if (all.length <= limit) return {text: all.toString('utf8'), bytes, isCut: false};
			const end = all.subarray(all.length - limit);
			const newline = end.indexOf(0x0a);
			const text = (newline >= 0 && newline < end.length - 1 ? end.subarray(newline + 1) : end).toString('utf8');
			return {text: text.replace(/^\uFFFD+/, ''), bytes, isCut: true};
		},
	};
}
