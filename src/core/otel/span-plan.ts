import {
	ATTR_GEN_AI_AGENT_ID,
	ATTR_GEN_AI_AGENT_NAME,
	ATTR_GEN_AI_CONVERSATION_ID,
	ATTR_GEN_AI_OPERATION_NAME,
	ATTR_GEN_AI_PROVIDER_NAME,
	ATTR_GEN_AI_TOOL_CALL_ID,
	ATTR_GEN_AI_TOOL_NAME,
	ATTR_GEN_AI_USAGE_INPUT_TOKENS,
	ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
	GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
	GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
	GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
	GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
} from '@opentelemetry/semantic-conventions/incubating';
import {argsHash} from '../decisions/args-hash.ts';
import {EventType, type EventOfType, type LedgerEvent} from '../events.ts';
import {isEnded} from '../status.ts';
import type {Task} from '../task.ts';
import type {TaskTrace} from './trace-chain.ts';
import {spanIdFor, taskSpanId, traceIdFor} from './trace-context.ts';

/**
 * Which spans a ledger event closes, and what each says (docs/otel.md, "Export"): a span is
 * planned when the event that ends it is read, so one pass over the ledger by seq plans each span
 * exactly once. Pure: the ledger's reads come in as `SpanLookups`.
 */

export type SpanValue = string | number | boolean;

export type PlannedSpan = {
	readonly name: string;
	readonly traceId: string;
	readonly spanId: string;
	readonly parentSpanId: string | null;
	readonly startMs: number;
	readonly endMs: number;
	readonly isError: boolean;
	readonly statusMessage: string | null;
	readonly attributes: Readonly<Record<string, SpanValue>>;
};

export type SpanLookups = {
	task(taskId: string): Task | undefined;
	traceOf(taskId: string): TaskTrace;
	/** One task's (or order's) events, oldest first. */
	eventsOf(taskId: string): readonly LedgerEvent[];
	preToolUse(toolUseId: string): EventOfType<'agent.event'> | undefined;
	/** The task an order works for (its worker's task, or a derived order's parent's), or null. */
	orderTask(orderId: string): string | null;
	readonly host: string;
};

/**
 * The GenAI registry's `plan` operation ("Agent planning or task decomposition phase",
 * semantic-conventions-genai, stability development): not yet among
 * @opentelemetry/semantic-conventions 1.45.0's values, so written here (docs/otel.md).
 */
export const GEN_AI_OPERATION_NAME_VALUE_PLAN = 'plan';

/** controlroom's own attributes: no GenAI convention covers approvals yet (semantic-conventions-genai#95). */
export const CR = {
	taskId: 'controlroom.task.id',
	status: 'controlroom.task.status',
	source: 'controlroom.task.source',
	host: 'controlroom.host',
	costUsd: 'controlroom.cost_usd',
	exitCode: 'controlroom.exit_code',
	endReason: 'controlroom.end_reason',
	approver: 'controlroom.approval.approver',
	answer: 'controlroom.approval.answer',
	argsHash: 'controlroom.approval.args_hash',
	waitMs: 'controlroom.approval.wait_ms',
	reason: 'controlroom.approval.reason',
	kind: 'controlroom.decision.kind',
	decisionId: 'controlroom.decision.id',
	effectId: 'controlroom.effect.id',
	orderId: 'controlroom.order.id',
	upstream: 'controlroom.effect.upstream',
	reviewId: 'controlroom.review.id',
	outcome: 'controlroom.review.outcome',
	rounds: 'controlroom.review.rounds',
	signal: 'controlroom.stop.signal',
	requestedBy: 'controlroom.stop.requested_by',
} as const;

/** The events that end a task: its `invoke_agent` span is planned at the first of them. */
const ENDING = new Set<string>([
	EventType.exited,
	EventType.failed,
	EventType.stopped,
	EventType.lost,
	EventType.ended,
	EventType.vanished,
	EventType.merged,
]);

