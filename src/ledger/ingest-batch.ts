import type {NewEvent} from '../core/events.ts';
import {LegacyLineKeys, lineHash, lineKey, Occurrences} from './ingest-keys.ts';
import {
	byteLength,
	decodeLine,
	parseJsonText,
	rejectedHead,
	rejectReason,
	type RawLine,
	type StreamedLine,
} from './ingest-line.ts';
import {parseValueWithTime, type ParseOptions} from './ingest-map.ts';
import {MAX_LINE_BYTES} from './payload-limits.ts';
import type {Reject} from './writer.ts';

/** Lines folded per transaction: large enough to be fast, small enough to let other writers in. */
const INGEST_BATCH_LINES = 2000;

/** A batch of input lines made ready for the writer: keyed events and rejects. */
export type LineBatch = {
	readonly events: NewEvent[];
	/** Per event, its pre-version-3 key; only for a ledger that holds such keys. */
	readonly legacyKeys: (string | null)[] | null;
	readonly rejects: Reject[];
	/** Per input line that mapped, its number and how many of `events` (in order) it made. */
	readonly inputs: {readonly line: number; readonly events: number}[];
	/** Lines read into this batch, blank ones included. */
	readonly lines: number;
	readonly skipped: number;
};

/** Gives one event its key: events come fresh from the mapping, so no copy is made. */
function keyEvent(event: NewEvent, key: string): NewEvent {
	(event as {dedupKey?: string | null}).dedupKey = key;
	return event;
}

/** Whether the line starts or ends with whitespace: only then is it trimmed (a copy). */
function needsTrim(line: string): boolean {
	return line.charCodeAt(0) <= 32 || line.charCodeAt(line.length - 1) <= 32;
}

export type LineBatcherOptions = ParseOptions & {
	readonly origin: string;
	/** The ledger holds keys of the shape used before schema version 3: compute them too. */
	readonly withLegacyKeys: boolean;
};

/**
 * Turns input lines into batches of keyed events and rejects, INGEST_BATCH_LINES lines at a time.
 * It needs no ledger (the spool fold batches files before it writes them). Every
 * line passes the edge first (size, UTF-8, nesting, JSON, field limits: decodeLine). Each line's
 * events carry a key made of the line's time, hash and occurrence number, so folding the same
 * input twice adds nothing; whatever goes wrong with one line makes it a reject with its number.
 */
export function createLineBatcher(options: LineBatcherOptions, onBatch: (batch: LineBatch) => void) {
	const occurrences = new Occurrences();
	// Only a ledger written before schema version 3 needs the old keys.
	const legacyKeys = options.withLegacyKeys ? new LegacyLineKeys() : null;
	const fresh = () => ({
		events: [] as NewEvent[],
		legacyKeys: legacyKeys ? ([] as (string | null)[]) : null,
		rejects: [] as Reject[],
		inputs: [] as {line: number; events: number}[],
		lines: 0,
		skipped: 0,
	});
	let batch = fresh();
	let lineNumber = 0;
	const flush = (): void => {
		if (batch.lines === 0) return;
		const full = batch;
		batch = fresh();
		onBatch(full);
	};
	const legacyKeyOf = (sha1: string): string | null => (legacyKeys ? legacyKeys.next(sha1) : null);
	const reject = (raw: RawLine, rawBytes: number, reason: string, sha1: string, occurrence: number, legacyKey: string | null) => {
		batch.rejects.push({
			origin: options.origin,
			line: lineNumber,
			reason,
			raw: rejectedHead(raw),
			rawBytes,
			dedupKey: `${options.origin}:${lineKey(null, sha1, occurrence)}`,
			legacyDedupKey: legacyKey === null ? null : `${options.origin}:${legacyKey}`,
		});
	};
	return {
		/**
		 * Adds one line (text, or bytes checked for UTF-8 here); hands over a batch when it is full.
		 * `streamed` gives the real size and hash of a line of which only the head was kept.
		 */
		push(raw: RawLine, streamed?: StreamedLine): void {
			lineNumber += 1;
			batch.lines += 1;
			// A string of at most a third of the limit in UTF-16 units cannot pass it in bytes: not counted.
			const isSurelySmall = streamed === undefined && typeof raw === 'string' && raw.length * 3 <= MAX_LINE_BYTES;
			const rawBytes = (): number => streamed?.bytes ?? byteLength(raw);
			let decoded: string | null = null;
			let decodeFault: unknown = null;
			try {
				decoded = decodeLine(raw, isSurelySmall ? 0 : rawBytes());
			} catch (error) {
				decodeFault = error;
			}
			if (decoded === null) {
				const sha1 = streamed?.sha1 ?? lineHash(raw);
				reject(raw, rawBytes(), rejectReason(decodeFault), sha1, occurrences.next(sha1), legacyKeyOf(sha1));
			} else {
				const line = decoded.length > 0 && needsTrim(decoded) ? decoded.trim() : decoded;
				if (line.length === 0) {
					batch.skipped += 1;
				} else {
					// An untrimmed line's bytes are its text's UTF-8: hashed as they are, not encoded again.
					const sha1 = lineHash(line === decoded && typeof raw !== 'string' ? raw : line);
					const occurrence = occurrences.next(sha1);
					const legacyKey = legacyKeyOf(sha1);
					try {
						const parsed = parseValueWithTime(parseJsonText(line), options);
						const key = lineKey(parsed.at, sha1, occurrence);
						for (let index = 0; index < parsed.events.length; index += 1) {
							batch.events.push(keyEvent(parsed.events[index] as NewEvent, `${key}:${index}`));
							batch.legacyKeys?.push(`${legacyKey}:${index}`);
						}
						batch.inputs.push({line: lineNumber, events: parsed.events.length});
					} catch (error) {
						reject(line, rawBytes(), rejectReason(error), sha1, occurrence, legacyKey);
					}
				}
			}
			if (batch.lines >= INGEST_BATCH_LINES) flush();
		},
		/** Hands over what is left. */
		finish: flush,
	};
}
