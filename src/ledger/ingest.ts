import {createHash} from 'node:crypto';
import type {NewEvent} from '../core/events.ts';
import type {Ledger} from './open-ledger.ts';
import {mapHookPayload, mapNotifyPayload} from './payload-mapping.ts';
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
};

function guessSource(payload: Record<string, unknown>): AgentSource {
	return 'turn_id' in payload || 'thread-id' in payload || payload['type'] === 'agent-turn-complete' ? 'codex' : 'claude';
}

function mapPayload(payload: unknown, source: AgentSource | undefined, at: number, pid: number | null): NewEvent[] {
	if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
		throw new PayloadError(`payload: expected a JSON object, got ${Array.isArray(payload) ? 'an array' : typeof payload}`);
	}
	const record = payload as Record<string, unknown>;
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
		const {at, source, payload, pid} = envelope.data;
		return mapPayload(payload, source, Date.parse(at), pid ?? null);
	}
	return mapPayload(value, options.agent, options.now, options.pid ?? null);
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

type Batch = {events: NewEvent[]; rejects: {line: number; reason: string; raw: string; dedupKey: string}[]; lines: number};

/**
 * Folds lines into the ledger in batched transactions. Each line's events carry a key made of the
 * line's hash and its occurrence number, so folding the same input twice adds nothing; a line that
 * fails goes to rejects with its number while the rest land.
 */
export function createIngestor(ledger: Ledger, options: ParseOptions & {readonly origin: string}) {
	const stats: IngestStats = {lines: 0, appended: 0, rejected: 0, rejectsAdded: 0, skipped: 0, firstRejects: []};
	const seen = new Map<string, number>();
	let batch: Batch = {events: [], rejects: [], lines: 0};
	let lineNumber = 0;
	const flush = (): void => {
		const pending = batch;
		batch = {events: [], rejects: [], lines: 0};
		if (pending.lines === 0) return;
		ledger.writer.transaction(() => {
			stats.appended += ledger.writer.append(pending.events).appended;
			for (const reject of pending.rejects) {
				if (ledger.writer.reject({origin: options.origin, ...reject})) stats.rejectsAdded += 1;
			}
		});
	};
	return {
		stats,
		/** Adds one line; flushes a batch when it is full. */
		push(rawLine: string): void {
			lineNumber += 1;
			const line = rawLine.trim();
			if (line.length === 0) {
				stats.skipped += 1;
				return;
			}
			stats.lines += 1;
			const hash = createHash('sha1').update(line).digest('hex');
			const occurrence = (seen.get(hash) ?? 0) + 1;
			seen.set(hash, occurrence);
			const key = `${hash}#${occurrence}`;
			try {
				const events = parseLine(line, options);
				events.forEach((event, index) => batch.events.push({...event, dedupKey: `${key}:${index}`}));
			} catch (error) {
				if (!(error instanceof PayloadError)) throw error;
				stats.rejected += 1;
				if (stats.firstRejects.length < REPORTED_REJECTS) stats.firstRejects.push({line: lineNumber, reason: error.message});
				batch.rejects.push({line: lineNumber, reason: error.message, raw: line, dedupKey: `${options.origin}:${key}`});
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
