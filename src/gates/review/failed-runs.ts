import {FAILED_RUNS_NEED, failedRunsText, isAtFailedRunLimit} from '../../core/contract/caps.ts';
import {EventType} from '../../core/events.ts';
import {builtInOf} from '../../core/settings.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';

/** The built-in failed-run limit (docs/config.md, `failedRunLimit`); the commands pass the configured one. */
export const DEFAULT_FAILED_RUN_LIMIT = builtInOf('failedRunLimit');

/** How far a chain of runs is followed: far past any limit a person sets, and bounded against a cycle. */
const MAX_CHAIN = 1000;

/**
 * The runs of one chain: the first run and every run started again from it (a send-back's, a fix
 * round's), found forward from the events that started each (`work.sent_back` `rerunTaskId`,
 * `review.fix_round` `workerTaskId`), so only the chain's own tasks are read.
 */
function chainOf(ledger: Ledger, rootId: string): string[] {
	const seen = new Set<string>([rootId]);
	const queue = [rootId];
	while (queue.length > 0 && seen.size < MAX_CHAIN) {
		const id = queue.shift() ?? '';
		for (const event of ledger.reader.latestEventsOf(id, [EventType.workSentBack, EventType.reviewFixRound], MAX_CHAIN)) {
			const next =
				event.type === EventType.workSentBack
					? (event.data as {rerunTaskId?: string | null}).rerunTaskId
					: (event.data as {workerTaskId?: string | null}).workerTaskId;
			if (typeof next === 'string' && !seen.has(next)) {
				seen.add(next);
				queue.push(next);
			}
		}
	}
	return [...seen];
}

/** How many runs of the chain failed. */
export function failedRunsOf(ledger: Ledger, rootId: string): number {
	return chainOf(ledger, rootId).filter(id => ledger.reader.task(id)?.status === 'failed').length;
}

/**
 * Why the chain is not run again (it failed `limit` times), or null; the first refusal also puts it
 * in Needs you (a `need.raised` on the root, once), where it stays until acknowledged.
 */
export function failedRunsRefusal(ledger: Ledger, rootId: string, limit: number, source: string, at: number): string | null {
	const failures = failedRunsOf(ledger, rootId);
	if (!isAtFailedRunLimit(failures, limit)) return null;
	const message = failedRunsText(rootId, failures, limit);
	const raised = ledger.reader
		.latestEventsOf(rootId, [EventType.needRaised], 50)
		.some(event => event.data.kind === FAILED_RUNS_NEED);
	if (!raised)
		ledger.writer.append([
			{
				taskId: rootId,
				type: EventType.needRaised,
				at,
				source,
				data: {lane: 'needs', kind: FAILED_RUNS_NEED, message, actor: null},
			},
		]);
	return message;
}
