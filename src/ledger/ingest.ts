import {createHash} from 'node:crypto';
import type {NewEvent} from '../core/events.ts';
import type {Ledger} from './open-ledger.ts';
import type {Reject} from './writer.ts';
import {mapHookPayload, mapNotifyPayload, type MappingContext} from './payload-mapping.ts';
import {describeIssue, hookPayloadSchema, notifyPayloadSchema, spoolEnvelopeSchema, type AgentSource} from './payload-schema.ts';

/** Lines folded per transaction: large enough to be fast, small enough to let other writers in. */
export const INGEST_BATCH_LINES = 2000;

/** A line that could not be mapped, with the field that failed. */
export class PayloadError extends Error {}

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

/** What the hook knew besides the payload; the source is guessed from the payload when absent. */
type PayloadContext = Omit<MappingContext, 'source'> & {readonly source?: AgentSource | undefined};

/** Maps one payload (a hook's, or Codex's notify JSON) with what the hook knew besides it. */
export function mapPayload(payload: unknown, context: PayloadContext): NewEvent[] {
	if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
		throw new PayloadError(`payload: expected a JSON object, got ${Array.isArray(payload) ? 'an array' : typeof payload}`);
	}
	const record = payload as Record<string, unknown>;
	if (!('hook_event_name' in record) && 'thread-id' in record) {
		const notify = notifyPayloadSchema.safeParse(record);
		if (!notify.success) throw new PayloadError(describeIssue(notify.error));
		return mapNotifyPayload(notify.data, {...context, source: 'codex'});
	}
	const hook = hookPayloadSchema.safeParse(record);
	if (!hook.success) throw new PayloadError(describeIssue(hook.error));
	return mapHookPayload(hook.data, {...context, source: context.source ?? guessSource(record)});
}

/**
 * Parses one input line (a raw hook payload or a spool envelope) into events. Throws
 * PayloadError naming the field when it cannot.
 */
export function parseLine(line: string, options: ParseOptions): NewEvent[] {
	return parseValue(parseJsonLine(line), options);
}

/** JSON.parse that fails as a PayloadError naming the line. */
export function parseJsonLine(line: string): unknown {
	try {
		return JSON.parse(line) as unknown;
	} catch {
		throw new PayloadError('line: not valid JSON');
	}
}

