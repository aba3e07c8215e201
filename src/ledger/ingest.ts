import {createHash} from 'node:crypto';
import type {NewEvent} from '../core/events.ts';
import type {Ledger} from './open-ledger.ts';
import {fieldLimitProblem, invalidUtf8Offset, MAX_DEPTH, MAX_LINE_BYTES, nestsDeeperThan} from './payload-limits.ts';
import {mapHookPayload, mapNotifyPayload} from './payload-mapping.ts';
import {describeIssue, hookPayloadSchema, notifyPayloadSchema, spoolEnvelopeSchema, type AgentSource} from './payload-schema.ts';
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
};

function guessSource(payload: Record<string, unknown>): AgentSource {
	return 'turn_id' in payload || 'thread-id' in payload || payload['type'] === 'agent-turn-complete' ? 'codex' : 'claude';
}

function mapPayload(payload: unknown, source: AgentSource | undefined, at: number, pid: number | null): NewEvent[] {
	if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
		throw new PayloadError(`payload: expected a JSON object, got ${Array.isArray(payload) ? 'an array' : typeof payload}`);
	}
	const record = payload as Record<string, unknown>;
	const limit = fieldLimitProblem(record);
	if (limit) throw new PayloadError(limit);
	const agent = source ?? guessSource(record);
	if (!('hook_event_name' in record) && 'thread-id' in record) {
		const notify = notifyPayloadSchema.safeParse(record);
		if (!notify.success) throw new PayloadError(describeIssue(notify.error));
		return mapNotifyPayload(notify.data, {source: 'codex', at, pid});
	}
	const hook = hookPayloadSchema.safeParse(record);
	if (!hook.success) throw new PayloadError(describeIssue(hook.error));
	return mapHookPayload(hook.data, {source: agent, at, pid});
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

