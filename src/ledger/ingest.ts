import {hash} from 'node:crypto';
import type {NewEvent} from '../core/events.ts';
import type {Ledger} from './open-ledger.ts';
import {fieldLimitProblem, invalidUtf8Offset, MAX_DEPTH, MAX_LINE_BYTES, nestsDeeperThan} from './payload-limits.ts';
import {mapHookPayload, mapNotifyPayload, type MappingContext} from './payload-mapping.ts';
import {
	describeIssue,
	hookPayloadSchema,
	notifyPayloadSchema,
	spoolEnvelopeSchema,
	type AgentSource,
	type HookPayload,
} from './payload-schema.ts';
import {isStoreFault} from './store-errors.ts';
import {MAX_REJECT_RAW_CHARS, type Reject} from './writer.ts';

/** Lines folded per transaction: large enough to be fast, small enough to let other writers in. */
export const INGEST_BATCH_LINES = 2000;

/** A line that could not be mapped, with the field that failed. */
export class PayloadError extends Error {}

/** A line as it arrived: text, or bytes not yet known to be UTF-8. */
export type RawLine = string | Uint8Array;

export type ParseOptions = {
	/** Source of payloads that are not in an envelope; guessed from the payload when absent. */
	readonly agent?: AgentSource;
	/** Time for payloads that carry none (raw hook payloads). */
	readonly now: number;
	/** PID for payloads that carry none (the live hook's CLAUDE_PID). */
	readonly pid?: number | null;
	/** The wrapper task (CONTROLROOM_TASK_ID) for payloads that carry none (the live hook's). */
	readonly wrapperTaskId?: string | null;
	/** The hook's parent chain for payloads that carry none (the live hook's). */
	readonly ancestors?: MappingContext['ancestors'];
};

function guessSource(payload: Record<string, unknown>): AgentSource {
	return 'turn_id' in payload || 'thread-id' in payload || payload['type'] === 'agent-turn-complete' ? 'codex' : 'claude';
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** A payload hookPayloadSchema surely accepts as it is: a session id, an event name, optional cwd and transcript path as strings. */
function isPlainHookPayload(record: Record<string, unknown>): record is HookPayload {
	return (
		isText(record['session_id']) &&
		isText(record['hook_event_name']) &&
		(record['cwd'] === undefined || typeof record['cwd'] === 'string') &&
		(record['transcript_path'] === undefined || typeof record['transcript_path'] === 'string')
	);
}

/** What the hook knew besides the payload; the source is guessed from the payload when absent. */
type PayloadContext = Omit<MappingContext, 'source'> & {readonly source?: AgentSource | undefined};

/** Maps one payload (a hook's, or Codex's notify JSON) with what the hook knew besides it. */
export function mapPayload(payload: unknown, context: PayloadContext): NewEvent[] {
	if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
		throw new PayloadError(`payload: expected a JSON object, got ${Array.isArray(payload) ? 'an array' : typeof payload}`);
	}
	const record = payload as Record<string, unknown>;
	const limit = fieldLimitProblem(record);
	if (limit) throw new PayloadError(limit);
	if (!('hook_event_name' in record) && 'thread-id' in record) {
		const notify = notifyPayloadSchema.safeParse(record);
		if (!notify.success) throw new PayloadError(describeIssue(notify.error));
		return mapNotifyPayload(notify.data, {...context, source: 'codex'});
	}
	const source = context.source ?? guessSource(record);
	// The common case checked by hand, without zod's copy of every field (a bulk import's hot path);
	// zod decides, and words the reason, whenever the quick check is not sure.
	if (isPlainHookPayload(record)) return mapHookPayload(record, {...context, source});
	const hook = hookPayloadSchema.safeParse(record);
	if (!hook.success) throw new PayloadError(describeIssue(hook.error));
	return mapHookPayload(hook.data, {...context, source});
}

