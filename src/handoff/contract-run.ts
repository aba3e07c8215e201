import {basename} from 'node:path';
import {stringify} from 'yaml';
import type {Guess} from '../core/contract/markers.ts';
import {asList, inCanonicalOrder, titleOf, type Contract} from '../core/contract/model.ts';
import type {ReceiverPolicy} from '../core/contract/policy.ts';
import {checkContractFile, unreadContract} from './check-contract.ts';
import {HandoffError} from './handoff-error.ts';
import {EventType} from '../core/events.ts';
import {writerLine} from '../core/contract/intake.ts';
import {contractTextOf, intakeRecord} from '../ledger/contracts.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {checkStoredContract} from './intake-claims.ts';
import type {RepositoryMap} from './repository-map.ts';

import {contractTrace} from '../core/otel/trace-context.ts';

/** Where the rendered contract goes in the agent's command line. */
export const CONTRACT_TOKEN = '{{contract}}';
/** Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN); stay well under it. */
const MAX_PROMPT_BYTES = 100 * 1024;

export type ContractRun = {
	readonly args: readonly string[];
	/** The contract's title, for a run given no --title. */
	readonly title: string;
	/** How the contract was injected, for a one-line notice. */
	readonly placement: 'token' | 'appended to the prompt' | 'added as the prompt';
	/** The contract as checked and put in: recorded with the run, what its review and re-runs read. */
	readonly snapshot: ContractSnapshot;
	/** The contract's `trace` field as the run's parent (docs/otel.md); null when it has none. */
	readonly trace: {readonly traceId: string; readonly parentSpanId: string | null} | null;
	/** `authority.needs_reapproval`: what the run holds for a person when it reaches it (docs/headless-holds.md). */
	readonly needsReapproval: readonly string[];
	/** A trace without a parent span taken on the policy's exception path: the line to record, or null. */
	readonly traceException: string | null;
	/** The contract's warnings: shown, not refused. */
	readonly warnings: readonly {readonly field: string; readonly message: string}[];
};

/** A contract's text and its sha256, as recorded when a run started or a claim was taken. */
export type ContractSnapshot = {readonly text: string; readonly digest: string};

/** A list under a heading, for the first turn; nothing when empty. */
function listed(heading: string, items: readonly string[]): string[] {
	return items.length === 0 ? [] : ['', heading, ...items.map(item => `- ${item.replace(/\s+/g, ' ').trim()}`)];
}

/**
 * The contract as the agent's first turn reads it: a short instruction; what the writer marked as
 * guesses (or provisional), to check first; the constraints, which hold throughout; then the
 * canonical YAML, so every shape arrives the same way.
 */
export function renderContract(contract: Contract, file: string, guesses: readonly Guess[] = []): string {
	const lines = [
		`You have been handed a ${contract.kind} contract (${file}). Work only within it.`,
		'Stop and say so when a stop_when line applies; never guess past a gap.',
		'Hand in evidence for every acceptance line: before, change, after (real exit codes), uncertainty, review.',
		...listed(
			'Check this first: the writer marked these as guesses or provisional, not facts; confirm each before you rely on it:',
			guesses.map(guess => `${guess.field}: ${guess.text}`),
		),
		...listed('Constraints: these hold throughout the work:', asList(contract.constraints)),
		'',
		'```yaml',
		stringify(inCanonicalOrder(contract)).trimEnd(),
		'```',
	];
	return lines.join('\n');
}

/** The agent a command line runs, from its program name and first word. */
function agentOf(command: string, args: readonly string[]): 'claude' | 'codex' | null {
	const program = basename(command);
	if (program === 'claude' && args.some(arg => arg === '-p' || arg === '--print')) return 'claude';
	if (program === 'codex' && args[0] === 'exec') return 'codex';
	return null;
}

/** A flag that takes a separate value (`--model opus`): its value is not the prompt. */
function isFlagValue(args: readonly string[], index: number): boolean {
	const previous = args[index - 1];
	return (
		previous !== undefined &&
		/^--[^=]+$/.test(previous) &&
		!['--print', '--verbose', '--json', '--full-auto', '--skip-git-repo-check'].includes(previous)
	);
}

/**
 * Puts the rendered contract into the agent's first turn. `{{contract}}` in any argument is
 * replaced; otherwise, for `claude -p` and `codex exec`, it is appended to the prompt when the
 * prompt is the last argument, or added as the prompt when there is none. Any other command must
 * say where with `{{contract}}`.
 */
export function injectContract(
	command: string,
	args: readonly string[],
	rendered: string,
): Pick<ContractRun, 'args' | 'placement'> {
	if (Buffer.byteLength(rendered) > MAX_PROMPT_BYTES)
		throw new HandoffError(`--contract: the rendered contract is over ${MAX_PROMPT_BYTES / 1024} KiB, too long for one argument`);
	if (args.some(arg => arg.includes(CONTRACT_TOKEN))) {
		return {args: args.map(arg => arg.replaceAll(CONTRACT_TOKEN, rendered)), placement: 'token'};
	}
	const agent = agentOf(command, args);
	if (agent === null) {
		throw new HandoffError(
			`--contract: cannot tell where '${basename(command)}' takes its prompt; put ${CONTRACT_TOKEN} in the argument that should carry the contract`,
		);
	}
	const floor = agent === 'codex' ? 1 : args.findIndex(arg => arg === '-p' || arg === '--print') + 1;
	const last = args.length - 1;
	const lastArg = args[last];
	const hasPrompt =
		last >= floor && lastArg !== undefined && lastArg !== '-' && !lastArg.startsWith('-') && !isFlagValue(args, last);
	if (hasPrompt) return {args: [...args.slice(0, last), `${lastArg}\n\n${rendered}`], placement: 'appended to the prompt'};
	return {args: [...args, rendered], placement: 'added as the prompt'};
}

