import {argsHash} from './args-hash.ts';

// A permission hook waits beside the agent's own dialog (docs/decisions.md, "Interactive Claude").
// Claude's PermissionRequest payload names no tool_use_id, and when the person answers Yes in the
// pane the hook is not told. Both are read from the session's transcript: the assistant's
// tool_use of the same tool with the same canonical arguments that has no tool_result yet is the
// call asked about, and a tool_result for its id means the pane answered (Yes ran it, No refused it).

/** What the transcript has said so far about the call a hook asks about. */
export type PaneCallState = {
	/** Whether the transcript as it was when the hook started has been read (the baseline). */
	readonly isBaselineRead: boolean;
	/** Calls already settled in the baseline: an earlier identical call, never ours. */
	readonly settledBefore: ReadonlySet<string>;
	/** Every call with a tool_result so far. */
	readonly settled: ReadonlySet<string>;
	/** The call's id, once its tool_use is found. */
	readonly toolUseId: string | null;
	/** True once the call's tool_result is in the transcript: the pane answered it. */
	readonly isAnswered: boolean;
};

export const NO_PANE_CALL: PaneCallState = {
	isBaselineRead: false,
	settledBefore: new Set(),
	settled: new Set(),
	toolUseId: null,
	isAnswered: false,
};

type Block = {
	readonly type?: unknown;
	readonly id?: unknown;
	readonly name?: unknown;
	readonly input?: unknown;
	readonly tool_use_id?: unknown;
};

function blocksOf(line: unknown): Block[] {
	if (line === null || typeof line !== 'object') return [];
	const message = (line as {message?: unknown}).message;
	if (message === null || typeof message !== 'object') return [];
	const content = (message as {content?: unknown}).content;
	return Array.isArray(content) ? content.filter((block): block is Block => block !== null && typeof block === 'object') : [];
}

/**
 * Folds the next transcript lines (parsed JSON, in order) into what is known about the call of
 * `tool` with arguments of hash `hash`. The first fold is the baseline: what the transcript held
 * when the hook started. Ours is the newest tool_use of that tool and hash not settled in the
 * baseline (Claude writes the tool_use around the time the dialog opens, often after the hook
 * has started); a tool_result for it, whenever it comes, is the pane's answer.
 */
export function foldPaneCall(state: PaneCallState, lines: readonly unknown[], tool: string, hash: string): PaneCallState {
	const settled = new Set(state.settled);
	const candidates: string[] = [];
	for (const line of lines) {
		for (const block of blocksOf(line)) {
			if (block.type === 'tool_use' && typeof block.id === 'string' && block.name === tool && argsHash(block.input) === hash) {
				candidates.push(block.id);
			} else if (block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
				settled.add(block.tool_use_id);
			}
		}
	}
	const settledBefore = state.isBaselineRead ? state.settledBefore : settled;
	const toolUseId = state.toolUseId ?? candidates.filter(id => !settledBefore.has(id)).at(-1) ?? null;
	return {
		isBaselineRead: true,
		settledBefore,
		settled,
		toolUseId,
		isAnswered: toolUseId !== null && settled.has(toolUseId),
	};
}
