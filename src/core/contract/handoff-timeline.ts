import {EventType, type LedgerEvent} from '../events.ts';

/** A command the agent ran, with its exit code as recorded (null: not recorded). */
export type RanCommand = {
	readonly at: number;
	readonly command: string;
	readonly exitCode: number | null;
	/** The first line of what the agent was told it failed with. */
	readonly error: string | null;
};

/** What a session's timeline says it did, for its handoff (docs/handoffs.md, "What is in it"). */
export type SessionTimeline = {
	/** The session's first prompt, as the agent was given it. */
	readonly firstPrompt: string | null;
	readonly commands: readonly RanCommand[];
	/** Files written by the agent's own writing tools (Edit, Write, ...), as the tool was given them. */
	readonly filesWritten: readonly string[];
	/** Tool calls that are not reads (commands, writes, anything unknown). */
	readonly actingCalls: number;
	/** Plan items not done at the end, newest state of each. */
	readonly openPlanItems: readonly string[];
	/** Needs the session raised (its open questions). */
	readonly needs: readonly string[];
	/** The agent's last words: its final message, or the end of a wrapped run's output. */
	readonly finalMessage: string | null;
	/** A wrapped run's exit code, where one was recorded. */
	readonly exitCode: number | null;
};

/**
 * Tools that only read (Claude Code's and Codex's names): a session whose calls are all among
 * these did nothing a next session needs to be told about, and gets no handoff.
 */
export const READING_TOOLS: ReadonlySet<string> = new Set([
	'Read',
	'Glob',
	'Grep',
	'LS',
	'NotebookRead',
	'WebFetch',
	'WebSearch',
	'ToolSearch',
	'TodoRead',
	'read_file',
	'list_dir',
	'grep_files',
	'view_image',
]);

const WRITING_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'apply_patch']);
const COMMAND_TOOLS: ReadonlySet<string> = new Set(['Bash', 'shell', 'exec_command', 'local_shell']);

type Payload = Record<string, unknown>;

function stringAt(payload: Payload, ...path: string[]): string | null {
	let value: unknown = payload;
	for (const key of path) value = value && typeof value === 'object' ? (value as Payload)[key] : undefined;
	return typeof value === 'string' ? value : null;
}

/** `Exit code 2` (Claude's failure) or `Exit code: 2` / `exit_code: 2` (Codex's response text). */
const EXIT_CODE = /\bexit[ _]code:?\s*(-?\d+)/i;

function exitCodeIn(text: string | null): number | null {
	const match = text ? EXIT_CODE.exec(text) : null;
	return match ? Number(match[1]) : null;
}

function commandOf(event: LedgerEvent & {type: 'agent.event'}, payload: Payload): RanCommand | null {
	const command = stringAt(payload, 'tool_input', 'command');
	if (command === null) return null;
	if (event.data.event === 'PostToolUseFailure') {
		const error = stringAt(payload, 'error');
		const afterCode = error?.split('\n').find(line => line.trim() !== '' && !EXIT_CODE.test(line)) ?? null;
		return {at: event.at, command, exitCode: exitCodeIn(error), error: afterCode};
	}
	// Claude reports a command that exited non-zero as PostToolUseFailure, so its PostToolUse is exit 0;
	// Codex's response is text that states the code, or nothing we can read (unknown).
	const response = payload['tool_response'];
	if (typeof response === 'string') return {at: event.at, command, exitCode: exitCodeIn(response), error: null};
	return {at: event.at, command, exitCode: event.source === 'claude' ? 0 : null, error: null};
}

/** Reads a session's own events (oldest first) into what its handoff says. */
export function sessionTimeline(events: readonly LedgerEvent[]): SessionTimeline {
	let firstPrompt: string | null = null;
	let finalMessage: string | null = null;
	let exitCode: number | null = null;
	let actingCalls = 0;
	const commands: RanCommand[] = [];
	const filesWritten = new Set<string>();
	const plan = new Map<string, {subject: string; isDone: boolean}>();
	const needs: string[] = [];
	for (const event of events) {
		if (event.type === EventType.agentEvent) {
			const payload = (event.data.payload ?? {}) as Payload;
			const name = event.data.event;
			if (name === 'UserPromptSubmit' && firstPrompt === null) firstPrompt = stringAt(payload, 'prompt');
			if (name === 'Stop') finalMessage = stringAt(payload, 'last_assistant_message') ?? finalMessage;
			if (name !== 'PostToolUse' && name !== 'PostToolUseFailure') continue;
			const tool = event.data.toolName ?? stringAt(payload, 'tool_name') ?? '';
			if (READING_TOOLS.has(tool)) continue;
			actingCalls += 1;
			if (COMMAND_TOOLS.has(tool)) {
				const ran = commandOf(event, payload);
				if (ran) commands.push(ran);
			} else if (WRITING_TOOLS.has(tool)) {
				const file = stringAt(payload, 'tool_input', 'file_path') ?? stringAt(payload, 'tool_input', 'notebook_path');
				if (file) filesWritten.add(file);
			}
		} else if (event.type === EventType.registered) {
			firstPrompt ??= event.data.title ?? null;
		} else if (event.type === EventType.planItem && event.data.itemId) {
			plan.set(event.data.itemId, {subject: event.data.subject ?? event.data.itemId, isDone: event.data.isDone === true});
		} else if (event.type === EventType.needRaised && event.data.message) {
			needs.push(event.data.message);
		} else if (event.type === EventType.outputKept) {
			finalMessage = event.data.text ?? finalMessage;
		} else if (event.type === EventType.exited) {
			exitCode = event.data.exitCode ?? null;
		}
	}
	return {
		firstPrompt,
		commands,
		filesWritten: [...filesWritten],
		actingCalls,
		openPlanItems: [...plan.values()].filter(item => !item.isDone).map(item => item.subject),
		needs,
		finalMessage,
		exitCode,
	};
}
