/** One process of a hook's parent chain, as the hook read it from /proc. */
export type HookAncestor = {
	readonly pid: number;
	/** Field 22 of /proc/PID/stat: clock ticks after boot. */
	readonly startTime: number;
	/** The kernel's short name (comm). */
	readonly name: string;
};

/** How a session's agent process was found. */
export type AgentPidSource = 'CLAUDE_PID' | 'parent process';

/** The agent process behind a hook call. */
export type AgentProcess = {
	readonly pid: number;
	/** Its start time when the parent chain holds it (guards against PID reuse); null otherwise. */
	readonly startTime: number | null;
	readonly from: AgentPidSource;
};

/**
 * Whether a kernel name is the agent's own executable: `claude`, `codex`, or those names with a
 * suffix (`claude.exe`, a platform build such as `codex-x86_64-un`, comm being cut at 15 bytes).
 * A shell, `timeout`, `node` or `script` between the agent and the hook never matches.
 */
export function isAgentName(agent: string, name: string): boolean {
	return name === agent || name.startsWith(`${agent}.`) || name.startsWith(`${agent}-`);
}

/**
 * The agent process a hook call belongs to. Claude Code names itself (CLAUDE_PID); Codex names
 * nothing, so the hook's parent chain is walked, nearest first, to the first process named like
 * the agent (Codex runs hooks itself; Claude runs them through `sh -c`). Nothing matching: null,
 * the PID stays unknown rather than guessed (the nearest non-shell could be anything).
 */
export function findAgentProcess(
	agent: string,
	reportedPid: number | null,
	ancestors: readonly HookAncestor[],
): AgentProcess | null {
	if (reportedPid !== null) {
		const known = ancestors.find(ancestor => ancestor.pid === reportedPid);
		return {pid: reportedPid, startTime: known?.startTime ?? null, from: 'CLAUDE_PID'};
	}
	const found = ancestors.find(ancestor => isAgentName(agent, ancestor.name));
	return found ? {pid: found.pid, startTime: found.startTime, from: 'parent process'} : null;
}
