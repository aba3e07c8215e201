import {closeSync, fstatSync, openSync, readSync} from 'node:fs';
import {EventType, newEvent, type NewEvent} from '../core/events.ts';
import type {Ledger} from './open-ledger.ts';
import {scanTranscriptText, type TranscriptUsage} from '../core/transcript-usage.ts';

/** Most of a transcript read in one hook call; the rest is read by the next call. */
export const MAX_TRANSCRIPT_CHUNK = 4 * 1024 * 1024;
/** Step used to walk past one line longer than a whole chunk (a huge tool result). */
const SKIP_STEP = 1024 * 1024;
const NEWLINE = 0x0a;

/** What one incremental read of a transcript found, before it is committed. */
export type TranscriptRead = {
	readonly path: string;
	readonly taskId: string;
	/** The stored cursor this read began from (null: none); the commit checks it is unchanged. */
	readonly cursorOffset: number | null;
	readonly fromOffset: number;
	readonly toOffset: number;
	readonly lastMessageId: string | null;
	readonly usage: TranscriptUsage;
};

/** A transcript to read and the task its tokens count on. */
export type TranscriptTarget = {readonly path: string; readonly taskId: string; readonly skipSidechain: boolean};

function text(value: unknown): string | null {
	return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * The transcripts a Claude payload names, with the tasks the mapping put its events on: the
 * session's own transcript counts on the session's task (sidechain lines skipped), a helper's
 * (`agent_transcript_path` on SubagentStop) on the helper's task. Taken from the mapped events,
 * so tokens land wherever the mapping put the session, whatever rule put it there.
 */
export function transcriptTargets(payload: Record<string, unknown>, events: readonly NewEvent[]): TranscriptTarget[] {
	const sessionEvent = events.find(event => event.type === EventType.agentEvent);
	if (!sessionEvent || sessionEvent.source !== 'claude') return [];
	const targets: TranscriptTarget[] = [];
	const main = text(payload['transcript_path']);
	if (main) targets.push({path: main, taskId: sessionEvent.taskId, skipSidechain: true});
	const helperPath = text(payload['agent_transcript_path']);
	// The mapping ignores helpers without an agent_type (the /compact SubagentStop): so do tokens.
	const helper = events.find(event => event.type === EventType.registered && event.data['source'] === 'claude-helper');
	if (helperPath && helper) targets.push({path: helperPath, taskId: helper.taskId, skipSidechain: false});
	return targets;
}

function readAt(fd: number, offset: number, length: number): Buffer {
	const buffer = Buffer.allocUnsafe(length);
	let filled = 0;
	while (filled < length) {
		const read = readSync(fd, buffer, filled, length - filled, offset + filled);
		if (read === 0) break;
		filled += read;
	}
	return buffer.subarray(0, filled);
}

/** Finds the offset just past the next newline at or after `from`, or null when the line is still open. */
function nextLineStart(fd: number, from: number, size: number): number | null {
	for (let offset = from; offset < size; offset += SKIP_STEP) {
		const chunk = readAt(fd, offset, Math.min(SKIP_STEP, size - offset));
		const index = chunk.indexOf(NEWLINE);
		if (index >= 0) return offset + index + 1;
	}
	return null;
}

/**
 * Reads what was appended to a transcript since its stored cursor: complete lines only, at most
 * `maxBytes`. Returns null when there is nothing new, or no such file (a `/compact` SubagentStop
 * names one that never exists). A file shorter than its cursor was replaced: read it from the start.
 */
export function readTranscriptSinceCursor(
	ledger: Ledger,
	target: TranscriptTarget,
	maxBytes = MAX_TRANSCRIPT_CHUNK,
): TranscriptRead | null {
	const cursor = ledger.reader.transcriptCursor(target.path);
	let fd: number;
	try {
		fd = openSync(target.path, 'r');
	} catch {
		return null;
	}
	try {
		const size = fstatSync(fd).size;
		const isReplaced = cursor !== undefined && cursor.offset > size;
		const fromOffset = cursor && !isReplaced ? cursor.offset : 0;
		const previousId = cursor && !isReplaced ? cursor.lastMessageId : null;
		if (size <= fromOffset) return null;
		const chunk = readAt(fd, fromOffset, Math.min(maxBytes, size - fromOffset));
		const end = chunk.lastIndexOf(NEWLINE);
		if (end < 0) {
			if (chunk.length < maxBytes) return null; // the last line is still being written
			// One line longer than a chunk: walk past it unread, so the cursor cannot stick on it.
			const skipTo = nextLineStart(fd, fromOffset + chunk.length, size);
			if (skipTo === null) return null;
			const usage = scanTranscriptText('', {lastMessageId: null, skipSidechain: true}).usage;
			return {...target, cursorOffset: cursor?.offset ?? null, fromOffset, toOffset: skipTo, lastMessageId: previousId, usage};
		}
		const scan = scanTranscriptText(chunk.subarray(0, end).toString('utf8'), {
			lastMessageId: previousId,
			skipSidechain: target.skipSidechain,
		});
		return {
			...target,
			cursorOffset: cursor?.offset ?? null,
			fromOffset,
			toOffset: fromOffset + end + 1,
			lastMessageId: scan.lastMessageId,
			usage: scan.usage,
		};
	} finally {
		closeSync(fd);
	}
}

/**
 * Inside the caller's write transaction: moves the cursor and appends the usage as a
 * `task.tokens_reported` DELTA. If another hook moved the cursor since this read, it already
 * counted these lines, so this read is dropped (returns false). The event's dedup key names the
 * file and the offset it starts at, so a span of a transcript is counted at most once.
 */
export function commitTranscriptRead(ledger: Ledger, read: TranscriptRead, event: {at: number; source: string}): boolean {
	if ((ledger.reader.transcriptCursor(read.path)?.offset ?? null) !== read.cursorOffset) return false;
	ledger.writer.saveTranscriptCursor({
		path: read.path,
		taskId: read.taskId,
		offset: read.toOffset,
		lastMessageId: read.lastMessageId,
		at: event.at,
	});
	if (read.usage.messages === 0) return true;
	const tokens = newEvent(
		EventType.tokensReported,
		{...read.usage, transcript: read.path},
		{
			taskId: read.taskId,
			at: event.at,
			source: event.source,
			dedupKey: `tokens:${read.path}:${read.cursorOffset ?? 'new'}>${read.fromOffset}-${read.toOffset}`,
		},
	);
	ledger.writer.append([tokens]);
	return true;
}
