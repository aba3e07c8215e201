import type {NewEvent} from '../core/events.ts';
import {tmuxPaneFromEnv} from '../core/tmux.ts';
import {decodeLine, parseJsonText, PayloadError, type RawLine} from './ingest-line.ts';
import {canonicalIsoTime} from './ingest-time.ts';
import {fieldLimitProblem} from './payload-limits.ts';
import {mapHookPayload, mapNotifyPayload, type MappingContext} from './payload-mapping.ts';
import {
	describeIssue,
	hookPayloadSchema,
	notifyPayloadSchema,
	spoolEnvelopeSchema,
	type AgentSource,
	type HookPayload,
} from './payload-schema.ts';

export type ParseOptions = {
	/** Source of payloads that are not in an envelope; guessed from the payload when absent. */
	readonly agent?: AgentSource;
	/** Time for payloads that carry none (raw hook payloads). */
	readonly now: number;
	/** PID for payloads that carry none (the live hook's CLAUDE_PID). */
	readonly pid?: number | null;
	/** The wrapper task (CONTROLROOM_TASK_ID) for payloads that carry none (the live hook's). */
	readonly wrapperTaskId?: string | null;
	/** The hook's parent chain for payloads that carry none (the live hook's). */
	readonly ancestors?: MappingContext['ancestors'];
	/** The agent's CLAUDE_CONFIG_DIR for payloads that carry none (the live hook's). */
	readonly configDir?: string | null;
	/** The agent's TMUX and TMUX_PANE for payloads that carry none (the live hook's). */
	readonly tmux?: string | null;
	readonly tmuxPane?: string | null;
};

function guessSource(payload: Record<string, unknown>): AgentSource {
	return 'turn_id' in payload || 'thread-id' in payload || payload['type'] === 'agent-turn-complete' ? 'codex' : 'claude';
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** A payload hookPayloadSchema surely accepts as it is: a session id, an event name, optional cwd and transcript path as strings. */
function isPlainHookPayload(record: Record<string, unknown>): record is HookPayload {
	return (
		isText(record['session_id']) &&
		isText(record['hook_event_name']) &&
		(record['cwd'] === undefined || typeof record['cwd'] === 'string') &&
		(record['transcript_path'] === undefined || typeof record['transcript_path'] === 'string')
	);
}

/** What the hook knew besides the payload; the source is guessed from the payload when absent. */
type PayloadContext = Omit<MappingContext, 'source'> & {readonly source?: AgentSource | undefined};

/** Maps one payload (a hook's, or Codex's notify JSON) with what the hook knew besides it. */
function mapPayload(payload: unknown, context: PayloadContext): NewEvent[] {
	if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
		throw new PayloadError(`payload: expected a JSON object, got ${Array.isArray(payload) ? 'an array' : typeof payload}`);
	}
	const record = payload as Record<string, unknown>;
	const limit = fieldLimitProblem(record);
	if (limit) throw new PayloadError(limit);
	if (!('hook_event_name' in record) && 'thread-id' in record) {
		const notify = notifyPayloadSchema.safeParse(record);
		if (!notify.success) throw new PayloadError(describeIssue(notify.error));
		return mapNotifyPayload(notify.data, {...context, source: 'codex'});
	}
	const source = context.source ?? guessSource(record);
	// The common case checked by hand, without zod's copy of every field (a bulk import's hot path);
	// zod decides, and words the reason, whenever the quick check is not sure.
	if (isPlainHookPayload(record)) return mapHookPayload(record, {...context, source});
	const hook = hookPayloadSchema.safeParse(record);
	if (!hook.success) throw new PayloadError(describeIssue(hook.error));
	return mapHookPayload(hook.data, {...context, source});
}

/**
 * Parses one input line (a raw hook payload or a spool envelope) into events, through every limit.
 * Throws PayloadError naming the field or the limit when it cannot.
 */
export function parseLine(raw: RawLine, options: ParseOptions): NewEvent[] {
	return parseValue(parseJsonText(decodeLine(raw)), options);
}

/**
 * The time of an envelope spoolEnvelopeSchema surely accepts as it is, or null when the schema must
 * decide: `at` exactly as toISOString writes it (which the schema's date-time pattern accepts
 * whenever it names a real instant), a known source, an optional id and wrapper task, and no PID
 * or parent chain. A bulk import's lines are such envelopes: zod's copy and its date pattern were a
 * tenth of the time spent per line.
 */
function plainEnvelopeTime(record: Record<string, unknown>): number | null {
	const at = record['at'];
	const source = record['source'];
	if (typeof at !== 'string' || at.length !== 24 || at.charCodeAt(23) !== 0x5a /* Z */) return null;
	if (source !== 'claude' && source !== 'codex') return null;
	if (record['pid'] !== undefined || record['ancestors'] !== undefined || record['configDir'] !== undefined) return null;
	if (record['tmux'] !== undefined || record['tmuxPane'] !== undefined) return null;
	const id = record['id'];
	const wrapperTaskId = record['wrapperTaskId'];
	if (id !== undefined && typeof id !== 'string') return null;
	if (wrapperTaskId !== undefined && !isText(wrapperTaskId)) return null;
	return canonicalIsoTime(at);
}

/** Maps an already parsed line (a raw hook payload or a spool envelope) into events. */
export function parseValue(value: unknown, options: ParseOptions): NewEvent[] {
	const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
	if (record && 'payload' in record && 'at' in record) {
		const plainAt = plainEnvelopeTime(record);
		if (plainAt !== null) {
			const wrapperTaskId = record['wrapperTaskId'] as string | undefined;
			return mapPayload(record['payload'], {
				source: record['source'] as AgentSource,
				at: plainAt,
				pid: null,
				wrapperTaskId: wrapperTaskId ?? null,
				ancestors: null,
				configDir: null,
				tmux: null,
			});
		}
		const envelope = spoolEnvelopeSchema.safeParse(record);
		if (!envelope.success) throw new PayloadError(`envelope ${describeIssue(envelope.error)}`);
		const {at, source, payload, pid, wrapperTaskId, configDir, ancestors, tmux, tmuxPane} = envelope.data;
		return mapPayload(payload, {
			source,
			at: Date.parse(at),
			pid: pid ?? null,
			wrapperTaskId: wrapperTaskId ?? null,
			configDir: configDir ?? null,
			ancestors: ancestors ?? null,
			tmux: tmuxPaneFromEnv(tmux, tmuxPane),
		});
	}
	return mapPayload(value, {
		source: options.agent,
		at: options.now,
		pid: options.pid ?? null,
		wrapperTaskId: options.wrapperTaskId ?? null,
		configDir: options.configDir ?? null,
		ancestors: options.ancestors ?? null,
		tmux: tmuxPaneFromEnv(options.tmux, options.tmuxPane),
	});
}

/** A parsed line: its events, and the time the line itself carries (an envelope's), or null. */
type ParsedLine = {readonly events: NewEvent[]; readonly at: number | null};

/** Like parseValue, and says whether the time came from the line (an envelope) or from `now`. */
export function parseValueWithTime(value: unknown, options: ParseOptions): ParsedLine {
	const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
	const isEnvelope = record !== null && 'payload' in record && 'at' in record;
	const events = parseValue(value, options);
	return {events, at: isEnvelope ? (events[0]?.at ?? null) : null};
}