function byteLength(raw: RawLine): number {
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

/**
 * Parses one input line (a raw hook payload or a spool envelope) into events, through every limit.
 * Throws PayloadError naming the field or the limit when it cannot.
 */
export function parseLine(raw: RawLine, options: ParseOptions): NewEvent[] {
	return parseValue(parseJsonText(decodeLine(raw)), options);
}

/**
 * The time of an envelope spoolEnvelopeSchema surely accepts as it is, or null when the schema must
 * decide: `at` exactly as toISOString writes it (which the schema's date-time pattern accepts
 * whenever it names a real instant), a known source, an optional id and wrapper task, and no PID
 * or parent chain. A bulk import's lines are such envelopes: zod's copy and its date pattern were a
 * tenth of the time spent per line.
 */
function plainEnvelopeTime(record: Record<string, unknown>): number | null {
	const at = record['at'];
	const source = record['source'];
	if (typeof at !== 'string' || at.length !== 24 || at.charCodeAt(23) !== 0x5a /* Z */) return null;
	if (source !== 'claude' && source !== 'codex') return null;
	if (record['pid'] !== undefined || record['ancestors'] !== undefined) return null;
	const id = record['id'];
	const wrapperTaskId = record['wrapperTaskId'];
	if (id !== undefined && typeof id !== 'string') return null;
	if (wrapperTaskId !== undefined && !isText(wrapperTaskId)) return null;
	return canonicalIsoTime(at);
}

/** The number the 1 to 4 digits at `start` spell, or -1 when one of them is not a digit. */
function digitsAt(text: string, start: number, count: number): number {
	let value = 0;
	for (let index = start; index < start + count; index += 1) {
		const digit = text.charCodeAt(index) - 0x30;
		if (digit < 0 || digit > 9) return -1;
		value = value * 10 + digit;
	}
	return value;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The milliseconds of `YYYY-MM-DDTHH:MM:SS.mmmZ` (toISOString's form, 24 characters) naming a real
 * instant, by hand; null for any other text. Date.parse and a round trip through toISOString cost
 * several microseconds a line.
 */
function canonicalIsoTime(at: string): number | null {
	const isShaped =
		at.charCodeAt(4) === 0x2d &&
		at.charCodeAt(7) === 0x2d &&
		at.charCodeAt(10) === 0x54 &&
		at.charCodeAt(13) === 0x3a &&
		at.charCodeAt(16) === 0x3a &&
		at.charCodeAt(19) === 0x2e;
	if (!isShaped) return null;
	const year = digitsAt(at, 0, 4);
	const month = digitsAt(at, 5, 2);
	const day = digitsAt(at, 8, 2);
	const hour = digitsAt(at, 11, 2);
	const minute = digitsAt(at, 14, 2);
	const second = digitsAt(at, 17, 2);
	const milli = digitsAt(at, 20, 3);
	// Date.UTC reads years below 100 as 19xx: those (and anything odd) are left to the schema.
	if (year < 100 || month < 1 || month > 12 || day < 1 || milli < 0) return null;
	if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return null;
	const isLeap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
	if (day > (month === 2 && isLeap ? 29 : (DAYS_IN_MONTH[month - 1] as number))) return null;
	return Date.UTC(year, month - 1, day, hour, minute, second, milli);
}

/** Maps an already parsed line (a raw hook payload or a spool envelope) into events. */
export function parseValue(value: unknown, options: ParseOptions): NewEvent[] {
	const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
	if (record && 'payload' in record && 'at' in record) {
		const plainAt = plainEnvelopeTime(record);
		if (plainAt !== null) {
			const wrapperTaskId = record['wrapperTaskId'] as string | undefined;
			return mapPayload(record['payload'], {
				source: record['source'] as AgentSource,
				at: plainAt,
				pid: null,
				wrapperTaskId: wrapperTaskId ?? null,
				ancestors: null,
			});
		}
		const envelope = spoolEnvelopeSchema.safeParse(record);
		if (!envelope.success) throw new PayloadError(`envelope ${describeIssue(envelope.error)}`);
		const {at, source, payload, pid, wrapperTaskId, ancestors} = envelope.data;
		return mapPayload(payload, {
			source,
			at: Date.parse(at),
			pid: pid ?? null,
			wrapperTaskId: wrapperTaskId ?? null,
			ancestors: ancestors ?? null,
		});
	}
	return mapPayload(value, {
		source: options.agent,
		at: options.now,
		pid: options.pid ?? null,
		wrapperTaskId: options.wrapperTaskId ?? null,
		ancestors: options.ancestors ?? null,
	});
}

/** The reason a line was refused: a PayloadError says it; anything else is named as the mapping failing on it. */
export function rejectReason(error: unknown): string {
	if (error instanceof PayloadError) return error.message;
	const named = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
	return `mapping failed: ${named.slice(0, 500)}`;
}

/** How many rejected lines an ingest reports by number and reason (all of them are in the rejects table). */
export const REPORTED_REJECTS = 5;

/**
 * `rejected` counts lines that failed this time; `rejectsAdded` those not already recorded;
 * `firstRejects` the first few of them, by line number, with the reason.
 */
export type IngestStats = {
	lines: number;
	appended: number;
	rejected: number;
	rejectsAdded: number;
	skipped: number;
	firstRejects: {line: number; reason: string}[];
};

/** A parsed line: its events, and the time the line itself carries (an envelope's), or null. */
type ParsedLine = {readonly events: NewEvent[]; readonly at: number | null};

/** Like parseValue, and says whether the time came from the line (an envelope) or from `now`. */
function parseValueWithTime(value: unknown, options: ParseOptions): ParsedLine {
	const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
	const isEnvelope = record !== null && 'payload' in record && 'at' in record;
	const events = parseValue(value, options);
	return {events, at: isEnvelope ? (events[0]?.at ?? null) : null};
}

/** Characters of the line's sha1 (base64url) kept in its key: 96 bits, with the time in front of them. */
const KEY_HASH_CHARS = 16;
/** Slots of the occurrence table (256 KiB); see Occurrences. */
const OCCURRENCE_SLOTS = 1 << 16;

/** The line's sha1 in base64url (27 characters), by the one-shot hash: several times cheaper than createHash. */
function lineHash(line: string): string {
	return hash('sha1', line, 'base64url');
}

/**
 * The key of one input line (docs/ledger.md, "Idempotence"): the time the line carries, then 96
 * bits of its sha1, then its occurrence number. Lines arrive roughly in time order, so a batch's
 * keys land side by side in the UNIQUE index instead of on a random page each. A line with no time
 * of its own (a raw hook payload, whose time is the moment of reading) has none in its key.
 */
export function lineKey(at: number | null, lineSha1: string, occurrence: number): string {
	const short = lineSha1.slice(0, KEY_HASH_CHARS);
	if (at === null || !Number.isFinite(at)) return `r.${short}#${occurrence}`;
	return `@${Math.max(0, Math.trunc(at)).toString(16).padStart(12, '0')}.${short}#${occurrence}`;
}

/**
 * Occurrence numbers that keep identical lines of one input apart in constant memory: a line's
 * number is one more than the lines before it that fell in the same slot of a fixed table
 * (indexed by bits of its hash). Identical lines always share a slot, so their numbers differ;
 * two different lines that share one only raise each other's number, which changes nothing (their
 * hashes already differ). The same input, or a longer version of it, gives the same numbers.
 */
class Occurrences {
	private slots: Uint32Array | null = null;
	private first = -1;

	next(lineSha1: string): number {
		// Bits of the hash beyond those in the key: three base64url characters.
		const slot =
			((lineSha1.charCodeAt(KEY_HASH_CHARS) << 12) ^
				(lineSha1.charCodeAt(KEY_HASH_CHARS + 1) << 6) ^
				lineSha1.charCodeAt(KEY_HASH_CHARS + 2)) &
			(OCCURRENCE_SLOTS - 1);
		if (this.slots === null) {
			// Most spool files hold one line: the table is made only when a second one comes.
			if (this.first < 0) {
				this.first = slot;
				return 1;
			}
			this.slots = new Uint32Array(OCCURRENCE_SLOTS);
			this.slots[this.first] = 1;
		}
		const count = (this.slots[slot] ?? 0) + 1;
		this.slots[slot] = count;
		return count;
	}
}

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

/** Enough of a rejected line to fill the kept head (MAX_REJECT_RAW_CHARS characters), decoded leniently. */
function rawText(raw: RawLine): string {
	if (typeof raw === 'string') return raw.length > MAX_REJECT_RAW_CHARS ? raw.slice(0, MAX_REJECT_RAW_CHARS) : raw;
	const head = raw.subarray(0, MAX_REJECT_RAW_CHARS * 4);
	return Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('utf8').slice(0, MAX_REJECT_RAW_CHARS);
}

/** A line's real size and sha1 (base64url) when only its head is passed in (a line longer than can be held). */
export type StreamedLine = {readonly bytes: number; readonly sha1: string};

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
	// Only a ledger written before schema version 3 needs the old keys, counted exactly as they were.
	const legacySeen = options.withLegacyKeys ? new Map<string, number>() : null;
	const fresh = () => ({
		events: [] as NewEvent[],
		legacyKeys: legacySeen ? ([] as (string | null)[]) : null,
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
	const legacyKeyOf = (sha1: string): string | null => {
		if (!legacySeen) return null;
		const hex = Buffer.from(sha1, 'base64url').toString('hex');
		const count = (legacySeen.get(hex) ?? 0) + 1;
		legacySeen.set(hex, count);
		return `${hex}#${count}`;
	};
	const reject = (raw: RawLine, rawBytes: number, reason: string, sha1: string, occurrence: number, legacyKey: string | null) => {
		batch.rejects.push({
			origin: options.origin,
			line: lineNumber,
			reason,
			raw: rawText(raw),
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
				const sha1 = streamed?.sha1 ?? hash('sha1', raw, 'base64url');
				reject(raw, rawBytes(), rejectReason(decodeFault), sha1, occurrences.next(sha1), legacyKeyOf(sha1));
			} else {
				const line = decoded.length > 0 && needsTrim(decoded) ? decoded.trim() : decoded;
				if (line.length === 0) {
					batch.skipped += 1;
				} else {
					// An untrimmed line's bytes are its text's UTF-8: hashed as they are, not encoded again.
					const sha1 = line === decoded && typeof raw !== 'string' ? hash('sha1', raw, 'base64url') : lineHash(line);
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

function writeRejects(ledger: Ledger, rejects: readonly Reject[]): number {
	let added = 0;
	for (const reject of rejects) if (ledger.writer.reject(reject)) added += 1;
	return added;
}

function noteRejects(rejects: readonly Reject[], stats: IngestStats): void {
	stats.rejected += rejects.length;
	for (const reject of rejects) {
		if (stats.firstRejects.length >= REPORTED_REJECTS) break;
		stats.firstRejects.push({line: reject.line ?? 0, reason: reject.reason});
	}
}

/**
 * After a batch the store refused for a reason not its own (a constraint, a trigger): each input
 * line in its own transaction, so only the line whose events are refused becomes a reject.
 */
function writeOneByOne(ledger: Ledger, batch: LineBatch, stats: IngestStats, origin: string): Reject[] {
	const refused: Reject[] = [];
	let start = 0;
	for (const input of batch.inputs) {
		const end = start + input.events;
		const events = batch.events.slice(start, end);
		const appendOptions = batch.legacyKeys ? {legacyKeys: batch.legacyKeys.slice(start, end)} : {};
		start = end;
		try {
			stats.appended += ledger.writer.transaction(() => ledger.writer.append(events, appendOptions).appended);
		} catch (error) {
			if (isStoreFault(error)) throw error;
			const key = events[0]?.dedupKey ?? '';
			const raw = JSON.stringify(events.map(event => event.data));
			refused.push({
				origin,
				line: input.line,
				reason: `events could not be written: ${rejectReason(error)}`,
				raw: rawText(raw),
				rawBytes: Buffer.byteLength(raw),
				dedupKey: `${origin}:${key.slice(0, key.lastIndexOf(':'))}`,
			});
		}
	}
	stats.rejectsAdded += ledger.writer.transaction(() => writeRejects(ledger, [...batch.rejects, ...refused]));
	return refused;
}

/**
 * Writes one batch in one immediate transaction and adds what it did to `stats`.
 * Only a fault of the store itself (busy, full, corrupt) escapes; the input is then read again.
 * Returns the rejects of the batch, those the store made included, in line order.
 */
export function writeLineBatch(
	ledger: Ledger,
	batch: LineBatch,
	stats: IngestStats,
	options: {readonly origin: string},
): Reject[] {
	stats.lines += batch.lines - batch.skipped;
	stats.skipped += batch.skipped;
	let refused: Reject[] = [];
	try {
		// Counted once the transaction stands: a rolled-back batch is written again line by line.
		const written = ledger.writer.transaction(() => {
			const appendOptions = batch.legacyKeys ? {legacyKeys: batch.legacyKeys} : {};
			return {
				appended: ledger.writer.append(batch.events, appendOptions).appended,
				rejectsAdded: writeRejects(ledger, batch.rejects),
			};
		});
		stats.appended += written.appended;
		stats.rejectsAdded += written.rejectsAdded;
	} catch (error) {
		if (isStoreFault(error)) throw error;
		refused = writeOneByOne(ledger, batch, stats, options.origin);
	}
	const rejects = [...batch.rejects, ...refused].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
	noteRejects(rejects, stats);
	return rejects;
}

/** A fresh tally. */
export const emptyStats = (): IngestStats => ({
	lines: 0,
	appended: 0,
	rejected: 0,
	rejectsAdded: 0,
	skipped: 0,
	firstRejects: [],
});

/** Where the lines come from (recorded on each reject). */
export type IngestOptions = ParseOptions & {readonly origin: string};

/** Folds lines into the ledger in batched transactions, on this thread (see createLineBatcher). */
export function createIngestor(ledger: Ledger, options: IngestOptions) {
	const stats = emptyStats();
	const batcher = createLineBatcher({...options, withLegacyKeys: ledger.reader.hasLegacyLineKeys()}, batch => {
		writeLineBatch(ledger, batch, stats, {origin: options.origin});
	});
	return {
		stats,
		/** Adds one line; writes a batch when it is full. */
		push: batcher.push,
		/** Writes what is left; returns the totals. */
		finish(): IngestStats {
			batcher.finish();
			return stats;
		},
	};
}

/** Folds a whole in-memory list of lines. */
export function ingestLines(ledger: Ledger, lines: Iterable<RawLine>, options: IngestOptions): IngestStats {
	const ingestor = createIngestor(ledger, options);
	for (const line of lines) ingestor.push(line);
	return ingestor.finish();
}