function providerOf(task: Task): string | null {
	const agent = task.source === 'wrapper' ? null : task.source;
	if (agent === 'claude' || task.id.startsWith('c-')) return GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC;
	if (agent === 'codex' || task.id.startsWith('x-')) return GEN_AI_PROVIDER_NAME_VALUE_OPENAI;
	return null;
}

function agentNameOf(task: Task, events: readonly LedgerEvent[]): string {
	const registered = events.find(event => event.type === EventType.registered);
	const agent = registered?.type === EventType.registered ? registered.data.agent : null;
	if (agent && agent !== 'generic') return agent;
	return task.source === 'wrapper' ? 'agent' : task.source;
}

function compact(attributes: Record<string, SpanValue | null | undefined>): Record<string, SpanValue> {
	const kept: Record<string, SpanValue> = {};
	for (const [key, value] of Object.entries(attributes)) if (value !== null && value !== undefined) kept[key] = value;
	return kept;
}

function taskSpan(event: LedgerEvent, lookups: SpanLookups): PlannedSpan | null {
	const task = lookups.task(event.taskId);
	if (!task || !isEnded(task.status)) return null;
	const events = lookups.eventsOf(task.id);
	// Planned once: at the task's first ending event (a wrapper's exit and its session's end are one run).
	const firstEnd = events.find(candidate => ENDING.has(candidate.type));
	if (firstEnd && firstEnd.seq !== event.seq) return null;
	const trace = lookups.traceOf(task.id);
	const agent = agentNameOf(task, events);
	const isError = task.status === 'failed' || task.status === 'lost' || task.status === 'stopped';
	return {
		name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${agent}`,
		traceId: trace.traceId,
		spanId: taskSpanId(task.id),
		parentSpanId: trace.parentSpanId,
		startMs: task.startedAt ?? task.createdAt,
		endMs: Math.max(task.endedAt ?? event.at, task.startedAt ?? task.createdAt),
		isError,
		statusMessage: isError ? (task.error ?? task.endReason ?? task.status) : null,
		attributes: compact({
			[ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
			[ATTR_GEN_AI_AGENT_NAME]: agent,
			[ATTR_GEN_AI_AGENT_ID]: task.id,
			[ATTR_GEN_AI_CONVERSATION_ID]: task.sessionId,
			[ATTR_GEN_AI_PROVIDER_NAME]: providerOf(task),
			[ATTR_GEN_AI_USAGE_INPUT_TOKENS]: task.tokens.input,
			[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: task.tokens.output,
			[CR.taskId]: task.id,
			[CR.status]: task.status,
			[CR.source]: task.source,
			[CR.host]: lookups.host,
			[CR.costUsd]: task.telemetry?.costUsd,
			[CR.exitCode]: task.exitCode,
			[CR.endReason]: task.endReason,
		}),
	};
}

function payloadText(event: EventOfType<'agent.event'>, key: string): string | null {
	const payload = event.data.payload;
	if (payload === null || typeof payload !== 'object') return null;
	const value = (payload as Record<string, unknown>)[key];
	return typeof value === 'string' && value !== '' ? value : null;
}

function toolSpan(event: EventOfType<'agent.event'>, lookups: SpanLookups): PlannedSpan | null {
	if (event.data.event !== 'PostToolUse' && event.data.event !== 'PostToolUseFailure') return null;
	const callId = payloadText(event, 'tool_use_id');
	if (callId === null) return null;
	const started = lookups.preToolUse(callId);
	const tool = event.data.toolName ?? payloadText(event, 'tool_name') ?? 'tool';
	const trace = lookups.traceOf(event.taskId);
	const isError = event.data.event === 'PostToolUseFailure';
	return {
		name: `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${tool}`,
		traceId: trace.traceId,
		spanId: spanIdFor(`tool:${event.taskId}:${callId}`),
		parentSpanId: taskSpanId(event.taskId),
		startMs: Math.min(started?.at ?? event.at, event.at),
		endMs: event.at,
		isError,
		statusMessage: isError ? 'the tool call failed' : null,
		attributes: compact({
			[ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
			[ATTR_GEN_AI_TOOL_NAME]: tool,
			[ATTR_GEN_AI_TOOL_CALL_ID]: callId,
			[CR.taskId]: event.taskId,
		}),
	};
}

function decisionSpan(
	event: EventOfType<'decision.answered'> | EventOfType<'decision.withdrawn'>,
	lookups: SpanLookups,
): PlannedSpan | null {
	const decisionId = event.data.decisionId;
	if (!decisionId) return null;
	const asked = lookups
		.eventsOf(event.taskId)
		.find(
			(candidate): candidate is EventOfType<'decision.asked'> =>
				candidate.type === EventType.decisionAsked && candidate.data.decisionId === decisionId,
		);
	if (!asked) return null;
	const trace = lookups.traceOf(event.taskId);
	const answered = event.type === EventType.decisionAnswered ? event : null;
	const isDenied = answered?.data.answer === 'deny';
	return {
		name: `controlroom.decision ${asked.data.kind ?? 'question'}`,
		traceId: trace.traceId,
		spanId: spanIdFor(`decision:${decisionId}`),
		parentSpanId: taskSpanId(event.taskId),
		startMs: asked.at,
		endMs: Math.max(event.at, asked.at),
		isError: false,
		statusMessage: null,
		attributes: compact({
			[CR.decisionId]: decisionId,
			[CR.kind]: asked.data.kind,
			[ATTR_GEN_AI_TOOL_NAME]: asked.data.tool,
			[ATTR_GEN_AI_TOOL_CALL_ID]: asked.data.toolUseId,
			[CR.argsHash]: asked.data.argsHash,
			[CR.approver]: answered?.data.by,
			[CR.answer]: answered ? (isDenied ? 'deny' : 'allow') : 'withdrawn',
			[CR.reason]: answered ? answered.data.reason : event.type === EventType.decisionWithdrawn ? event.data.why : null,
			[CR.waitMs]: Math.max(0, event.at - asked.at),
			[CR.taskId]: event.taskId,
		}),
	};
}

/** Held effects settled by an approval, a send-back or their expiry: one span per effect, from held to settled. */
function effectSpans(
	event: EventOfType<'order.approved'> | EventOfType<'order.sent_back'> | EventOfType<'effect.expired'>,
	lookups: SpanLookups,
): PlannedSpan[] {
	const orderId = event.taskId;
	const ids = event.type === EventType.effectExpired ? [event.data.id ?? ''] : (event.data.ids ?? []);
	const held = lookups
		.eventsOf(orderId)
		.filter((candidate): candidate is EventOfType<'effect.held'> => candidate.type === EventType.effectHeld);
	const worker = lookups.orderTask(orderId);
	const trace = worker === null ? {traceId: traceIdFor(orderId), parentSpanId: null} : lookups.traceOf(worker);
	const answer = event.type === EventType.orderApproved ? 'allow' : event.type === EventType.orderSentBack ? 'deny' : 'expired';
	const spans: PlannedSpan[] = [];
	for (const id of ids) {
		const effect = held.find(candidate => candidate.data.id === id);
		if (!effect) continue;
		spans.push({
			name: `controlroom.effect ${effect.data.tool ?? 'call'}`,
			traceId: trace.traceId,
			spanId: spanIdFor(`effect:${orderId}:${id}`),
			parentSpanId: worker === null ? trace.parentSpanId : taskSpanId(worker),
			startMs: effect.at,
			endMs: Math.max(event.at, effect.at),
			isError: false,
			statusMessage: null,
			attributes: compact({
				[CR.effectId]: id,
				[CR.orderId]: orderId,
				[CR.upstream]: effect.data.upstream,
				[ATTR_GEN_AI_TOOL_NAME]: effect.data.tool,
				[CR.argsHash]: argsHash(effect.data.args ?? null),
				[CR.approver]: event.type === EventType.effectExpired ? null : event.data.by,
				[CR.answer]: answer,
				[CR.reason]: event.type === EventType.orderSentBack ? event.data.reason : null,
				[CR.waitMs]: Math.max(0, event.at - effect.at),
				[CR.taskId]: worker,
			}),
		});
	}
	return spans;
}

function stopSpan(event: EventOfType<'task.stopped'>, lookups: SpanLookups): PlannedSpan | null {
	const requested = lookups
		.eventsOf(event.taskId)
		.filter((candidate): candidate is EventOfType<'task.stop_requested'> => candidate.type === EventType.stopRequested)
		.at(-1);
	const trace = lookups.traceOf(event.taskId);
	const start = requested?.at ?? event.at;
	return {
		name: 'controlroom.stop',
		traceId: trace.traceId,
		spanId: spanIdFor(`stop:${event.taskId}:${event.seq}`),
		parentSpanId: taskSpanId(event.taskId),
		startMs: Math.min(start, event.at),
		endMs: event.at,
		isError: false,
		statusMessage: null,
		attributes: compact({
			[CR.signal]: event.data.signal,
			[CR.reason]: event.data.reason,
			[CR.requestedBy]: requested?.source ?? event.source,
			[CR.waitMs]: Math.max(0, event.at - start),
			[CR.taskId]: event.taskId,
		}),
	};
}

function reviewSpan(
	event: EventOfType<'review.concluded'> | EventOfType<'plan.review_concluded'>,
	lookups: SpanLookups,
): PlannedSpan {
	const events = lookups.eventsOf(event.taskId);
	const reviewId = event.type === EventType.reviewConcluded ? (event.data.reviewId ?? null) : null;
	const started =
		event.type === EventType.reviewConcluded
			? events.find(candidate => candidate.type === EventType.reviewStarted && candidate.data.reviewId === reviewId)
			: events.find(candidate => candidate.type === EventType.planReviewRound);
	const trace = lookups.traceOf(event.taskId);
	const start = Math.min(started?.at ?? event.at, event.at);
	const isPlan = event.type === EventType.planReviewConcluded;
	return {
		name: `${GEN_AI_OPERATION_NAME_VALUE_PLAN} ${isPlan ? 'plan review' : 'review'}`,
		traceId: trace.traceId,
		spanId: spanIdFor(`review:${event.taskId}:${reviewId ?? event.seq}`),
		parentSpanId: taskSpanId(event.taskId),
		startMs: start,
		endMs: event.at,
		isError: false,
		statusMessage: null,
		attributes: compact({
			[ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_PLAN,
			[CR.reviewId]: reviewId,
			[CR.outcome]: event.data.outcome,
			[CR.rounds]: event.data.rounds,
			[CR.taskId]: event.taskId,
		}),
	};
}

/** The spans `event` ends. */
export function spansClosedBy(event: LedgerEvent, lookups: SpanLookups): PlannedSpan[] {
	const spans: (PlannedSpan | null)[] = [];
	if (ENDING.has(event.type)) spans.push(taskSpan(event, lookups));
	// Only a few types close a span: an `if` per kind (a switch would have to name every event type).
	if (event.type === EventType.agentEvent) spans.push(toolSpan(event, lookups));
	else if (event.type === EventType.decisionAnswered || event.type === EventType.decisionWithdrawn)
		spans.push(decisionSpan(event, lookups));
	else if (
		event.type === EventType.orderApproved ||
		event.type === EventType.orderSentBack ||
		event.type === EventType.effectExpired
	)
		spans.push(...effectSpans(event, lookups));
	else if (event.type === EventType.stopped) spans.push(stopSpan(event, lookups));
	else if (event.type === EventType.reviewConcluded || event.type === EventType.planReviewConcluded)
		spans.push(reviewSpan(event, lookups));
	return spans.filter(span => span !== null);
}
