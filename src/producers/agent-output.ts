import * as z from 'zod';
import {countCodexTurn, todoProgress, type CodexUsage, type CodexUsageState} from '../core/codex-usage.ts';
import {EventType} from '../core/events.ts';
import {readProgressLine, type AgentKind, type OutputFinding} from './agent-kind.ts';

/** Longest line parsed; a longer one still reaches the terminal, it is only not read. */
const MAX_PARSED_LINE = 1024 * 1024;
const MAX_SUMMARY = 300;

const codexLineSchema = z.looseObject({type: z.string().min(1)});
const usageSchema = z.looseObject({input_tokens: z.number().int().nonnegative(), output_tokens: z.number().int().nonnegative()});
const todoItemSchema = z.looseObject({text: z.string().optional(), completed: z.boolean()});
const itemSchema = z.looseObject({id: z.string().optional(), type: z.string()});

export type OutputReaderOptions = {
	readonly agent: AgentKind;
	/** The last cumulative usage recorded for a Codex thread before this run (a resumed thread). */
	readonly previousThreadUsage?: (threadId: string) => CodexUsage | undefined;
};

function clip(text: string): string {
	return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY - 1)}…` : text;
}

function itemSummary(item: Record<string, unknown>): string | null {
	for (const key of ['command', 'text', 'message', 'query', 'tool']) {
		const value = item[key];
		if (typeof value === 'string') return clip(value);
	}
	const changes = item['changes'];
	if (Array.isArray(changes))
		return clip(
			changes
				.map(change => (change as {path?: unknown}).path)
				.filter(p => typeof p === 'string')
				.join(', '),
		);
	return null;
}

/**
 * Reads a child's output line by line: `PROGRESS n/total` lines from any agent, and for Codex the
 * `exec --json` events (cumulative thread usage turned into per-turn deltas, todo_list progress,
 * failures, finished items for the timeline). Lines are validated with zod where they enter; a
 * Codex line that is JSON of the wrong shape becomes a reject with its reason.
 */
export function createOutputReader(options: OutputReaderOptions): (line: string) => OutputFinding[] {
	let usage: CodexUsageState = new Map();
	let threadId: string | null = null;

	function codexLine(line: string): OutputFinding[] {
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch {
			return [{kind: 'reject', reason: 'codex line: not valid JSON', raw: line}];
		}
		const parsed = codexLineSchema.safeParse(value);
		if (!parsed.success) return [{kind: 'reject', reason: 'codex line: type: expected a string', raw: line}];
		const event = parsed.data;
		switch (event.type) {
			case 'thread.started': {
				threadId = typeof event['thread_id'] === 'string' ? event['thread_id'] : null;
				if (threadId !== null && !usage.has(threadId)) {
					const previous = options.previousThreadUsage?.(threadId);
					if (previous) usage = new Map(usage).set(threadId, previous);
				}
				return [{kind: 'event', event: {type: EventType.agentEvent, data: {event: event.type, threadId}}}];
			}
			case 'turn.completed': {
				const reported = usageSchema.safeParse(event['usage']);
				// Unknown usage stays unknown: no tokens event at all, never a zero.
				if (!reported.success) return [];
				const cumulative = {input: reported.data.input_tokens, output: reported.data.output_tokens};
				const counted = countCodexTurn(usage, threadId, cumulative);
				usage = counted.state;
				return [
					{
						kind: 'tokens',
						input: counted.delta.input,
						output: counted.delta.output,
						data: {...counted.delta, threadId, cumulative, from: 'codex'},
					},
				];
			}
			case 'turn.failed':
			case 'error': {
				const error = event['error'] as {message?: unknown} | undefined;
				const message =
					typeof event['message'] === 'string' ? event['message'] : typeof error?.message === 'string' ? error.message : null;
				return [
					{
						kind: 'event',
						event: {type: EventType.agentEvent, data: {event: event.type, payload: {message: message ? clip(message) : null}}},
					},
				];
			}
			case 'item.started':
			case 'item.updated':
			case 'item.completed':
				return codexItem(event.type, event['item']);
			default:
				return [];
		}
	}

	function codexItem(type: string, raw: unknown): OutputFinding[] {
		const item = itemSchema.safeParse(raw);
		if (!item.success) return [];
		if (item.data.type === 'todo_list') {
			const items = z.array(todoItemSchema).safeParse(item.data['items']);
			const progress = items.success ? todoProgress(items.data) : null;
			return progress ? [{kind: 'event', event: {type: EventType.progressed, data: {...progress, from: 'todo_list'}}}] : [];
		}
		if (type !== 'item.completed' || item.data.type === 'reasoning') return [];
		return [
			{
				kind: 'event',
				event: {
					type: EventType.agentEvent,
					data: {event: type, toolName: item.data.type, payload: {message: itemSummary(item.data)}},
				},
			},
		];
	}

	return line => {
		if (line.length > MAX_PARSED_LINE) return [];
		const progress = readProgressLine(line);
		if (progress.length > 0) return progress;
		if (options.agent === 'codex' && line.trimStart().startsWith('{')) return codexLine(line);
		return [];
	};
}
