import {minimumOf} from '../../core/settings.ts';
import {overTextLimit, TITLE_MAX_CHARS} from '../../core/text-limits.ts';
import {existsSync, statSync} from 'node:fs';
import {basename, resolve} from 'node:path';
import {isHeadless} from '../../core/claude-args.ts';
import {controlroomHome} from '../../ledger/paths.ts';
import {AGENT_KINDS, guessAgent, type AgentKind} from '../../producers/agent-kind.ts';
import {HandoffError} from '../../handoff/claims.ts';
import {
	prepareContractRun,
	prepareStoredContractRun,
	recordTraceException,
	type ContractRun,
} from '../../handoff/contract-run.ts';
import {isStoredContractId} from '../../core/contract/intake.ts';
import {loadRepositories} from '../repository-file.ts';
import {receiverPolicy} from '../contract-policy.ts';
import type {ReceiverPolicy} from '../../core/contract/policy.ts';
import {newTaskId, runWrapped} from '../../producers/wrapper/run.ts';
import {budgetCountProblem} from '../../producers/budget-countable.ts';
import {lookupUser, runAsProblem, runAsUserProblem} from '../../producers/wrapper/run-as.ts';
import {parseCommandArgs, positiveAmount, positiveInt, positiveSeconds} from '../args.ts';
import {loadPriceTable} from '../price-file.ts';
import {commandSettings} from '../config-file.ts';
import {openCommandLedger} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {printRefusal} from '../handoff-report.ts';
import {heldDecisionsOf} from '../../gates/held-decisions.ts';
import {ledgerPath} from '../../ledger/paths.ts';
import {holdOf} from '../hold-run.ts';
import {resumeFromLedger} from '../resume-held.ts';
import {otlpBaseUrl} from '../../core/otel/claude-telemetry.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {defaultBranchOf, planWorktree, WorktreeError, type WorktreePlan} from '../../producers/worktree.ts';

