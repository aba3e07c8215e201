import {hash} from 'node:crypto';
import {findAgentProcess, type AgentProcess} from '../core/agent-process.ts';
import {EventType, newEvent, type EventDataOf, type EventTypeName, type NewEvent} from '../core/events.ts';
import {progressFromList} from '../core/progress.ts';
import type {TmuxPane} from '../core/tmux.ts';
import {keptPayload} from './payload-limits.ts';
import type {Ancestor, AgentSource, HookPayload, NotifyPayload} from './payload-schema.ts';

const TITLE_CHARS = 80;

const SOURCE_PREFIX: Record<AgentSource, string> = {claude: 'c-', codex: 'x-'};

function shortHash(text: string, length = 12): string {
	// The one-shot hash: several times cheaper per call than createHash().update().digest().
	return hash('sha1', text, 'hex').slice(0, length);
}

/** Session task ids computed lately: a history holds each session's events close together. */
const recentSessionIds = new Map<string, string>();
const RECENT_SESSION_IDS = 4096;
let lastSession: {readonly source: AgentSource | null; readonly sessionId: string; readonly id: string} = {
	source: null,
	sessionId: '',
	id: '',
};

/** The task id of an agent session: stable, short, and the same in every process. */
export function sessionTaskId(source: AgentSource, sessionId: string): string {
	// A history holds a session's lines together: the last answer is asked for again most often.
	if (sessionId === lastSession.sessionId && source === lastSession.source) return lastSession.id;
	const key = `${source}:${sessionId}`;
	let id = recentSessionIds.get(key);
	if (id === undefined) {
		id = SOURCE_PREFIX[source] + shortHash(key);
		if (recentSessionIds.size >= RECENT_SESSION_IDS) recentSessionIds.clear();
		recentSessionIds.set(key, id);
	}
	lastSession = {source, sessionId, id};
	return id;
}

/**
 * The task id of a helper (subagent) of a session: 12 hex digits of a hash of its agent id, as a
 * session's. Six (before) merged helpers of one session once it had a few thousand of them: at
 * 100,000 about 300 pairs shared an id (docs/tree-and-cost.md).
 */
export function helperTaskId(parentId: string, agentId: string): string {
	return `${parentId}.${shortHash(agentId)}`;
}

