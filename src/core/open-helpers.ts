/**
 * The helpers a Claude session has started and not seen end, by its own hooks (docs/tree-and-cost.md,
 * "Helpers in the background"). Claude Code 2.1.328 runs a helper in the background by default: the
 * parent's Stop comes while the helper works, and lists it in `background_tasks` (`type: subagent`,
 * `status: running`). A session that ends, or whose process dies, while one is open ended with work
 * outstanding: it is not `done`.
 */

/** The most helper ids a task keeps: a session runs a handful at once; a flood of forged starts is cut here. */
const MAX_OPEN_HELPERS = 50;

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function agentIdOf(payload: Record<string, unknown>): string | null {
	const id = payload['agent_id'];
	return typeof id === 'string' && id !== '' ? id : null;
}

/** The running background helpers a Stop lists, or null when it lists none at all (an older Claude sends no list). */
function runningInBackground(payload: Record<string, unknown>): string[] | null {
	const tasks = payload['background_tasks'];
	if (!Array.isArray(tasks)) return null;
	return tasks.flatMap(task =>
		isRecord(task) && task['type'] === 'subagent' && task['status'] === 'running' && typeof task['id'] === 'string'
			? [task['id']]
			: [],
	);
}

/**
 * The open helpers after one of the session's own hook events: SubagentStart opens one, SubagentStop
 * closes it, a Stop's `background_tasks` is the whole list at that moment, and a new process of the
 * session (SessionStart, but after `/compact`) has none yet. Returns `current` itself when nothing changed.
 */
export function openHelpersAfter(
	current: readonly string[] | undefined,
	event: string | null,
	payload: unknown,
): readonly string[] | undefined {
	const open = current ?? [];
	if (!isRecord(payload)) return current;
	if (event === 'SessionStart') return payload['source'] === 'compact' || open.length === 0 ? current : [];
	if (event === 'Stop') {
		const running = runningInBackground(payload);
		if (running === null) return current;
		return running.length === 0 && open.length === 0 ? current : running.slice(0, MAX_OPEN_HELPERS);
	}
	const agentId = event === 'SubagentStart' || event === 'SubagentStop' ? agentIdOf(payload) : null;
	if (agentId === null) return current;
	if (event === 'SubagentStop') return open.includes(agentId) ? open.filter(id => id !== agentId) : current;
	return open.includes(agentId) || open.length >= MAX_OPEN_HELPERS ? current : [...open, agentId];
}

/** `1 helper still working`, `3 helpers still working`. */
export function helpersStillWorking(count: number): string {
	return `${count} ${count === 1 ? 'helper' : 'helpers'} still working`;
}

/** Why a session that ended while helpers worked is not done: `ended with work outstanding: 1 helper still working (SessionEnd: other)`. */
export function outstandingReason(count: number, how: string): string {
	return `ended with work outstanding: ${helpersStillWorking(count)} (${how})`;
}