/** Maps an already parsed line (a raw hook payload or a spool envelope) into events. */
export function parseValue(value: unknown, options: ParseOptions): NewEvent[] {
	const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
	if (record && 'payload' in record && 'at' in record) {
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

/** `rejected` counts lines that failed this time; `rejectsAdded` those not already recorded. */
export type IngestStats = {lines: number; appended: number; rejected: number; rejectsAdded: number; skipped: number};

/** A parsed line: its events, and the time the line itself carries (an envelope's), or null. */
type ParsedLine = {readonly events: NewEvent[]; readonly at: number | null};

/** Like parseValue, and says whether the time came from the line (an envelope) or from `now`. */
function parseValueWithTime(value: unknown, options: ParseOptions): ParsedLine {
	const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
	const isEnvelope = record !== null && 'payload' in record && 'at' in record;
	const events = parseValue(value, options);
	return {events, at: isEnvelope ? (events[0]?.at ?? null) : null};
}

/** Bytes of the line's sha1 kept in its key: 96 bits, with the time in front of them. */
const KEY_HASH_BYTES = 12;
/** Slots of the occurrence table (256 KiB); see Occurrences. */
const OCCURRENCE_SLOTS = 1 << 16;

/**
 * The key of one input line (docs/ledger.md, "Idempotence"): the time the line carries, then 96
 * bits of its sha1, then its occurrence number. Lines arrive roughly in time order, so a batch's
 * keys land side by side in the UNIQUE index instead of on a random page each. A line with no time
 * of its own (a raw hook payload, whose time is the moment of reading) has none in its key.
 */
export function lineKey(at: number | null, digest: Buffer, occurrence: number): string {
	const hash = digest.toString('base64url', 0, KEY_HASH_BYTES);
	if (at === null || !Number.isFinite(at)) return `r.${hash}#${occurrence}`;
	return `@${Math.max(0, Math.trunc(at)).toString(16).padStart(12, '0')}.${hash}#${occurrence}`;
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

	next(digest: Buffer): number {
		const slot = digest.readUInt32LE(KEY_HASH_BYTES) & (OCCURRENCE_SLOTS - 1);
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

type Batch = {
	events: NewEvent[];
	/** Per event, its pre-version-3 key, only for a ledger that holds such keys. */
	legacyKeys: (string | null)[];
	rejects: Reject[];
	lines: number;
};

const emptyBatch = (): Batch => ({events: [], legacyKeys: [], rejects: [], lines: 0});

/** Gives one event its key: events come fresh from the mapping, so no copy is made. */
function keyEvent(event: NewEvent, key: string): NewEvent {
	(event as {dedupKey?: string | null}).dedupKey = key;
	return event;
}

/** Whether the line starts or ends with whitespace: only then is it trimmed (a copy). */
function needsTrim(line: string): boolean {
	return line.charCodeAt(0) <= 32 || line.charCodeAt(line.length - 1) <= 32;
}

/**
 * Folds lines into the ledger in batched transactions. Each line's events carry a key made of the
 * line's time, hash and occurrence number, so folding the same input twice adds nothing; a line
 * that fails goes to rejects with its number while the rest land.
 */
export function createIngestor(ledger: Ledger, options: ParseOptions & {readonly origin: string}) {
	const stats: IngestStats = {lines: 0, appended: 0, rejected: 0, rejectsAdded: 0, skipped: 0};
	const occurrences = new Occurrences();
	// Only a ledger written before schema version 3 needs the old keys, counted exactly as they were.
	const legacySeen = ledger.reader.hasLegacyLineKeys() ? new Map<string, number>() : null;
	let batch = emptyBatch();
	let lineNumber = 0;
	const flush = (): void => {
		const pending = batch;
		batch = emptyBatch();
		if (pending.lines === 0) return;
		ledger.writer.transaction(() => {
			const appendOptions = legacySeen ? {legacyKeys: pending.legacyKeys} : {};
			stats.appended += ledger.writer.append(pending.events, appendOptions).appended;
			for (const reject of pending.rejects) {
				if (ledger.writer.reject(reject)) stats.rejectsAdded += 1;
			}
		});
	};
	return {
		stats,
		/** Adds one line; flushes a batch when it is full. */
		push(rawLine: string): void {
			lineNumber += 1;
			const line = rawLine.length > 0 && needsTrim(rawLine) ? rawLine.trim() : rawLine;
			if (line.length === 0) {
				stats.skipped += 1;
				return;
			}
			stats.lines += 1;
			const digest = createHash('sha1').update(line).digest();
			const occurrence = occurrences.next(digest);
			let legacyKey: string | null = null;
			if (legacySeen) {
				const hex = digest.toString('hex');
				const count = (legacySeen.get(hex) ?? 0) + 1;
				legacySeen.set(hex, count);
				legacyKey = `${hex}#${count}`;
			}
			try {
				const parsed = parseValueWithTime(parseJsonLine(line), options);
				const key = lineKey(parsed.at, digest, occurrence);
				for (let index = 0; index < parsed.events.length; index += 1) {
					batch.events.push(keyEvent(parsed.events[index] as NewEvent, `${key}:${index}`));
					if (legacySeen) batch.legacyKeys.push(`${legacyKey}:${index}`);
				}
			} catch (error) {
				if (!(error instanceof PayloadError)) throw error;
				stats.rejected += 1;
				batch.rejects.push({
					origin: options.origin,
					line: lineNumber,
					reason: error.message,
					raw: line,
					dedupKey: `${options.origin}:${lineKey(null, digest, occurrence)}`,
					legacyDedupKey: legacyKey === null ? null : `${options.origin}:${legacyKey}`,
				});
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
export function ingestLines(
	ledger: Ledger,
	lines: Iterable<string>,
	options: ParseOptions & {readonly origin: string},
): IngestStats {
	const ingestor = createIngestor(ledger, options);
	for (const line of lines) ingestor.push(line);
	return ingestor.finish();
}
