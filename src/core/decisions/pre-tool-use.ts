import {argsHash} from './args-hash.ts';

// Claude's PermissionRequest payload names no tool_use_id (docs/decisions.md, "Interactive
// Claude"); the PreToolUse hook that ran for the same call just before it does, with the same tool
// and byte-identical tool_input. So the call's id is the newest PreToolUse of the session with
// that tool and that argument hash.

/** The fields of a recorded `agent.event` this reads. */
type AgentEventData = {readonly event?: unknown; readonly toolName?: unknown; readonly payload?: unknown};

/**
 * The tool_use_id of the newest PreToolUse among `events` (newest first) for `tool` with arguments
 * of hash `hash`, skipping ids in `taken` (an earlier question's call with the same arguments).
 * Null when none matches: a payload whose strings the ledger cut no longer hashes the same.
 */
export function callIdFromPreToolUse(
	events: readonly {readonly data: AgentEventData}[],
	tool: string,
	hash: string,
	taken: ReadonlySet<string> = new Set(),
): string | null {
	for (const {data} of events) {
		if (data.event !== 'PreToolUse' || data.toolName !== tool) continue;
		const payload = data.payload;
		if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) continue;
		const {tool_use_id: id, tool_input: input} = payload as Record<string, unknown>;
		if (typeof id !== 'string' || id === '' || taken.has(id)) continue;
		if (argsHash(input ?? null) === hash) return id;
	}
	return null;
}
