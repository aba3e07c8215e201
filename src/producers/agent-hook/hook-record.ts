import {existsSync} from 'node:fs';
import type {HookAncestor} from '../../core/agent-process.ts';
import type {NewEvent} from '../../core/events.ts';
import {decodeLine, parseJsonText, rejectReason} from '../../ledger/ingest-line.ts';
import {parseValue} from '../../ledger/ingest-map.ts';
import {openLedger, type Ledger} from '../../ledger/open-ledger.ts';
import {DROPPED_COUNTER} from '../../ledger/counters.ts';
import {spoolDir} from '../../ledger/paths.ts';
import {MAX_LINE_BYTES} from '../../ledger/payload-limits.ts';
import type {AgentSource} from '../../ledger/payload-schema.ts';
import {markDropped} from '../../ledger/drop-markers.ts';
import {writeSpoolEnvelope, writeSpoolRaw} from '../../ledger/spool.ts';
import {MAX_REJECT_RAW_CHARS} from '../../ledger/writer.ts';
import {
	commitTranscriptRead,
	MAX_TRANSCRIPT_CHUNK,
	readTranscriptSinceCursor,
	transcriptTargets,
	type TranscriptRead,
} from '../../ledger/transcript-tokens.ts';

/** The longest the hook waits for another writer's lock before it spools instead. */
export const HOOK_BUSY_TIMEOUT_MS = 25;
/** Input larger than this is recorded as a reject, not parsed (the limit every line meets, docs/ledger.md). */
export const MAX_HOOK_INPUT_BYTES = MAX_LINE_BYTES;
/** With less than this much of the hook's time left, a transcript is read in a small chunk only. */
const TRANSCRIPT_MIN_TIME_LEFT_MS = 40;
/** The small chunk: a turn's worth of new lines, read in about a millisecond. */
const LATE_TRANSCRIPT_CHUNK = 256 * 1024;

/** One hook invocation's input, already read from stdin or argv. */
export type HookRequest = {
	/** The input: bytes as read from stdin (checked for UTF-8), or text (argv, in-process callers). */
	readonly text: string | Uint8Array;
	/** Where the text came from: stdin (hook events) or argv (Codex `notify`). */
	readonly origin: 'stdin' | 'notify';
	readonly agent?: AgentSource;
	readonly ledgerFile: string;
	readonly now: number;
	/** CLAUDE_PID, when the agent gave one. */
	readonly pid: number | null;
	/** CONTROLROOM_TASK_ID, when the agent runs under `controlroom run`. */
	readonly wrapperTaskId?: string | null;
	/** CLAUDE_CONFIG_DIR as the agent has it, when set. */
	readonly configDir?: string | null;
	/** The hook process's parent chain, nearest first. */
	readonly ancestors?: readonly HookAncestor[];
	/** TMUX and TMUX_PANE as the agent has them, when it runs in tmux (docs/tmux.md). */
	readonly tmux?: string | null;
	readonly tmuxPane?: string | null;
	/** Milliseconds since process start (process.uptime) after which optional work (transcripts) is skipped. */
	readonly deadline: number;
	readonly busyTimeoutMs?: number;
};

/** Where the input ended up. */
export type HookOutcome = {
	readonly recordedIn: 'ledger' | 'spool' | 'dropped';
	/** The reason the input was rejected, or null when it mapped to events. */
	readonly rejected: string | null;
	readonly tokenReads: number;
};

type Classified =
	| {
			readonly kind: 'events';
			readonly events: NewEvent[];
			readonly payload: Record<string, unknown>;
			/** The input was itself a spool envelope: it is spooled as it is, never wrapped twice. */
			readonly isEnvelope: boolean;
	  }
	| {readonly kind: 'reject'; readonly reason: string};

function inputBytes(input: string | Uint8Array): number {
	return typeof input === 'string' ? Buffer.byteLength(input) : input.length;
}

/** The input as text for a reject or the spool (invalid UTF-8 shown as U+FFFD: the reject says what it was). */
function inputText(input: string | Uint8Array): string {
	return typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8');
}

function classify(request: HookRequest): Classified {
	if (inputBytes(request.text) > MAX_HOOK_INPUT_BYTES) {
		return {kind: 'reject', reason: `${request.origin}: larger than ${MAX_HOOK_INPUT_BYTES} bytes`};
	}
	try {
		// The same edge as every spool and ingest line: size, UTF-8, nesting, JSON, field limits.
		const text = decodeLine(request.text);
		if (text.trim().length === 0) {
			return {kind: 'reject', reason: request.origin === 'notify' ? 'notify: no JSON argument' : 'stdin: empty'};
		}
		// Parsed once: a payload can be megabytes, and the hook's time is the agent's.
		const value = parseJsonText(text);
		const events = parseValue(value, {
			now: request.now,
			pid: request.pid,
			wrapperTaskId: request.wrapperTaskId ?? null,
			configDir: request.configDir ?? null,
			ancestors: request.ancestors ?? null,
			tmux: request.tmux ?? null,
			tmuxPane: request.tmuxPane ?? null,
			...(request.agent ? {agent: request.agent} : {}),
		});
		const payload = value as Record<string, unknown>;
		return {kind: 'events', events, payload, isEnvelope: 'payload' in payload && 'at' in payload};
	} catch (error) {
		return {kind: 'reject', reason: rejectReason(error)};
	}
}