export const help: CommandHelp = {
	synopsis: ['run [OPTIONS] -- CMD [ARGS...]', 'run --resume TASK'],
	description: `Runs CMD as a recorded task: an admission slot, the task row written before the spawn, heartbeats
while it lives, its output read for progress, tokens and agent events, how it ended recorded. The
child's output reaches the terminal unchanged (or --log FILE). Wrapper notices go to stderr,
prefixed controlroom:. Details: docs/wrapper.md; the defaults named below can be set in the
config file (docs/config.md).`,
	options: [
		['--title TEXT', "task title (default: the contract's title with --contract, else the command line)"],
		['--steps N', 'declared progress denominator (wins over what the agent reports)'],
		[
			'--budget TOKENS',
			'token budget of the whole tree, the agent and its helpers (default 40000000, or budgetTokens); over it the child is stopped, exit 125',
		],
		[
			'--budget-usd AMOUNT',
			'money budget of the whole tree, priced with the price table (docs/tree-and-cost.md); over it the child is stopped, exit 125; an unknown cost never crosses it',
		],
		[
			'--budget-covers run|session',
			"claude: what --budget and --budget-usd count when CMD resumes a session (--resume, --continue): this run's tree (default), or the session with its earlier runs (docs/tree-and-cost.md)",
		],
		['--agent codex|claude|generic', 'how to read the output (guessed from CMD)'],
		[
			'--role worker|reviewer|tripwire',
			"reviewers only read, and a contract's tripwires only check: neither takes an admission slot (default worker)",
		],
		['--cwd DIR', 'folder to run in (default: the current one)'],
		['--no-wait', 'when every slot is held, exit 75 naming the holders instead of waiting'],
		['--slots N', 'slots per repository (default 2, or CONTROLROOM_SLOTS, or slots)'],
		['--heartbeat SECONDS', 'heartbeat interval (default 15, or CONTROLROOM_HEARTBEAT_SECONDS, or heartbeatSeconds)'],
		['--grace SECONDS', 'SIGTERM-to-SIGKILL grace on a forwarded stop or budget stop (default 10, or runGraceSeconds)'],
		[
			'--log FILE',
			"append the child's output to FILE instead of the terminal; opened before the spawn: if it cannot be, the task is recorded failed and nothing runs (exit 127)",
		],
		[
			'--contract FILE',
			"check a handoff contract first (invalid: exit 1, nothing registered or spawned), then put it into the agent's first turn: appended to the prompt of claude -p or codex exec, or wherever an argument says {{contract}} (docs/contracts.md); its authority.needs_reapproval entries are held for a person when a claude -p run reaches them",
		],
		[
			'--require LIST',
			'with --contract: what the receiver requires of it, comma-separated: state, authority, evidence, guardrails, trace (or trace:exception), escalation, execution, delivery, stop_when, scope (default: contractRequire in the config file, else nothing)',
		],
		[
			'--contract ID',
			"a stored contract (ct-..., written through serve or an agent's mcp, made ready by a person): checked here through repositories.json, then put into the first turn with who wrote it, its guesses and --claim",
		],
		['--claim TASK', 'with --contract ID: the claim the run works (pickup passes it): named in the first turn for the hand-in'],
		['--repo NAME=PATH', "with --contract ID: a repository's checkout, over repositories.json (repeatable)"],
		[
			'--brief FILE',
			"the run's brief (a re-run's: the original brief plus fixes): recorded on the task and given to the child as CONTROLROOM_BRIEF",
		],
		[
			'--otel URL',
			"a Claude agent's own OpenTelemetry (logs and metrics: requests, exact cost, tool decisions) goes to this receiver (controlroom otel receive; docs/otel.md)",
		],
		['--rerun-of TASK', "records that this run does TASK again (the review gate's fix runs and send-back; docs/review.md)"],
		['--task-id ID', 'record the task under this id (refused if the ledger has it already)'],
		['--parent TASK', "the task this run works for, which the ledger has (a claim's tripwires at hand-in): shown under it"],
		[
			'--resume TASK',
			'carry on a held claude -p run whose wrapper is gone (killed, a restart): wait for the answer and resume its session as the same task',
		],
		[
			'--policy FILE',
			'claude -p: the hold policy, which tool calls wait for a person (default: policy.json beside the config file, else the built-in one; docs/headless-holds.md)',
		],
		[
			'--on-deny resume|stop',
			'claude -p: a denied held call resumes the session with the reason (default), or stops the task (exit 122)',
		],
		[
			'--on-budget stop|ask',
			'claude: over the budget, stop the child (default, exit 125), or hold its next tool call and ask for more (a person denying it: exit 125)',
		],
		[
			'--user NAME',
			'the strong mode: run CMD as the OS user NAME, who can neither write nor read the ledger, so nothing it starts can approve or accept (needs root; docs/security.md)',
		],
	],
	exits: [
		['N', "the child's own exit code"],
		['1', 'the --contract is invalid (its problems are listed; nothing registered or run)'],
		['64', 'bad command line (one line naming the flag), or --worktree cannot be made; nothing registered'],
		['75', '--no-wait and every admission slot is held (the line names the holders)'],
		['78', 'the config file or a CONTROLROOM_* variable is wrong (the line names it; docs/config.md); nothing registered'],
		['122', '--on-deny stop and a person denied a held call: the task is stopped (the reason in explain)'],
		['125', 'over its token budget: the child was stopped, or with --on-budget ask a person said no'],
		[
			'127',
			'CMD could not be started (not found, not executable), or --log FILE could not be opened; the task is recorded failed with the reason',
		],
		['128+N', 'stopped by signal N (forwarded to the child, or controlroom stop)'],
	],
	examples: [
		[
			'controlroom run --title "fix export" --steps 4 -- codex exec --json "fix the CSV export"',
			'Codex as a task with 4 declared steps, its JSON events read',
		],
		['controlroom run --log build.log -- npm test', 'any command, its output to build.log'],
		['controlroom run --contract task.yaml -- claude -p', 'a checked contract as the first turn of Claude Code'],
		['controlroom run --worktree fix-export -- claude', 'Claude Code in its own worktree on a new branch fix-export'],
	],
};

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
	if (value === undefined) return undefined;
	if (!(allowed as readonly string[]).includes(value))
		throw new CliError(`--${flag}: expected ${allowed.join('|')}, got '${value}'`, USAGE_EXIT);
	return value as T;
}

