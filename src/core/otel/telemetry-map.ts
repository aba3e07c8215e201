import {eventBody, EventType, type EventBody} from '../events.ts';
import type {AttrValue, Attrs, OtlpLogRecord, OtlpMetricPoint} from './otlp-records.ts';

/**
 * What an agent's own telemetry says, mapped onto the ledger's events (docs/otel.md, "Ingest"):
 * Claude Code's and Codex's log events and Claude's cost and token counters. Everything else they
 * send (start-up noise, prompts, hook timings, Codex's internal counters) is counted and dropped.
 */

export type TelemetrySource = 'claude' | 'codex';

/** One mapped record: whose it is, and the event it becomes. */
export type TelemetryFact = {
	readonly source: TelemetrySource;
	/** The agent's session (Claude's `session.id`, Codex's `conversation.id`). */
	readonly sessionId: string;
	/** The controlroom task `run --otel` named in OTEL_RESOURCE_ATTRIBUTES (`controlroom.task_id`), if any. */
	readonly taskHint: string | null;
	readonly at: number;
	/** What makes the record itself, for its dedup key: a request id where there is one, else the record's content. */
	readonly identity: string;
	readonly body: EventBody;
};

/** The resource attribute `run --otel` sets so that a run's telemetry lands on its task (docs/otel.md). */
export const TASK_ATTRIBUTE = 'controlroom.task_id';

/** The longest text kept from a telemetry attribute (names, ids, models). */
const MAX_TEXT = 200;

function str(attrs: Attrs, key: string): string | null {
	const value = attrs[key];
	if (typeof value === 'string' && value !== '') return value.slice(0, MAX_TEXT);
	if (typeof value === 'number') return String(value);
	return null;
}

/** A number that may arrive as a string in OTLP/JSON (`"69"`). */
function num(attrs: Attrs, key: string): number | null {
	const value: AttrValue | undefined = attrs[key];
	if (typeof value === 'number') return Number.isFinite(value) ? value : null;
	if (typeof value === 'string' && value.trim() !== '') {
		const parsed = Number(value);
		return Number.isFinite(parsed) ? parsed : null;
	}
	return null;
}

function bool(attrs: Attrs, key: string): boolean | null {
	const value = attrs[key];
	if (typeof value === 'boolean') return value;
	if (value === 'true') return true;
	if (value === 'false') return false;
	return null;
}

function sum(...values: (number | null)[]): number | null {
	return values.every(value => value === null) ? null : values.reduce<number>((total, value) => total + (value ?? 0), 0);
}

function taskHint(record: {readonly resource: Attrs; readonly attrs: Attrs}): string | null {
	return str(record.resource, TASK_ATTRIBUTE) ?? str(record.attrs, TASK_ATTRIBUTE);
}

/** Claude's event name: attribute `event.name`, else the body `claude_code.NAME`. */
function claudeEvent(record: OtlpLogRecord): string | null {
	const name = str(record.attrs, 'event.name');
	if (name) return name.replace(/^claude_code\./, '');
	return record.body?.startsWith('claude_code.') ? record.body.slice('claude_code.'.length) : null;
}

function claudeFact(record: OtlpLogRecord, event: string, sessionId: string): TelemetryFact | null {
	const a = record.attrs;
	const base = {source: 'claude' as const, sessionId, taskHint: taskHint(record), at: record.at};
	const agentId = str(a, 'agent_id');
	if (event === 'api_request') {
		const requestId = str(a, 'request_id');
		const cacheRead = num(a, 'cache_read_tokens');
		const cacheCreation = num(a, 'cache_creation_tokens');
		return {
			...base,
			identity: requestId ? `request:${agentId ?? ''}:${requestId}` : `record:${JSON.stringify(a)}`,
			body: eventBody(EventType.telemetryRequest, {
				requestId,
				model: str(a, 'model'),
				// A transcript's input counts cache reads and writes too (docs/hooks.md): the same sum here.
				input: sum(num(a, 'input_tokens'), cacheRead, cacheCreation),
				output: num(a, 'output_tokens'),
				cacheRead,
				cacheCreation,
				costUsd: num(a, 'cost_usd'),
				durationMs: num(a, 'duration_ms'),
				sessionId,
				agentId,
				traceId: record.traceId,
			}),
		};
	}
	if (event === 'tool_decision' || event === 'tool_result') {
		const toolUseId = str(a, 'tool_use_id');
		return {
			...base,
			identity: toolUseId ? `${event}:${toolUseId}` : `record:${JSON.stringify(a)}`,
			body: eventBody(EventType.telemetryTool, {
				event,
				toolName: str(a, 'tool_name'),
				toolUseId,
				decision: str(a, 'decision'),
				decisionSource: str(a, 'source'),
				success: bool(a, 'success'),
				durationMs: num(a, 'duration_ms'),
				sessionId,
				agentId,
			}),
		};
	}
	return null;
}

