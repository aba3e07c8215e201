import {sha256} from '@noble/hashes/sha2.js';
import {bytesToHex, utf8ToBytes} from '@noble/hashes/utils.js';

/**
 * Trace and span ids for controlroom's spans (docs/otel.md, "Trace ids"): derived from ledger ids
 * by hash, so the same task has the same span id in the TRACEPARENT `run` gave its agent, in every
 * export, and after a restart (a collector that gets a span twice sees the same ids).
 */

export type TraceParent = {readonly traceId: string; readonly spanId: string};

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

function hexOf(text: string, length: number): string {
	const hex = bytesToHex(sha256(utf8ToBytes(text))).slice(0, length);
	// An all-zero id is invalid in W3C trace context; a hash never gives one in practice, but never send it.
	return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** A new trace for work that has none: from the id of the task (or order) it starts with. */
export function traceIdFor(rootId: string): string {
	return hexOf(`controlroom trace ${rootId}`, 32);
}

/** The span of a ledger item: a task (`task:ID`), a tool call, a decision, an effect, a stop, a review. */
export function spanIdFor(item: string): string {
	return hexOf(`controlroom span ${item}`, 16);
}

/** The span id of a task's `invoke_agent` span: what its agent's TRACEPARENT names as parent. */
export function taskSpanId(taskId: string): string {
	return spanIdFor(`task:${taskId}`);
}

export function isTraceId(value: unknown): value is string {
	return typeof value === 'string' && TRACE_ID.test(value) && !/^0+$/.test(value);
}

export function isSpanId(value: unknown): value is string {
	return typeof value === 'string' && SPAN_ID.test(value) && !/^0+$/.test(value);
}

/** `TRACEPARENT` (W3C trace context, version 00, sampled). */
export function traceparentOf(parent: TraceParent): string {
	return `00-${parent.traceId}-${parent.spanId}-01`;
}

/** A TRACEPARENT read back (the wrapper's own environment, a CI job's trace), or null when it is not one. */
export function parseTraceparent(value: string | undefined | null): TraceParent | null {
	const match = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec((value ?? '').trim().toLowerCase());
	if (!match || match[1] === 'ff') return null;
	const [, , traceId, spanId] = match;
	return isTraceId(traceId) && isSpanId(spanId) ? {traceId, spanId} : null;
}

/** A contract's `trace` field (`trace_id`, `parent_span`) as a parent; a parent span that is no W3C span id is left out. */
export function contractTrace(trace: {readonly trace_id: string; readonly parent_span?: string | undefined} | undefined | null): {
	readonly traceId: string;
	readonly parentSpanId: string | null;
} | null {
	if (!trace) return null;
	const given = trace.trace_id.trim().toLowerCase();
	// A label that is not a W3C id still names one trace: the same label, the same id.
	const traceId = isTraceId(given) ? given : traceIdFor(`contract ${trace.trace_id}`);
	const span = trace.parent_span?.trim().toLowerCase();
	return {traceId, parentSpanId: isSpanId(span) ? span : null};
}
