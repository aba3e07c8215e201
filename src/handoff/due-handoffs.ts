import {EventType} from '../core/events.ts';
import {isEnded} from '../core/status.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {autoHandoffKey, writeHandoff} from './handoff-writer.ts';

/**
 * How far back a pass looks for sessions that ended without a handoff: a reconciler that was not
 * running for a while still writes the day's, and a ledger first seen by this build does not
 * write handoffs for its whole history into every repository it names (docs/handoffs.md).
 */
export const HANDOFF_LOOKBACK_MS = 24 * 60 * 60 * 1000;
/** Events can arrive late (a spool folded after the fact): each pass looks this far behind the last. */
const LATE_MS = 10 * 60 * 1000;

const END_TYPES = [EventType.ended, EventType.exited, EventType.failed, EventType.stopped, EventType.lost] as const;

/** A session a handoff is written for: an agent's own session or run, not a helper, a claim, a reviewer or a tripwire. */
function isSession(task: Task): boolean {
	return isEnded(task.status) && task.role === null && task.parentId === null && task.cwd !== null;
}

/** Whether the once-per-session decision (written, or none) is already in the ledger. */
function isDecided(ledger: Ledger, taskId: string): boolean {
	return ledger.reader
		.latestEventsOf(taskId, [EventType.handoffWritten, EventType.handoffSkipped], 1)
		.some(event => (event.type === EventType.handoffSkipped ? true : event.data.trigger === 'auto'));
}

/** A repository that cannot be written (its folder read-only, a full disk) is that session's reason for none, said once. */
function writeOrSay(ledger: Ledger, task: Task, now: number): ReturnType<typeof writeHandoff> {
	try {
		return writeHandoff(ledger, task, 'auto', now);
	} catch (error) {
		const message = (error as Error).message.split('\n')[0] ?? 'unknown error';
		return {outcome: 'none', reason: `could not write the handoff: ${message}`};
	}
}

export type DueHandoffs = {
	/** Writes the handoff of every session that ended since the last pass; returns the paths written. */
	pass(now?: number): string[];
};

/**
 * Writes, once per session, the handoff of each session that has ended (docs/handoffs.md): by a
 * reconciler pass or a board round, never inside the agent's SessionEnd hook. Once means the
 * ledger decides: the handoff's event (or the note that none was due) carries the dedup key
 * `handoff:TASK`, so two writers at once record one and the loser removes its file.
 */
export function dueHandoffs(ledger: Ledger): DueHandoffs {
	let lookedUntil: number | null = null;
	return {
		pass(now = Date.now()) {
			const from = Math.max(now - HANDOFF_LOOKBACK_MS, lookedUntil === null ? 0 : lookedUntil - LATE_MS);
			lookedUntil = now;
			const ids = new Set(ledger.reader.eventsOfType(END_TYPES, from).map(event => event.taskId));
			const written: string[] = [];
			for (const id of ids) {
				const task = ledger.reader.task(id);
				if (!task || !isSession(task) || isDecided(ledger, id)) continue;
				const result = writeOrSay(ledger, task, now);
				if (result.outcome === 'written') written.push(result.path);
				if (result.outcome === 'none')
					ledger.writer.append([
						{
							taskId: id,
							type: EventType.handoffSkipped,
							at: now,
							source: 'controlroom',
							data: {reason: result.reason},
							dedupKey: autoHandoffKey(id),
						},
					]);
			}
			return written;
		},
	};
}