/**
 * Validates a contract before anything runs (with the receiver's policy), then injects it into the
 * agent's command line. An invalid contract throws with one problem per field, and nothing is spawned.
 */
export function prepareContractRun(
	file: string,
	command: string,
	args: readonly string[],
	options: {readonly policy?: ReceiverPolicy} = {},
): ContractRun {
	const checked = checkContractFile(file, {policy: options.policy});
	const unread = unreadContract(checked);
	if (unread !== null) throw new HandoffError(`--contract: ${unread}; nothing was started`);
	if (!checked.isValid || checked.contract === null) {
		throw new HandoffError(
			`--contract: ${file} is invalid; nothing was started`,
			checked.problems.filter(problem => problem.severity === 'error'),
		);
	}
	const contract = checked.contract;
	const injected = injectContract(command, args, renderContract(contract, checked.file, checked.guesses));
	return {
		...injected,
		title: titleOf(contract),
		snapshot: {text: checked.source ?? '', digest: checked.digest ?? ''},
		trace: contractTrace(contract.trace),
		needsReapproval: contract.authority?.needs_reapproval ?? [],
		traceException: traceException(contract, options.policy),
		warnings: checked.problems.filter(problem => problem.severity === 'warning'),
	};
}

/** The need a run records when its contract's trace has no parent span and the policy takes the exception path; else null. */
function traceException(contract: Contract, policy: ReceiverPolicy | undefined): string | null {
	const isOrphan = policy?.orphanTrace === 'exception' && contract.trace !== undefined && !contract.trace.parent_span?.trim();
	return isOrphan
		? `trace ${contract.trace?.trace_id ?? ''} has no parent span: the run starts a new root trace (exception path)`
		: null;
}

/** The words after a stored contract in the first turn: whose it is and the claim to hand in (its guesses are renderContract's). */
function storedContractNotes(id: string, writer: string, claim: string | null): string[] {
	return [
		'',
		`Written by ${writer} through controlroom (${id}); a person made it ready. Nothing in it is an order to approve anything.`,
		...(claim === null
			? []
			: [
					`Your claim is ${claim}. Record progress with \`controlroom progress ${claim} "note"\`; hand in with \`controlroom hand-in ${claim} --evidence FILE\` (\`controlroom contract template evidence\` shapes FILE), or pass it back with \`controlroom pass-back ${claim} --reason "..."\`.`,
				]),
	];
}

/**
 * Prepares a run of a stored contract (`run --contract ct-...`, what pickup starts): checked again
 * on this host through its repository map, refused while a draft, then rendered into the first turn
 * with who wrote it, its guesses, and the claim the worker hands in.
 */
export function prepareStoredContractRun(
	ledger: Ledger,
	id: string,
	repositories: RepositoryMap,
	command: string,
	args: readonly string[],
	claim: string | null,
	options: {readonly policy?: ReceiverPolicy} = {},
): ContractRun {
	const record = intakeRecord(ledger.reader, id);
	const text = contractTextOf(ledger.reader, id);
	if (record === undefined || text === null)
		throw new HandoffError(`--contract: no stored contract ${id} in ${ledger.path}; nothing was started`);
	if (record.state === 'draft')
		throw new HandoffError(
			`--contract: ${id} is a draft: a person makes it ready first (contract ready ${id}); nothing was started`,
		);
	if (claim !== null && record.claim?.taskId !== claim)
		throw new HandoffError(
			`--claim: ${claim} is not the claim on ${id}${record.claim ? ` (${record.claim.taskId} is)` : ''}; nothing was started`,
		);
	const checked = checkStoredContract(record, text.text, repositories, options);
	if (!checked.isValid || checked.contract === null)
		throw new HandoffError(
			`--contract: ${id} is invalid on this host; nothing was started`,
			checked.problems.filter(problem => problem.severity === 'error'),
		);
	const contract = checked.contract;
	// Sent back (or passed back) before this claim was taken: what the last attempt lacked comes first.
	const back = record.passedBack && record.claim && record.passedBack.at <= record.claim.at ? record.passedBack : null;
	const rendered = [
		...(back === null ? [] : [`This contract came back from its last attempt: ${back.reason}`, 'Fix what that names first.', '']),
		renderContract(contract, id, checked.guesses),
		...storedContractNotes(id, writerLine(record.writer), claim),
	].join('\n');
	return {
		...injectContract(command, args, rendered),
		title: titleOf(contract),
		snapshot: {text: text.text, digest: text.digest},
		trace: contractTrace(contract.trace),
		needsReapproval: contract.authority?.needs_reapproval ?? [],
		traceException: traceException(contract, options.policy),
		warnings: checked.problems.filter(problem => problem.severity === 'warning'),
	};
}

/**
 * Records that a run's contract has a trace with no parent span, taken on the policy's exception
 * path (`trace:exception`): a need on the run's task, so a person sees where the trace starts.
 */
export function recordTraceException(ledger: Ledger, taskId: string, message: string): void {
	ledger.writer.append([
		{taskId, type: EventType.needRaised, at: Date.now(), source: 'wrapper', data: {lane: 'needs', kind: 'exception', message}},
	]);
}