/** Maps an already parsed line (a raw hook payload or a spool envelope) into events. */
export function parseValue(value: unknown, options: ParseOptions): NewEvent[] {
	const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
	if (record && 'payload' in record && 'at' in record) {
		const envelope = spoolEnvelopeSchema.safeParse(record);
		if (!envelope.success) throw new PayloadError(`envelope ${describeIssue(envelope.error)}`);
		const {at, source, payload, pid} = envelope.data;
		return mapPayload(payload, source, Date.parse(at), pid ?? null);
	}
	return mapPayload(value, options.agent, options.now, options.pid ?? null);
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

/** Where the lines come from (recorded on each reject), and who hears of each reject as it happens. */
export type IngestOptions = ParseOptions & {
	readonly origin: string;
	readonly onReject?: (line: number, reason: string) => void;
};

/** A line's real size and hash when only its head is passed in (a line longer than can be held). */
export type StreamedLine = {readonly bytes: number; readonly sha1: string};

type Mapped = {readonly line: number; readonly text: string; readonly key: string; readonly events: NewEvent[]};
type PendingReject = Omit<Reject, 'origin'>;
type Batch = {mapped: Mapped[]; rejects: PendingReject[]; lines: number};

const sha1 = (data: RawLine): string => createHash('sha1').update(data).digest('hex');

/** Enough of a rejected line to fill the kept head (MAX_REJECT_RAW_CHARS characters), decoded leniently. */
function rawText(raw: RawLine): string {
	if (typeof raw === 'string') return raw.length > MAX_REJECT_RAW_CHARS ? raw.slice(0, MAX_REJECT_RAW_CHARS) : raw;
	const head = raw.subarray(0, MAX_REJECT_RAW_CHARS * 4);
	return Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('utf8').slice(0, MAX_REJECT_RAW_CHARS);
}

/**
 * Folds lines into the ledger in batched transactions. Each line's events carry a key made of the
 * line's hash and its occurrence number, so folding the same input twice adds nothing. Whatever
 * goes wrong with one line (a limit, bad JSON, a mapping that throws, events the store refuses)
 * makes that line a reject with its number and reason while the rest land; only a fault of the
 * store itself (busy, full, corrupt) stops the fold, leaving the input to be read again.
 */
export function createIngestor(ledger: Ledger, options: IngestOptions) {
	const stats: IngestStats = {lines: 0, appended: 0, rejected: 0, rejectsAdded: 0, skipped: 0, firstRejects: []};
	const seen = new Map<string, number>();
	let batch: Batch = {mapped: [], rejects: [], lines: 0};
	let lineNumber = 0;
	const writeRejects = (rejects: readonly PendingReject[]): number => {
		let added = 0;
		for (const reject of rejects) if (ledger.writer.reject({origin: options.origin, ...reject})) added += 1;
		return added;
	};
	/** One line at a time, after a batch failed: only the line whose events the store refuses becomes a reject. */
	const writeOneByOne = (pending: Batch): void => {
		for (const entry of pending.mapped) {
			try {
				stats.appended += ledger.writer.transaction(() => ledger.writer.append(entry.events).appended);
			} catch (error) {
				if (isStoreFault(error)) throw error;
				stats.rejected += 1;
				const reason = `events could not be written: ${rejectReason(error)}`;
				if (stats.firstRejects.length < REPORTED_REJECTS) stats.firstRejects.push({line: entry.line, reason});
				options.onReject?.(entry.line, reason);
				pending.rejects.push({
					line: entry.line,
					reason,
					raw: entry.text,
					dedupKey: `${options.origin}:${entry.key}`,
				});
			}
		}
		stats.rejectsAdded += ledger.writer.transaction(() => writeRejects(pending.rejects));
	};
	const flush = (): void => {
		const pending = batch;
		batch = {mapped: [], rejects: [], lines: 0};
		if (pending.lines === 0) return;
		try {
			const written = ledger.writer.transaction(() => ({
				appended: ledger.writer.append(pending.mapped.flatMap(entry => entry.events)).appended,
				rejectsAdded: writeRejects(pending.rejects),
			}));
			stats.appended += written.appended;
			stats.rejectsAdded += written.rejectsAdded;
		} catch (error) {
			if (isStoreFault(error)) throw error;
			writeOneByOne(pending);
		}
	};
	const reject = (line: number, reason: string, raw: RawLine, key: string, rawBytes: number): void => {
		stats.rejected += 1;
		if (stats.firstRejects.length < REPORTED_REJECTS) stats.firstRejects.push({line, reason});
		options.onReject?.(line, reason);
		batch.rejects.push({line, reason, raw: rawText(raw), rawBytes, dedupKey: `${options.origin}:${key}`});
	};
	const keyOf = (hash: string): string => {
		const occurrence = (seen.get(hash) ?? 0) + 1;
		seen.set(hash, occurrence);
		return `${hash}#${occurrence}`;
	};
	return {
		stats,
		/**
		 * Adds one line (text, or bytes checked for UTF-8 here); flushes a batch when it is full.
		 * `streamed` gives the real size and hash of a line of which only the head was kept.
		 */
		push(raw: RawLine, streamed?: StreamedLine): void {
			lineNumber += 1;
			const rawBytes = streamed?.bytes ?? byteLength(raw);
			let text: string;
			try {
				text = decodeLine(raw, rawBytes).trim();
			} catch (error) {
				stats.lines += 1;
				reject(lineNumber, rejectReason(error), raw, keyOf(streamed?.sha1 ?? sha1(raw)), rawBytes);
				batch.lines += 1;
				if (batch.lines >= INGEST_BATCH_LINES) flush();
				return;
			}
			if (text.length === 0) {
				stats.skipped += 1;
				return;
			}
			stats.lines += 1;
			const key = keyOf(sha1(text));
			try {
				const events = parseValue(parseJsonText(text), options);
				batch.mapped.push({
					line: lineNumber,
					text,
					key,
					events: events.map((event, index) => ({...event, dedupKey: `${key}:${index}`})),
				});
			} catch (error) {
				reject(lineNumber, rejectReason(error), text, key, rawBytes);
			}
			batch.lines += 1;
			if (batch.lines >= INGEST_BATCH_LINES) flush();
		},
		/** Writes what is left; returns the totals. */
		finish(): IngestStats {
			flush();
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