function readTranscripts(ledger: Ledger, classified: Classified, request: HookRequest): TranscriptRead[] {
	if (classified.kind !== 'events' || classified.isEnvelope) return [];
	const reads: TranscriptRead[] = [];
	for (const target of transcriptTargets(classified.payload, classified.events)) {
		// Late (a slow start, a loaded machine): read less, so the last events of a session still
		// count their tokens; whatever is left waits for the next event at the same cursor.
		const isLate = process.uptime() * 1000 > request.deadline - TRANSCRIPT_MIN_TIME_LEFT_MS;
		try {
			const read = readTranscriptSinceCursor(ledger, target, isLate ? LATE_TRANSCRIPT_CHUNK : MAX_TRANSCRIPT_CHUNK);
			if (read) reads.push(read);
		} catch {
			// Token counts are optional: an unreadable transcript leaves them unknown, never blocks the event.
		}
	}
	return reads;
}

/** Tries the ledger: false when it is absent, busy or broken, and nothing was written. */
function recordInLedger(request: HookRequest, classified: Classified): {isDone: boolean; tokenReads: number} {
	if (!existsSync(request.ledgerFile)) return {isDone: false, tokenReads: 0};
	let ledger: Ledger | null = null;
	try {
		ledger = openLedger(request.ledgerFile, {busyTimeoutMs: request.busyTimeoutMs ?? HOOK_BUSY_TIMEOUT_MS, mustExist: true});
		const open = ledger;
		if (classified.kind === 'reject') {
			open.writer.reject({
				origin: `hook:${request.origin}`,
				line: null,
				reason: classified.reason,
				raw: inputText(request.text.slice(0, MAX_REJECT_RAW_CHARS * 4)),
				rawBytes: inputBytes(request.text),
			});
			return {isDone: true, tokenReads: 0};
		}
		const reads = readTranscripts(open, classified, request);
		const source = classified.events[0]?.source ?? 'claude';
		let tokenReads = 0;
		open.writer.transaction(() => {
			open.writer.append(classified.events);
			for (const read of reads) {
				if (commitTranscriptRead(open, read, {at: request.now, source})) tokenReads += 1;
			}
		});
		return {isDone: true, tokenReads};
	} catch {
		return {isDone: false, tokenReads: 0};
	} finally {
		try {
			ledger?.close();
		} catch {
			// Closing a connection that failed to open fully: nothing left to lose.
		}
	}
}

/** Garbage is spooled as one line (line breaks folded) so the fold records exactly one reject. */
function spoolableRaw(raw: string): string {
	if (raw.trim().length === 0) return '(empty stdin)';
	const oneLine = raw.replace(/\r?\n|\r/g, ' ');
	return oneLine.length > MAX_REJECT_RAW_CHARS ? oneLine.slice(0, MAX_REJECT_RAW_CHARS) : oneLine;
}

function recordInSpool(request: HookRequest, classified: Classified): void {
	const dir = spoolDir(request.ledgerFile);
	if (classified.kind === 'reject') {
		writeSpoolRaw(dir, spoolableRaw(inputText(request.text.slice(0, MAX_REJECT_RAW_CHARS * 4))));
		return;
	}
	if (classified.isEnvelope) {
		writeSpoolRaw(dir, inputText(request.text).replace(/\r?\n|\r/g, ' '));
		return;
	}
	const source = (classified.events[0]?.source ?? 'claude') as AgentSource;
	writeSpoolEnvelope(dir, {
		at: new Date(request.now).toISOString(),
		source,
		payload: classified.payload,
		...(request.pid ? {pid: request.pid} : {}),
		...(request.wrapperTaskId ? {wrapperTaskId: request.wrapperTaskId} : {}),
		...(request.configDir ? {configDir: request.configDir} : {}),
		...(request.ancestors && request.ancestors.length > 0 ? {ancestors: request.ancestors} : {}),
		...(request.tmux && request.tmuxPane ? {tmux: request.tmux, tmuxPane: request.tmuxPane} : {}),
	});
}

/**
 * Counts an event that neither the ledger nor the spool could take: in the ledger's counter when
 * that write still goes through, else as an empty marker file in the spool (on a full disk a new
 * name often fits where a line does not) that the next fold counts in. Never throws.
 */
function countDrop(request: HookRequest): void {
	try {
		if (!existsSync(request.ledgerFile)) throw new Error('no ledger');
		const ledger = openLedger(request.ledgerFile, {
			busyTimeoutMs: request.busyTimeoutMs ?? HOOK_BUSY_TIMEOUT_MS,
			mustExist: true,
		});
		try {
			ledger.writer.bump(DROPPED_COUNTER);
			return;
		} finally {
			ledger.close();
		}
	} catch {
		// The ledger cannot count it: leave a marker.
	}
	try {
		markDropped(spoolDir(request.ledgerFile));
	} catch {
		// Not even a name fits: the stderr line is all that is left.
	}
}

/**
 * Records one hook input: in the ledger when it can take the write within the busy timeout,
 * else as a spool file the reconciler folds later through the same mapping. Bad input becomes a
 * reject with its reason either way. Never throws.
 */
export function recordHook(request: HookRequest): HookOutcome {
	const classified = classify(request);
	const rejected = classified.kind === 'reject' ? classified.reason : null;
	const ledger = recordInLedger(request, classified);
	if (ledger.isDone) return {recordedIn: 'ledger', rejected, tokenReads: ledger.tokenReads};
	try {
		recordInSpool(request, classified);
		return {recordedIn: 'spool', rejected, tokenReads: 0};
	} catch (error) {
		countDrop(request);
		process.stderr.write(`controlroom hook: dropped one event, the spool could not be written: ${(error as Error).message}\n`);
		return {recordedIn: 'dropped', rejected, tokenReads: 0};
	}
}
