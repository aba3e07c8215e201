import type {HoldPolicy} from './hold-policy.ts';
import {requiredLiterals} from './required-literals.ts';

/**
 * What the hold hook's shell path is told of the run's policy (src/cli/decision-hook.sh; docs/
 * decisions.md, "What the hooks cost"), so that it can let an ordinary call through with no Node
 * start and send every call the policy might hold to Node:
 * - `--bash WORD` for each word some Bash pattern cannot match without, written as it appears in
 *   the payload's JSON; `--bash-any` when a pattern needs no word known for certain (every Bash call
 *   then goes to Node);
 * - `--writes held|free`: whether writes outside the run's folder are held;
 * - `--mcp GLOB` for each read-only MCP pattern made only of letters, digits, `_`, `.`, `-` and `*`
 *   (the characters a shell pattern reads as the policy does); any other is left out, so the tools
 *   it names go to Node, which reads it;
 * - `--every-call` alone when the run holds what a contract's needs_reapproval names (paths, globs,
 *   command words, tool names): only Node reads those, so each headless call goes to it.
 */
export function quickHoldArgs(policy: HoldPolicy): string[] {
	if (policy.needsReapproval.length > 0) return ['--every-call'];
	const args: string[] = [];
	const lists = policy.bash.map(requiredLiterals);
	if (lists.some(words => words === null)) args.push('--bash-any');
	else for (const word of new Set(lists.flatMap(words => words ?? []))) args.push('--bash', inJson(word));
	args.push('--writes', policy.writeOutsideCwd ? 'held' : 'free');
	for (const glob of policy.mcpReadOnly) if (/^[A-Za-z0-9_.*-]+$/.test(glob)) args.push('--mcp', glob);
	return args;
}

/** A word as JSON writes it inside a string (what Claude's payload holds: JSON.stringify's escapes). */
function inJson(word: string): string {
	return JSON.stringify(word).slice(1, -1);
}
