import {EventType} from '../core/events.ts';
import {parseTraceparent} from '../core/otel/trace-context.ts';
import {traceOfTask, type TaskTrace, type TraceFacts} from '../core/otel/trace-chain.ts';
import type {Ledger} from './open-ledger.ts';

/** What a task's registration says about its trace, read from the ledger (null: no such task). */
export function traceFactsOf(ledger: Ledger, taskId: string): TraceFacts | null {
	const registered = ledger.reader.firstEventOf(taskId, EventType.registered);
	if (!registered) return null;
	return {
		traceId: registered.data.traceId ?? null,
		parentSpanId: registered.data.parentSpanId ?? null,
		rerunOf: registered.data.rerunOf ?? null,
		parentId: registered.data.parentId ?? null,
	};
}

/**
 * The trace a run joins (docs/otel.md, "One trace per piece of work"): its contract's `trace`;
 * else the trace of the run it does again or the task it works for; else the TRACEPARENT the
 * wrapper itself was started with (a traced CI job); else a new trace named after the task.
 */
export function runTrace(
	ledger: Ledger,
	taskId: string,
	given: {
		readonly contractTrace?: TaskTrace | null;
		readonly rerunOf?: string | null;
		readonly parentId?: string | null;
	},
	env: NodeJS.ProcessEnv = process.env,
): TaskTrace {
	if (given.contractTrace) return given.contractTrace;
	const follows = given.rerunOf ?? given.parentId ?? null;
	if (follows === null) {
		const inbound = parseTraceparent(env['TRACEPARENT']);
		if (inbound) return {traceId: inbound.traceId, parentSpanId: inbound.spanId};
	}
	return traceOfTask(taskId, id =>
		id === taskId
			? {traceId: null, parentSpanId: null, rerunOf: given.rerunOf ?? null, parentId: given.parentId ?? null}
			: traceFactsOf(ledger, id),
	);
}
