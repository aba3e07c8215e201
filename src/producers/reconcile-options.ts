import {builtInOf, settingFromText} from '../core/settings.ts';

/** Process names counted as agents unless configured (`--agents`, CONTROLROOM_AGENT_NAMES, docs/config.md). */
export const DEFAULT_AGENT_NAMES: readonly string[] = builtInOf('agentNames');
/** Default pause between passes of `controlroom reconcile` (every 5 s), unless configured. */
export const DEFAULT_RECONCILE_INTERVAL_MS = builtInOf('reconcileIntervalSeconds') * 1000;

/** Agent names from a comma list (flag or environment), or the defaults. */
export function agentNamesFrom(list: string | undefined): readonly string[] {
	return settingFromText('names', list ?? '') ?? DEFAULT_AGENT_NAMES;
}