function firstLine(text: string): string {
	const line = text.trim().split('\n')[0] ?? '';
	return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

function asRecord(value: unknown): Record<string, unknown> | null {
	return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function asString(value: unknown): string | null {
	return typeof value === 'string' && value.length > 0 ? value : null;
}

/** Claude's TodoWrite and Codex's update_plan both carry a full list: progress is completed/total. */
function progressFromToolInput(
	toolName: string | null,
	input: Record<string, unknown> | null,
): EventDataOf<'task.progressed'> | null {
	if (!input) return null;
	const list = toolName === 'TodoWrite' ? input['todos'] : toolName === 'update_plan' ? input['plan'] : null;
	if (!Array.isArray(list)) return null;
	const progress = progressFromList(list, item => asRecord(item)?.['status'] === 'completed');
	return progress ? {done: progress.done, total: progress.total, from: toolName} : null;
}

/** Claude's Task tools add items one at a time: each is a plan item, completed or not. */
function planItemFromToolInput(
	toolName: string | null,
	input: Record<string, unknown> | null,
): EventDataOf<'task.plan_item'> | null {
	if (!input || toolName !== 'TaskUpdate') return null;
	const itemId = asString(input['taskId']) ?? asString(input['task_id']) ?? asString(input['id']);
	const status = asString(input['status']);
	return itemId && status ? {itemId, isDone: status === 'completed', from: toolName} : null;
}

/** Appends one event of a session (or, with `id`, of its helper). */
type Push = <T extends EventTypeName>(type: T, data: EventDataOf<T>, id?: string) => void;

/** Notification types that do not ask the person for anything. */
const NOT_A_NEED = new Set(['auth_success']);

/**
 * What the hook knew besides the payload. The Node hook and the spool envelope (the shell hook's
 * and the busy Node hook's) carry the same fields under the same names, so a payload means the
 * same thing whichever way it arrives.
 */
export type MappingContext = {
	readonly source: AgentSource;
	readonly at: number;
	/** The agent's PID from the hook's environment (CLAUDE_PID), when known. */
	readonly pid?: number | null;
	/** The wrapper task the session runs under (CONTROLROOM_TASK_ID in the hook's environment). */
	readonly wrapperTaskId?: string | null;
	/** The hook process's parent chain, nearest first, up to 4 levels (pid, start time, comm). */
	readonly ancestors?: readonly Ancestor[] | null;
	/** CLAUDE_CONFIG_DIR in the hook's environment: where the agent keeps its transcripts (docs/hooks.md). */
	readonly configDir?: string | null;
	/** The tmux pane in the hook's environment (TMUX, TMUX_PANE), when the agent runs in tmux (docs/tmux.md). */
	readonly tmux?: TmuxPane | null;
};

/**
 * The task a session's events land on: the wrapper's task when the session runs under
 * `controlroom run` (one run is one task), else the session's own `c-`/`x-` task.
 */
export function sessionTaskOf(source: AgentSource, sessionId: string, context: Pick<MappingContext, 'wrapperTaskId'>): string {
	return context.wrapperTaskId ? context.wrapperTaskId : sessionTaskId(source, sessionId);
}

/** The agent process behind the hook call: CLAUDE_PID, else the agent found among the hook's parents. */
export function agentProcessOf(context: MappingContext): AgentProcess | null {
	return findAgentProcess(context.source, context.pid ?? null, context.ancestors ?? []);
}

/** The PID fields an agent event carries: the agent's PID, its start time and how it was found. */
function pidFields(agent: AgentProcess | null): {pid: number | null; startTime: number | null; pidFrom: string | null} {
	return {pid: agent?.pid ?? null, startTime: agent?.startTime ?? null, pidFrom: agent?.from ?? null};
}

/** The error a StopFailure reports: Claude puts the API's words in last_assistant_message and a kind in error. */
function stopFailureError(payload: HookPayload): string {
	const kind = asString(payload['error']);
	const words = asString(payload['last_assistant_message']) ?? asString(payload['message']) ?? asString(payload['reason']);
	if (words === null) return kind ?? 'StopFailure';
	return kind && kind !== 'unknown' && !words.includes(kind) ? `${words} (${kind})` : words;
}

/**
 * Maps one lifecycle hook payload to ledger events. One module, used by `ingest`, the spool fold
 * and the live hook, so a payload means the same thing whichever way it arrives.
 */
export function mapHookPayload(payload: HookPayload, context: MappingContext): NewEvent[] {
	const {source, at} = context;
	const isWrapped = Boolean(context.wrapperTaskId);
	const taskId = sessionTaskOf(source, payload.session_id, context);
	const name = payload.hook_event_name;
	const toolName = asString(payload['tool_name']);
	const toolInput = asRecord(payload['tool_input']);
	const agent = agentProcessOf(context);
	const events: NewEvent[] = [];
	const push: Push = (type, data, id = taskId) => {
		events.push(newEvent(type, data, {taskId: id, at, source}));
	};
	const prompt = asString(payload['prompt']);
	const isTaskNotification = prompt?.trimStart().startsWith('<task-notification>') ?? false;

	if (name === 'SessionStart') {
		// Under a wrapper the task is the wrapper's: its source stays `wrapper`, the session is noted on it.
		push(EventType.registered, {...(isWrapped ? {} : {source}), sessionId: payload.session_id, cwd: payload.cwd ?? null});
		push(EventType.started, agent ? {pid: agent.pid, startTime: agent.startTime, pidFrom: agent.from} : {});
	}
	push(EventType.agentEvent, {
		event: name,
		sessionId: payload.session_id,
		cwd: payload.cwd ?? null,
		// Set one by one, not spread in: this literal is built once per hook event of a bulk import.
		pid: agent?.pid ?? null,
		startTime: agent?.startTime ?? null,
		pidFrom: agent?.from ?? null,
		toolName,
		titleHint: name === 'UserPromptSubmit' && prompt && !isTaskNotification ? firstLine(prompt) : null,
		...(context.configDir ? {configDir: context.configDir} : {}),
		...(context.tmux ? {tmux: context.tmux} : {}),
		payload: keptPayload(payload),
	});

	if (name === 'PreToolUse' || name === 'PostToolUse') {
		const progress = progressFromToolInput(toolName, toolInput);
		if (progress) push(EventType.progressed, progress);
		const item = name === 'PostToolUse' ? planItemFromToolInput(toolName, toolInput) : null;
		if (item) push(EventType.planItem, item);
	}
	if (name === 'TaskCreated' || name === 'TaskCompleted') {
		const itemId = asString(payload['task_id']);
		if (itemId) push(EventType.planItem, {itemId, isDone: name === 'TaskCompleted', subject: asString(payload['task_subject'])});
	}
	if (name === 'Notification') {
		const kind = asString(payload['notification_type']);
		if (!kind || !NOT_A_NEED.has(kind)) {
			push(EventType.needRaised, {
				message: asString(payload['message']) ?? 'the agent asks for you',
				kind: kind ?? 'notification',
			});
		}
	}
	if (name === 'StopFailure') push(EventType.failed, {error: stopFailureError(payload), exitCode: null});
	if (name === 'SessionEnd') push(EventType.ended, {reason: asString(payload['reason'])});
	mapSubagent(payload, name, taskId, push);
	return events;
}

function mapSubagent(payload: HookPayload, name: string, parentId: string, push: Push): void {
	if (name !== 'SubagentStart' && name !== 'SubagentStop') return;
	const agentId = asString(payload['agent_id']);
	const agentType = asString(payload['agent_type']);
	// /compact fires SubagentStop with an empty agent_type and no transcript: not a real helper.
	if (!agentId || !agentType) return;
	const helperId = helperTaskId(parentId, agentId);
	push(EventType.registered, {source: 'claude-helper', parentId, title: agentType, cwd: payload.cwd ?? null}, helperId);
	if (name === 'SubagentStart') push(EventType.started, {}, helperId);
	else push(EventType.ended, {reason: 'SubagentStop'}, helperId);
}

/** Maps Codex's `notify` argument (a turn ended) to ledger events. */
export function mapNotifyPayload(payload: NotifyPayload, context: MappingContext): NewEvent[] {
	const taskId = sessionTaskOf('codex', payload['thread-id'], context);
	const messages = payload['input-messages'];
	const firstMessage = Array.isArray(messages) ? asString(messages[0]) : null;
	return [
		newEvent(
			EventType.agentEvent,
			{
				event: payload.type,
				sessionId: payload['thread-id'],
				cwd: payload.cwd ?? null,
				...pidFields(agentProcessOf({...context, source: 'codex'})),
				...(context.tmux ? {tmux: context.tmux} : {}),
				titleHint: firstMessage ? firstLine(firstMessage) : null,
				payload: keptPayload(payload),
			},
			{taskId, at: context.at, source: 'codex'},
		),
	];
}
