import type {CodexUsage} from '../core/codex-usage.ts';
import {EventType} from '../core/events.ts';
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

/** The signal `controlroom stop` asked for this task, if it asked. */
export function latestStopRequest(ledger: Ledger, taskId: string): string | null {
	const [request] = ledger.reader.latestEventsOf(taskId, [EventType.stopRequested], 1);
	if (!request) return null;
	return request.data.signal ?? 'SIGTERM';
}
