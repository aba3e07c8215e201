import {closeSync, constants, existsSync, fstatSync, openSync, readSync} from 'node:fs';
import {basename, dirname, join, resolve} from 'node:path';
import {hasOption, isHeadless} from '../core/claude-args.ts';
import {DEFAULT_HOLD_POLICY, parseHoldPolicy, type HoldPolicy} from '../core/decisions/hold-policy.ts';
import type {AgentKind} from '../producers/agent-kind.ts';
import type {HoldOptions} from '../producers/wrapper/hold-options.ts';
import {holdHookArgv, holdSettings} from '../producers/wrapper/hold-settings.ts';
import {CONFIG_EXIT, configPath} from './config-file.ts';
import {CliError, USAGE_EXIT} from './errors.ts';
import {packageRoot} from './package-root.ts';

/** A policy file larger than this is refused: it is a list of patterns, not data. */
const POLICY_MAX_BYTES = 256 * 1024;

/** The policy file used when `--policy` is not given: `policy.json` beside the config file (docs/headless-holds.md). */
export function defaultPolicyPath(env: NodeJS.ProcessEnv = process.env): string {
	return join(dirname(configPath(env)), 'policy.json');
}

/** Reads a policy file: a regular file, bounded, valid; any problem is one line and exit 78. */
function readPolicyFile(path: string): HoldPolicy {
	let fd: number;
	try {
		// O_NONBLOCK: a FIFO put where the file should be must not hang the run.
		fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch (error) {
		throw new CliError(`policy ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, CONFIG_EXIT);
	}
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) throw new CliError(`policy ${path}: not a regular file`, CONFIG_EXIT);
		if (stat.size > POLICY_MAX_BYTES) throw new CliError(`policy ${path}: larger than ${POLICY_MAX_BYTES} bytes`, CONFIG_EXIT);
		const buffer = Buffer.alloc(stat.size);
		const read = stat.size === 0 ? 0 : readSync(fd, buffer, 0, stat.size, 0);
		const parsed = parseHoldPolicy(buffer.subarray(0, read).toString('utf8'));
		if ('problem' in parsed) throw new CliError(`policy ${path}: ${parsed.problem}`, CONFIG_EXIT);
		return parsed.policy;
	} finally {
		closeSync(fd);
	}
}

/**
 * How a wrapped Claude run is held, or null when it is not (another agent; an interactive run
 * without --on-budget ask): its command line with the hold hook given through `--settings`, and
 * the wrapper's hold options (docs/headless-holds.md).
 */
export function holdOf(run: {
	readonly agent: AgentKind;
	readonly command: string;
	readonly args: readonly string[];
	readonly cwd: string;
	readonly onDeny: 'resume' | 'stop';
	readonly onBudget: 'stop' | 'ask';
	readonly policyFlag: string | undefined;
	readonly ledgerFile: string;
	/** A contract's authority.needs_reapproval: held on top of the policy (docs/contracts.md). */
	readonly needsReapproval?: readonly string[];
}): {readonly args: string[]; readonly hold: Omit<HoldOptions, 'decisions'>} | null {
	const headless = run.agent === 'claude' && isHeadless(run.args);
	if (!headless && run.onDeny === 'stop')
		throw new CliError('--on-deny: only a headless Claude run (claude -p) is held', USAGE_EXIT);
	if (!headless && run.onBudget === 'ask' && run.agent !== 'claude')
		throw new CliError('--on-budget ask: only a Claude Code run can be paused (docs/headless-holds.md, "Codex")', USAGE_EXIT);
	if (!headless && run.onBudget !== 'ask') return null;
	if (hasOption(run.args, '--settings'))
		throw new CliError(
			'--settings: a held Claude run gets its hold hook through --settings; put yours in settings.json',
			USAGE_EXIT,
		);
	if (hasOption(run.args, '--bare'))
		throw new CliError('--bare: Claude then runs no hooks, so no call could be held', USAGE_EXIT);
	if (headless && hasOption(run.args, '--no-session-persistence'))
		throw new CliError('--no-session-persistence: a held call is resumed from the saved session', USAGE_EXIT);
	const policyFile = run.policyFlag === undefined ? defaultPolicyPath() : resolve(run.policyFlag);
	const base = run.policyFlag === undefined && !existsSync(policyFile) ? DEFAULT_HOLD_POLICY : readPolicyFile(policyFile);
	const policy = {...base, needsReapproval: [...base.needsReapproval, ...(run.needsReapproval ?? [])]};
	const program = [process.execPath, join(packageRoot(), 'bin', 'controlroom')];
	const hook = holdHookArgv(program, {ledger: run.ledgerFile, cwd: run.cwd, policy, onBudget: run.onBudget});
	return {
		args: [...run.args, '--settings', holdSettings(hook)],
		hold: {onDeny: run.onDeny, onBudget: run.onBudget, isHeadless: headless, isClaude: basename(run.command) === 'claude'},
	};
}
