import {join} from 'node:path';
import {hasOption, isHeadless, optionValue} from '../core/claude-args.ts';
import {installedCommands, installTargets} from './agent-hook/hooks-install.ts';

/** The events whose hooks read a session's transcript, and so count its tokens. */
const COUNTING_EVENTS = new Set(['Stop', 'PostToolUse', 'SessionEnd', 'UserPromptSubmit']);

/** Whether controlroom's hooks that count tokens are in a Claude settings file (an unreadable one has none). */
function hasCountingHooks(file: string): boolean {
	try {
		return installedCommands(file).some(entry => COUNTING_EVENTS.has(entry.event));
	} catch {
		return false;
	}
}

/**
 * Why a wrapped Claude run's budget could never be counted, or null when it can (docs/wrapper.md,
 * "Tokens without hooks"): its tokens come from controlroom's hooks (through its transcript) or
 * from its own output, which names them only as `claude -p --output-format json` or `stream-json`.
 * So a run with neither (no hooks where this Claude reads its settings, or `--bare`, which runs
 * none, and text output) is refused before anything is registered, rather than run with a budget
 * that cannot act. The settings looked at are the user's (CLAUDE_CONFIG_DIR, else ~/.claude) and
 * the project's (`.claude/settings.json`, `settings.local.json` in the run's folder).
 */
export function budgetCountProblem(run: {
	readonly args: readonly string[];
	readonly cwd: string;
	readonly env?: NodeJS.ProcessEnv;
}): string | null {
	const format = optionValue(run.args, '--output-format');
	if (isHeadless(run.args) && (format === 'json' || format === 'stream-json')) return null;
	const output = isHeadless(run.args)
		? `its ${format ?? 'text'} output names no tokens (--output-format json or stream-json does)`
		: 'an interactive session prints no tokens';
	if (hasOption(run.args, '--bare')) return `--bare runs no hooks, and ${output}`;
	const user = installTargets({env: run.env ?? process.env}).claudeSettings;
	const files = [user, join(run.cwd, '.claude', 'settings.json'), join(run.cwd, '.claude', 'settings.local.json')];
	if (files.some(hasCountingHooks)) return null;
	return `no controlroom hooks where this Claude reads its settings (${user}; controlroom hooks install --claude), and ${output}`;
}