/** `run --resume TASK`: a new wrapper for a held run whose wrapper is gone (docs/headless-holds.md). */
async function resumeHeld(taskId: string, ledgerFlag: string | undefined, positionals: readonly string[]): Promise<number> {
	if (positionals.length > 0) throw new CliError('--resume: takes no command (it resumes the one the task ran)', USAGE_EXIT);
	const ledger = openCommandLedger(ledgerFlag, {mode: 'existing', onMove: 'stay'});
	try {
		return await resumeFromLedger(ledger, taskId, line => process.stderr.write(`controlroom: ${line}\n`));
	} finally {
		ledger.close();
	}
}

/** `--otel URL`: a receiver's http(s) base URL, for Claude's settings (a generic command may be a script that runs Claude; Codex reads its own `[otel]` table). */
function otelEndpointOf(url: string | undefined, agent: AgentKind): string | null {
	if (url === undefined) return null;
	const endpoint = otlpBaseUrl(url);
	if (endpoint === null)
		throw new CliError(`--otel: expected an http:// or https:// URL, got '${terminalSafe(url)}'`, USAGE_EXIT);
	if (agent === 'codex')
		throw new CliError(
			`--otel: Codex reads its telemetry settings only from [otel] in its config.toml (docs/otel.md)`,
			USAGE_EXIT,
		);
	return endpoint;
}

/** A stored contract's run, read from the ledger before anything is registered (the ledger is opened to read only). */
function storedContractRun(
	ledgerFlag: string | undefined,
	id: string,
	repos: readonly string[],
	run: {command: string; args: readonly string[]; claim: string | null; policy: ReceiverPolicy},
): ContractRun {
	const repositories = loadRepositories(repos);
	const ledger = openCommandLedger(ledgerFlag, {mode: 'read'});
	try {
		return prepareStoredContractRun(ledger, id, repositories, run.command, run.args, run.claim, {policy: run.policy});
	} finally {
		ledger.close();
	}
}

/**
 * `--worktree` takes an optional value: the word after it is the branch unless it is a flag or
 * `--`; alone, it is given as empty (the default branch).
 */
function worktreeValueJoined(argv: readonly string[]): string[] {
	const end = argv.indexOf('--');
	const flags = end === -1 ? argv : argv.slice(0, end);
	const index = flags.indexOf('--worktree');
	if (index === -1) return [...argv];
	const next = flags[index + 1];
	const hasValue = next !== undefined && !next.startsWith('-');
	return [...argv.slice(0, index), `--worktree=${hasValue ? next : ''}`, ...argv.slice(index + (hasValue ? 2 : 1))];
}

/** `--worktree [BRANCH]`: the worktree planned before anything runs (a bad one: exit 64, nothing made). */
function worktreePlanOf(branch: string | undefined, cwd: string, taskId: string): WorktreePlan | null {
	if (branch === undefined) return null;
	try {
		return planWorktree(cwd, branch === '' ? defaultBranchOf(taskId) : branch);
	} catch (error) {
		if (error instanceof WorktreeError) throw new CliError(`--worktree: ${error.message}; nothing made`, USAGE_EXIT);
		throw error;
	}
}

