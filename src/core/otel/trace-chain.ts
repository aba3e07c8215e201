import {isTraceId, taskSpanId, traceIdFor} from './trace-context.ts';

/**
 * Which trace a task belongs to and which span parents its own (docs/otel.md, "One trace per
 * piece of work"): what its registration recorded (a contract's `trace`, the run it does again,
 * the task it works for, the wrapper's own TRACEPARENT), else the same rule applied to the task it
 * does again or works for, else a trace of its own named after it. `run` and `otel export` use the
 * same rule, so the TRACEPARENT an agent got and the exported span agree.
 */

/** What a task's `task.registered` says about its place in the work. */
export type TraceFacts = {
	readonly traceId: string | null;
	readonly parentSpanId: string | null;
	readonly rerunOf: string | null;
	readonly parentId: string | null;
};

export type TaskTrace = {readonly traceId: string; readonly parentSpanId: string | null};

/** The longest chain of re-runs and parents followed (a loop in a damaged ledger ends too). */
const MAX_CHAIN = 64;

export function traceOfTask(taskId: string, factsOf: (taskId: string) => TraceFacts | null): TaskTrace {
	const seen = new Set<string>();
	let id = taskId;
	let parentSpanId: string | null | undefined;
	for (let step = 0; step < MAX_CHAIN && !seen.has(id); step++) {
		seen.add(id);
		const facts = factsOf(id);
		if (facts === null) break;
		// The first task of the chain that names its own parent span gives the starting task its parent.
		if (parentSpanId === undefined && step === 0 && facts.parentSpanId !== null) parentSpanId = facts.parentSpanId;
		if (isTraceId(facts.traceId)) return {traceId: facts.traceId, parentSpanId: parentSpanId ?? facts.parentSpanId};
		const next = facts.rerunOf ?? facts.parentId;
		if (next === null) break;
		// A re-run or a reviewer hangs under the task it follows.
		if (step === 0) parentSpanId = taskSpanId(next);
		id = next;
	}
	return {traceId: traceIdFor(id), parentSpanId: parentSpanId ?? null};
}
