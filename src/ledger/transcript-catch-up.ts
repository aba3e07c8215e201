import type {Ledger} from './open-ledger.ts';
import {
	commitTranscriptRead,
	helpersFirst,
	MAX_TRANSCRIPT_CHUNK,
	projectsRootOf,
	readTranscriptSinceCursor,
} from './transcript-tokens.ts';

/**
 * How long after its task ended a transcript is still read: Claude writes its own count of the
 * session (`cost-state`) as its process ends, about when the SessionEnd hook runs.
 */
export const FOLLOW_AFTER_END_MS = 60_000;

/** At most this many chunks (MAX_TRANSCRIPT_CHUNK each) of one transcript are read by one catch-up. */
const CHUNKS_PER_CATCH_UP = 16;

/** A transcript being followed and the task its tokens count on. */
export type FollowedTranscript = {readonly path: string; readonly taskId: string};

/**
 * The transcripts of live sessions, from their cursors: every task not ended (or ended within
 * FOLLOW_AFTER_END_MS), or only `taskIds` when given (a wrapper follows its own run's).
 */
export function liveTranscripts(ledger: Ledger, now: number, taskIds?: readonly string[]): FollowedTranscript[] {
	const ids = taskIds ?? ledger.reader.tasksForView(now - FOLLOW_AFTER_END_MS).map(task => task.id);
	return ledger.reader.transcriptsOf(ids);
}

/**
 * Reads what every followed transcript grew by since its cursor and records it as tokens, each in
 * its own transaction, dated when its newest line was written (never later than `now`). The catch
 * up every fold and every budget decision makes, so a count is never older than the transcript.
 * A transcript is opened under the `projects/` folder it was first read under (agent-files.ts).
 * Returns how many reads were recorded; never throws (tokens are optional).
 */
export function catchUpTranscripts(
	ledger: Ledger,
	options: {
		readonly now?: number;
		readonly taskIds?: readonly string[];
		readonly transcripts?: readonly FollowedTranscript[];
	} = {},
): number {
	const now = options.now ?? Date.now();
	let recorded = 0;
	let followed: readonly FollowedTranscript[];
	try {
		followed = options.transcripts ?? liveTranscripts(ledger, now, options.taskIds);
	} catch {
		return 0;
	}
	for (const {path, taskId} of [...followed].sort((a, b) => helpersFirst(a.path, b.path))) {
		const root = projectsRootOf(path);
		if (root === null) continue;
		// A helper's own transcript is all its own; a session's skips the lines of its helpers.
		const target = {path, taskId, skipSidechain: !path.includes('/subagents/'), roots: [root]};
		try {
			// A long backlog comes a chunk at a time; a catch-up reads a bounded number of them.
			for (let chunk = 0; chunk < CHUNKS_PER_CATCH_UP; chunk += 1) {
				const read = readTranscriptSinceCursor(ledger, target, MAX_TRANSCRIPT_CHUNK);
				if (!read || (read.toOffset === read.fromOffset && read.cursorOffset !== null)) break;
				const at = Math.min(now, read.lastAt ?? now);
				if (!ledger.writer.transaction(() => commitTranscriptRead(ledger, read, {at, source: 'claude'}))) break;
				recorded += 1;
			}
		} catch {
			// A busy ledger or a transcript that cannot be read now: the next catch-up reads from the same cursor.
		}
	}
	return recorded;
}
