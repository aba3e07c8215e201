import {setTimeout as sleep} from 'node:timers/promises';
import type {CodexUsage} from '../core/codex-usage.ts';
import {EventType} from '../core/events.ts';
import {isEnded} from '../core/status.ts';
import type {Ledger} from '../ledger/open-ledger.ts';

/**
 * The last cumulative usage recorded for a Codex thread, by any run: `codex exec resume` reports
 * the thread's total so far, and only the new turns belong to the new run.
 */
export function previousThreadUsage(ledger: Ledger, threadId: string): CodexUsage | undefined {
	const cumulative = ledger.reader.latestThreadUsage(threadId)?.data.cumulative;
	const input = cumulative?.input;
	const output = cumulative?.output;
	return typeof input === 'number' && typeof output === 'number' ? {input, output} : undefined;
}

/** A stop `controlroom stop` (or the board) asked for: its signal, its grace, and when. */
export type StopRequest = {readonly signal: string; readonly graceMs: number; readonly at: number};

/** The stop asked for this task, if one was. */
export function latestStopRequest(ledger: Ledger, taskId: string): StopRequest | null {
	const [request] = ledger.reader.latestEventsOf(taskId, [EventType.stopRequested], 1);
	if (!request) return null;
	return {signal: request.data.signal ?? 'SIGTERM', graceMs: request.data.graceMs ?? 0, at: request.at};
}

/**
 * Waits (looking every 25 ms: another process writes it, and nothing announces a commit) until the
 * task has ended in the ledger or `deadline` passes; returns the ended task's signal, or undefined.
 */
export async function awaitRecordedEnd(
	ledger: Ledger,
	taskId: string,
	deadline: number,
): Promise<{signal: string | null} | undefined> {
	for (;;) {
		const task = ledger.reader.task(taskId);
		if (task && isEnded(task.status)) return {signal: task.signal};
		if (Date.now() >= deadline) return undefined;
		await sleep(25);
	}
}