/** `controlroom run`: the launch wrapper (docs/wrapper.md). */
export async function run(given: readonly string[]): Promise<number> {
	const argv = worktreeValueJoined(given);
	const {values, positionals} = parseCommandArgs('run', argv, {
		title: {type: 'string'},
		steps: {type: 'string'},
		budget: {type: 'string'},
		'budget-usd': {type: 'string'},
		'budget-covers': {type: 'string'},
		agent: {type: 'string'},
		role: {type: 'string'},
		cwd: {type: 'string'},
		'no-wait': {type: 'boolean'},
		slots: {type: 'string'},
		heartbeat: {type: 'string'},
		grace: {type: 'string'},
		log: {type: 'string'},
		contract: {type: 'string'},
		require: {type: 'string'},
		brief: {type: 'string'},
		'rerun-of': {type: 'string'},
		otel: {type: 'string'},
		'task-id': {type: 'string'},
		parent: {type: 'string'},
		user: {type: 'string'},
		policy: {type: 'string'},
		'on-deny': {type: 'string'},
		'on-budget': {type: 'string'},
		resume: {type: 'string'},
		claim: {type: 'string'},
		repo: {type: 'string', multiple: true},
		worktree: {type: 'string'},
	});
	if (values.resume !== undefined) return resumeHeld(values.resume, values.ledger, positionals);
	const [command, ...args] = positionals;
	if (command === undefined || command === '')
		throw new CliError('run: missing the command to run (controlroom run [OPTIONS] -- CMD ...)', USAGE_EXIT);
	const titleTooLong = values.title === undefined ? null : overTextLimit('--title', values.title, TITLE_MAX_CHARS);
	if (titleTooLong !== null) throw new CliError(titleTooLong, USAGE_EXIT);
	let contractRun: ContractRun | null = null;
	if (values.claim !== undefined && (values.contract === undefined || !isStoredContractId(values.contract)))
		throw new CliError('--claim: only with --contract ID (a stored contract)', USAGE_EXIT);
	if (values.require !== undefined && values.contract === undefined)
		throw new CliError('--require: says what a contract must hold; give it with --contract FILE|ID', USAGE_EXIT);
	if (values.contract !== undefined) {
		// Validate before anything else touches the ledger or the process table: an invalid contract starts nothing.
		try {
			const policy = receiverPolicy(values.require);
			contractRun = isStoredContractId(values.contract)
				? storedContractRun(values.ledger, values.contract, values.repo ?? [], {
						command,
						args,
						claim: values.claim ?? null,
						policy,
					})
				: prepareContractRun(values.contract, command, args, {policy});
		} catch (error) {
			if (error instanceof HandoffError) return printRefusal(error);
			throw error;
		}
	}
	const cwd = resolve(values.cwd ?? process.cwd());
	try {
		if (!statSync(cwd).isDirectory()) throw new CliError(`--cwd: ${cwd} is not a folder`, USAGE_EXIT);
	} catch (error) {
		if (error instanceof CliError) throw error;
		throw new CliError(`--cwd: ${cwd} does not exist`, USAGE_EXIT);
	}
	const taskId = values['task-id'];
	if (taskId !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/.test(taskId))
		throw new CliError(`--task-id: expected letters, digits, '.', '_' or '-', got '${taskId}'`, USAGE_EXIT);
	// The default branch names the task, so a run given --worktree alone knows its id now.
	const worktreeTaskId = values.worktree === '' && taskId === undefined ? newTaskId() : (taskId ?? null);
	const worktree = worktreePlanOf(values.worktree, cwd, worktreeTaskId ?? '');
	const runAs = values.user === undefined ? null : lookupUser(values.user);
	if (values.user !== undefined && runAs === null) throw new CliError(`--user: no OS user named '${values.user}'`, USAGE_EXIT);
	const userRefusal = runAs ? runAsUserProblem(runAs, process.getuid?.() ?? -1) : null;
	if (userRefusal !== null) throw new CliError(`--user: ${userRefusal}; nothing run`, USAGE_EXIT);
	const brief = values.brief === undefined ? null : resolve(values.brief);
	if (brief !== null && !existsSync(brief)) throw new CliError(`--brief: no file at ${brief}`, USAGE_EXIT);
	const settings = commandSettings({
		budgetTokens: positiveInt('budget', values.budget),
		slots: positiveInt('slots', values.slots),
		heartbeatSeconds: positiveSeconds('heartbeat', values.heartbeat, minimumOf('heartbeatSeconds')),
		runGraceSeconds: positiveSeconds('grace', values.grace, minimumOf('runGraceSeconds')),
	});
	const agent = oneOf<AgentKind>('agent', values.agent, AGENT_KINDS) ?? guessAgent(command);
	const budgetCovers = oneOf('budget-covers', values['budget-covers'], ['run', 'session'] as const) ?? 'run';
	// A budget asked for that no count could ever reach is refused now, not found out after the money is spent.
	// Only for `claude` itself: where a launcher's Claude reads its settings, only the launcher knows.
	const countProblem =
		agent === 'claude' && basename(command) === 'claude' && (values.budget !== undefined || values['budget-usd'] !== undefined)
			? budgetCountProblem({args: contractRun?.args ?? args, cwd})
			: null;
	if (countProblem !== null)
		throw new CliError(`--budget: this Claude run's tokens cannot be counted: ${countProblem}; nothing run`, USAGE_EXIT);
	const onDeny = oneOf('on-deny', values['on-deny'], ['resume', 'stop'] as const) ?? 'resume';
	const onBudget = oneOf('on-budget', values['on-budget'], ['stop', 'ask'] as const) ?? 'stop';
	const ledgerFile = ledgerPath(values.ledger);
	const held = holdOf({
		agent,
		command,
		args: contractRun?.args ?? args,
		cwd,
		onDeny,
		onBudget,
		policyFlag: values.policy,
		ledgerFile,
		needsReapproval: contractRun?.needsReapproval ?? [],
	});
	const options = {
		command,
		args: held?.args ?? contractRun?.args ?? args,
		title: values.title ?? contractRun?.title ?? null,
		steps: positiveInt('steps', values.steps) ?? null,
		budget: settings.budgetTokens,
		budgetCovers,
		budgetUsd: positiveAmount('budget-usd', values['budget-usd']),
		prices: loadPriceTable(),
		agent,
		role: oneOf('role', values.role, ['worker', 'reviewer', 'tripwire'] as const) ?? 'worker',
		cwd,
		wait: !values['no-wait'],
		slots: settings.slots,
		home: controlroomHome(),
		heartbeatMs: settings.heartbeatSeconds * 1000,
		graceMs: settings.runGraceSeconds * 1000,
		logFile: values.log === undefined ? null : resolve(values.log),
		notice: (line: string) => process.stderr.write(`controlroom: ${line}\n`),
		taskId: worktreeTaskId ?? taskId ?? null,
		worktree,
		rerunOf: values['rerun-of'] ?? null,
		parentId: values.parent ?? null,
		argv: [command, ...args],
		contract:
			values.contract === undefined ? null : isStoredContractId(values.contract) ? values.contract : resolve(values.contract),
		contractSnapshot: contractRun?.snapshot ?? null,
		contractTrace: contractRun?.trace ?? null,
		otelEndpoint: otelEndpointOf(values.otel, agent),
		brief,
		runAs,
	};
	// A launcher (a script that runs claude -p) hides the agent: say once that nothing will be held, and how to have it held.
	if (values.agent === undefined && agent === 'generic' && isHeadless(args))
		options.notice(
			`${terminalSafe(basename(command))} is not claude and no --agent was given, so the agent is unknown: none of its tool calls will be held (--agent claude holds a headless Claude's; docs/headless-holds.md)`,
		);
	if (contractRun) {
		for (const warning of contractRun.warnings) options.notice(terminalSafe(`contract ${warning.field}: ${warning.message}`));
		options.notice(`contract "${contractRun.title}" put into the first turn (${contractRun.placement})`);
		if (contractRun.needsReapproval.length > 0 && held === null)
			options.notice(
				`contract authority.needs_reapproval is not held for this agent: only a headless claude -p run is (docs/headless-holds.md)`,
			);
	}
	// Swallow EPIPE on our own streams: a closed pager must not kill the wrapper while its child runs.
	process.stdout.on('error', () => undefined);
	process.stderr.on('error', () => undefined);
	const ledger = openCommandLedger(values.ledger, {mode: 'create', onMove: 'stay'});
	try {
		if (taskId !== undefined && ledger.reader.task(taskId))
			throw new CliError(`--task-id: the ledger already has a task ${taskId}`, USAGE_EXIT);
		if (values.parent !== undefined && !ledger.reader.task(values.parent))
			throw new CliError(`--parent: the ledger has no task ${terminalSafe(values.parent)}`, USAGE_EXIT);
		const runAsRefusal = runAs ? runAsProblem(runAs, ledger.path, process.getuid?.() ?? -1) : null;
		if (runAsRefusal !== null) throw new CliError(`--user: ${runAsRefusal}; nothing run`, USAGE_EXIT);
		if (contractRun?.traceException) {
			// The policy's exception path: the run goes on, and a person sees that its trace starts here.
			options.taskId ??= newTaskId();
			recordTraceException(ledger, options.taskId, contractRun.traceException);
		}
		return await runWrapped({...options, ledger, hold: held ? {...held.hold, decisions: heldDecisionsOf(ledger)} : null});
	} catch (error) {
		if (error instanceof WorktreeError) throw new CliError(`--worktree: ${error.message}; nothing registered`, USAGE_EXIT);
		throw error;
	} finally {
		ledger.close();
	}
}
