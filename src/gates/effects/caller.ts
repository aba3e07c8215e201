import {spoolDir} from '../../ledger/paths.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {foldSpool} from '../../ledger/spool.ts';

/** Who made a tool call through the gateway, as the agent's own PreToolUse hook recorded it. */
export type ToolCaller = {
	/** Claude Code's id of the call (`_meta["claudecode/toolUseId"]` of the MCP request, `tool_use_id` of the hook). */
	readonly toolUseId: string;
	/** The session's task that made it, when its hook recorded the call. */
	readonly session: string | null;
	/** The sub-agent that made it (Claude Code's Agent tool), when it was one. */
	readonly subAgent: {readonly id: string; readonly type: string | null} | null;
};

/**
 * Who made an MCP tool call: Claude Code names the call in the request's `_meta`
 * (`claudecode/toolUseId`), and its PreToolUse hook, which ran before the call reached us, recorded
 * that id with the sub-agent's `agent_id` and `agent_type` when a sub-agent made it (FORMATS.md,
 * seen with 2.1.328). The spool is folded first, so the spool hook's file is in the ledger. Null
 * when the request names no call (another client) or no hook recorded it (hooks not installed).
 */
export function toolCallerOf(ledger: Ledger, meta: unknown): ToolCaller | null {
	const toolUseId = (meta as Record<string, unknown> | undefined)?.['claudecode/toolUseId'];
	if (typeof toolUseId !== 'string' || toolUseId === '') return null;
	try {
		foldSpool(ledger, spoolDir(ledger.path));
	} catch {
		// A spool this process cannot fold: what the ledger already holds still answers.
	}
	const event = ledger.reader.preToolUseOf(toolUseId);
	if (!event) return {toolUseId, session: null, subAgent: null};
	const payload = event.data.payload as {agent_id?: unknown; agent_type?: unknown} | undefined;
	const agentId = typeof payload?.agent_id === 'string' && payload.agent_id !== '' ? payload.agent_id : null;
	const agentType = typeof payload?.agent_type === 'string' && payload.agent_type !== '' ? payload.agent_type : null;
	return {toolUseId, session: event.taskId, subAgent: agentId === null ? null : {id: agentId, type: agentType}};
}
