import {quickHoldArgs} from '../../core/decisions/hold-quick-args.ts';
import type {HoldPolicy} from '../../core/decisions/hold-policy.ts';
import {hookCommand} from '../agent-hook/hooks-install.ts';

/** Seconds Claude gives the hold hook: it answers in milliseconds, and a hook killed on a timeout is a fault Claude falls through. */
const HOLD_HOOK_TIMEOUT_SECONDS = 30;

/** The programs a decision hook runs: Node and bin/controlroom for the full check, and the shell script in front (decision-hook.sh). */
export type DecisionHookProgram = {readonly node: string; readonly bin: string; readonly script: string};

/**
 * The hold hook's argv: the shell path (src/cli/decision-hook.sh), told what of the run's policy it
 * can check itself, in front of `controlroom hold-hook` with the run's policy, folder and budget mode.
 */
export function holdHookArgv(
	program: DecisionHookProgram,
	config: {readonly ledger: string; readonly cwd: string; readonly policy: HoldPolicy; readonly onBudget: 'stop' | 'ask'},
): string[] {
	// The policy travels on the command line, fixed when the run starts: a file the agent could edit later is never read again.
	const policy = Buffer.from(JSON.stringify(config.policy), 'utf8').toString('base64url');
	return [
		'/bin/sh',
		program.script,
		program.node,
		program.bin,
		'hold-hook',
		...quickHoldArgs(config.policy),
		'--',
		'--ledger',
		config.ledger,
		'--cwd',
		config.cwd,
		'--policy',
		policy,
		'--on-budget',
		config.onBudget,
	];
}

/**
 * The `--settings` JSON the wrapper gives a held Claude run: one PreToolUse hook for every tool,
 * beside whatever hooks the person's own settings hold (Claude merges them; seen with 2.1.328).
 */
export function holdSettings(argv: readonly string[]): string {
	return JSON.stringify({
		hooks: {
			PreToolUse: [{matcher: '*', hooks: [{type: 'command', command: hookCommand(argv), timeout: HOLD_HOOK_TIMEOUT_SECONDS}]}],
		},
	});
}