function codexFact(record: OtlpLogRecord, event: string, sessionId: string): TelemetryFact | null {
	const a = record.attrs;
	const base = {source: 'codex' as const, sessionId, taskHint: taskHint(record), at: record.at};
	// Codex sends no response id: a record is known by its content (a second copy of a batch adds nothing).
	const identity = `record:${event}:${record.at}:${JSON.stringify(a)}`;
	if (event === 'codex.sse_event') {
		// Two `response.completed` records per response: only the one with counts is the usage.
		if (str(a, 'event.kind') !== 'response.completed' || num(a, 'input_token_count') === null) return null;
		return {
			...base,
			identity,
			body: eventBody(EventType.telemetryRequest, {
				requestId: null,
				model: str(a, 'model'),
				input: num(a, 'input_token_count'),
				output: num(a, 'output_token_count'),
				cacheRead: num(a, 'cached_token_count'),
				cacheCreation: num(a, 'cache_write_token_count'),
				costUsd: null,
				durationMs: num(a, 'duration_ms'),
				sessionId,
				agentId: null,
				traceId: record.traceId,
			}),
		};
	}
	if (event === 'codex.tool_decision' || event === 'codex.tool_result') {
		// `arguments` and `output` come in clear: never kept (docs/otel.md).
		return {
			...base,
			identity,
			body: eventBody(EventType.telemetryTool, {
				event: event.slice('codex.'.length),
				toolName: str(a, 'tool_name'),
				toolUseId: str(a, 'call_id'),
				decision: str(a, 'decision'),
				decisionSource: str(a, 'source'),
				success: bool(a, 'success'),
				durationMs: num(a, 'duration_ms'),
				sessionId,
				agentId: null,
			}),
		};
	}
	return null;
}

/** A log record as a ledger event, or null when it is not one controlroom records. */
export function factOfLogRecord(record: OtlpLogRecord): TelemetryFact | null {
	const codexEvent = str(record.attrs, 'event.name');
	if (codexEvent?.startsWith('codex.')) {
		const conversation = str(record.attrs, 'conversation.id');
		return conversation ? codexFact(record, codexEvent, conversation) : null;
	}
	const sessionId = str(record.attrs, 'session.id');
	const event = claudeEvent(record);
	return sessionId && event ? claudeFact(record, event, sessionId) : null;
}

/** Claude's counters kept as a cross-check of the requests: money and tokens. */
const KEPT_METRICS = new Set(['claude_code.cost.usage', 'claude_code.token.usage']);

/** A metric point as a ledger event: only Claude's cost and token counters, delta points. */
export function factOfMetricPoint(point: OtlpMetricPoint): TelemetryFact | null {
	if (!KEPT_METRICS.has(point.name) || point.temporality === 2) return null;
	const sessionId = str(point.attrs, 'session.id');
	if (!sessionId) return null;
	return {
		source: 'claude',
		sessionId,
		taskHint: taskHint(point),
		at: point.at,
		identity: `metric:${point.name}:${point.at}:${JSON.stringify(point.attrs)}:${point.value}`,
		body: eventBody(EventType.telemetryMetric, {
			name: point.name,
			value: point.value,
			unit: point.unit,
			kind: str(point.attrs, 'type') ?? str(point.attrs, 'query_source'),
			model: str(point.attrs, 'model'),
			sessionId,
		}),
	};
}
