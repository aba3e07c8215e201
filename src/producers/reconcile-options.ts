/** Process names counted as agents unless configured (`--agents`, CONTROLROOM_AGENT_NAMES). */
export const DEFAULT_AGENT_NAMES: readonly string[] = ['claude', 'codex'];
/** Default pause between passes of `controlroom reconcile` (every 5 s, as the board's own pass). */
export const DEFAULT_RECONCILE_INTERVAL_MS = 5000;

/** Agent names from a comma list (flag or environment), or the defaults. */
export function agentNamesFrom(list: string | undefined): readonly string[] {
	const names = (list ?? '')
		.split(',')
		.map(name => name.trim())
		.filter(Boolean);
	return names.length > 0 ? names : DEFAULT_AGENT_NAMES;
}
