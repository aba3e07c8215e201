import type {AskedNeedKind} from '../core/stats/need-kinds.ts';
import {createHash} from 'node:crypto';
import {realpathSync} from 'node:fs';
import {resolve} from 'node:path';
import {claimEnding, type ClaimEnding} from '../core/claim-state.ts';
import {dirname} from 'node:path';
import {screenshotLines, type Guess} from '../core/contract/markers.ts';
import {
	acceptanceLines,
	acceptorRoles,
	acceptorsOf,
	operatorOf,
	titleOf,
	type Acceptor,
	type Contract,
} from '../core/contract/model.ts';
import {checkEvidence, type EvidenceFacts, type HandInTerms} from '../core/contract/evidence.ts';
import {NO_POLICY, parsePolicy, policyList, type ReceiverPolicy} from '../core/contract/policy.ts';
import type {ContractProblem} from '../core/contract/problems.ts';
import {filesOutsideScope, hasScopeGlobs, scopeGlobsOf, type OutsideScope} from '../core/contract/scope.ts';
import {EventType, type EventOfType, type NewEvent} from '../core/events.ts';
import {toSnapshotTask} from '../core/snapshot.ts';
import {isEnded} from '../core/status.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {checkContractFile, checkContractSnapshot, unreadContract, type CheckedContract} from './check-contract.ts';
import {ContractParseError, parseYaml, readContractText} from './contract-file.ts';
import {HandoffError, isSameName} from './handoff-error.ts';
import {
	contractKeyOfClaim,
	DEFAULT_CLAIM_TIME_LIMIT_SECONDS,
	DEFAULT_PASS_BACK_LIMIT,
	passBackLimitNeed,
	passBackRefusal,
} from './pass-back-limit.ts';
import {namedAcceptorOf} from './ready.ts';
import {changedFiles, commitExists, repositoryDir} from './repository-facts.ts';
import {keepScreenshot} from './screenshots.ts';
import {runTripwires, type TripwireOutcome, type TripwireRunner} from './tripwires.ts';

export {HandoffError} from './handoff-error.ts';

/** A claim's lease: silence longer than this makes it stalled (docs/contracts.md, "Claims": 30 min). */
export const CLAIM_LEASE_SECONDS = 1800;
/** Claim tasks carry this role, so the board and list_work can tell them from runs. */
export const CLAIM_ROLE = 'claim';
/** Longest output kept per evidence entry; the file itself stays the full record. */
const MAX_OUTPUT_CHARS = 4000;
/** The largest evidence file read: outputs are cut to MAX_OUTPUT_CHARS each anyway (docs/contracts.md, "Limits"). */
const MAX_EVIDENCE_BYTES = 4 * 1024 * 1024;

/**
 * Who is acting, and through which door (cli or mcp). `identity` is a worker's name (MCP `--as`,
 * CLI `--as` or $CONTROLROOM_WORKER): a worker may progress, hand in or pass back only a claim it
 * holds. Without one, a person at a terminal acts (named by $USER) and may act on any claim, as a
 * lead frees a stalled one. Either way every claim event records the actor.
 */
export type Actor = {
	readonly ledger: Ledger;
	readonly source: 'cli' | 'mcp';
	readonly now?: () => number;
	readonly identity?: string | null;
};

/** The name recorded as `actor` on the events an actor writes. */
export function actorName(actor: Actor): string {
	return actor.identity ?? process.env['USER'] ?? 'unknown';
}

/** A worker acting on a claim someone else holds: refused, naming the holder, and kept in rejects. */
class NotHolderError extends HandoffError {}

export type TakeResult = {
	readonly taskId: string;
	readonly holder: string;
	readonly title: string;
	/** The previous taker's reason for passing it back: the first thing the new taker should read. */
	readonly passedBack: {readonly by: string; readonly reason: string} | null;
	readonly checks: readonly string[];
	readonly leaseSeconds: number;
	/** How long the holder keeps it, progress or not, before it goes to Needs you (docs/contracts.md, "Caps"). */
	readonly timeLimitSeconds: number;
	/** Who accepts the work: the contract's acceptors, or the person who named themselves; empty while nobody is named. */
	readonly acceptors: readonly string[];
	/** The tripwires run before the take (each a wrapped task), all passed. */
	readonly tripwires: readonly TripwireOutcome[];
	/** Warnings about the contract (a vague line, tool-specific wording): taken all the same. */
	readonly warnings: readonly ContractProblem[];
	/** What the writer marked as guesses or provisional: the taker checks these first. */
	readonly guesses: readonly Guess[];
};

/** What else a take is given: the receiver's policy, who hands it over, how tripwires run. */
export type TakeOptions = {
	/** What the receiver requires of the contract (docs/contracts.md, "The receiver's policy"). */
	readonly policy?: ReceiverPolicy;
	/**
	 * A person taking the contract for a worker (`take --for`): when the contract names no acceptor,
	 * this person accepts the work. The caller has checked that a person asks (docs/security.md).
	 */
	readonly handedOverBy?: string | null;
	/** Runs a tripwire through the wrapper; without one, tripwires are not run (and the take says so). */
	readonly runTripwire?: TripwireRunner;
	/** Passes back allowed since a person last handed the contract over (docs/config.md, `passBackLimit`). */
	readonly passBackLimit?: number;
	/** How long the holder keeps the claim before it goes to Needs you (docs/config.md, `claimTimeLimit`). */
	readonly timeLimitSeconds?: number;
};

/**
 * Keeps a refused contract or evidence file in the rejects table with its reasons (docs/contracts.md, "Rejects").
 * Only field names and messages are kept, never the file's text: it may hold a credential.
 */
function recordReject(actor: Actor, what: string, problems: readonly ContractProblem[]): void {
	const reason = [what, ...problems.map(problem => `${problem.field}: ${problem.message}`)].join('\n');
	actor.ledger.writer.reject({origin: actor.source === 'mcp' ? 'mcp' : 'handoff', line: null, reason, raw: null});
}

/** The same contract file always has the same key, whoever names it and however. */
export function contractKey(file: string): string {
	return createHash('sha256')
		.update(realpathSync(resolve(file)))
		.digest('hex')
		.slice(0, 12);
}

function holderOf(ledger: Ledger, taskId: string): string {
	const [taken] = ledger.reader.latestEventsOf(taskId, [EventType.claimTaken], 1);
	return taken?.data.holder ?? 'unknown';
}

/** Refuses an invalid contract, keeping the refusal in rejects. */
function refuseInvalid(actor: Actor, file: string, checked: CheckedContract): never {
	const errors = checked.problems.filter(problem => problem.severity === 'error');
	recordReject(actor, `take ${checked.file}`, errors);
	const unread = unreadContract(checked);
	throw unread === null
		? new HandoffError(`${file}: invalid contract; not taken`, errors)
		: new HandoffError(`${unread}; not taken`);
}

/** The name a person is recorded under as the one who accepts, with the duty that says why. */
const HANDED_OVER_DUTY = 'handed the work over; reviews it against the acceptance lines';

/**
 * Who accepts a claim: the contract's acceptors; when it names none, the person who takes it for a
 * worker, else the one named with `contract ready`; else nobody yet (the hand-in then waits).
 */
export function acceptorTermsOf(
	ledger: Ledger,
	contract: Contract,
	key: string,
	handedOverBy: string | null,
): {readonly acceptors: Readonly<Record<string, Acceptor>>; readonly namedBy: string | null} {
	const own = acceptorsOf(contract);
	if (Object.keys(own).length > 0) return {acceptors: own, namedBy: null};
	const named = handedOverBy !== null ? {name: handedOverBy, by: handedOverBy} : namedAcceptorOf(ledger, key);
	if (named === null) return {acceptors: {}, namedBy: null};
	return {acceptors: {[named.name]: {duty: HANDED_OVER_DUTY, lines: null}}, namedBy: named.by};
}

/**
 * Takes a contract: checks it (with the receiver's policy), runs its tripwires, then decides inside
 * one immediate transaction, so of two takers at once exactly one wins; the other learns who holds it.
 */
export function takeContract(
	actor: Actor,
	file: string,
	holderHint: string | null,
	leaseSeconds = CLAIM_LEASE_SECONDS,
	options: TakeOptions = {},
): TakeResult {
	const policy = options.policy ?? NO_POLICY;
	const timeLimitSeconds = options.timeLimitSeconds ?? DEFAULT_CLAIM_TIME_LIMIT_SECONDS;
	const checked = checkContractFile(file, {policy});
	if (!checked.isValid || checked.contract === null) refuseInvalid(actor, file, checked);
	const contract = checked.contract;
	if (actor.identity && holderHint !== null && !isSameName(holderHint, actor.identity))
		throw new HandoffError(`${actor.identity} cannot take a contract for ${holderHint}: a worker takes only for itself`);
	const holder = holderHint ?? actor.identity ?? operatorOf(contract) ?? process.env['USER'] ?? 'unknown';
	const key = contractKey(checked.file);
	const title = titleOf(contract);
	const {acceptors, namedBy} = acceptorTermsOf(actor.ledger, contract, key, options.handedOverBy ?? null);
	if (Object.keys(acceptors).some(name => isSameName(name, holder)))
		throw new HandoffError(`${file}: ${holder} would both do and accept this work: whoever does the work cannot accept it`);
	const repository = repositoryDir(dirname(checked.file), contract);
	const tripped = runTripwires(contract, repository, options.runTripwire, {verb: 'take', parentId: null, title});
	if (tripped.problems.length > 0) {
		recordReject(actor, `take ${checked.file}`, tripped.problems);
		throw new HandoffError(`${file}: a tripwire tripped; not taken`, tripped.problems);
	}
	const checks = acceptanceLines(contract);
	const now = actor.now ?? Date.now;
	const exception = policy.orphanTrace === 'exception' && contract.trace !== undefined && !contract.trace.parent_span?.trim();
	return actor.ledger.writer.transaction(() => {
		const latest = actor.ledger.reader.latestClaimOf(key);
		const previous = latest ? actor.ledger.reader.task(latest.taskId) : undefined;
		if (latest && previous && !isEnded(previous.status)) {
			const since = new Date(previous.startedAt ?? previous.createdAt).toISOString();
			throw new HandoffError(
				`${file}: held by ${holderOf(actor.ledger, latest.taskId)} (claim ${latest.taskId}, since ${since})`,
			);
		}
		if (latest && previous?.status === 'done') {
			throw new HandoffError(
				`${file}: handed in by ${holderOf(actor.ledger, latest.taskId)} (claim ${latest.taskId}); ${previous.endReason ?? 'waiting for its acceptor'}`,
			);
		}
		// Past the pass-back limit only a person hands the contract over again (docs/contracts.md, "Caps").
		const capped = options.handedOverBy
			? null
			: passBackRefusal(actor.ledger, key, options.passBackLimit ?? DEFAULT_PASS_BACK_LIMIT);
		if (capped !== null) throw new HandoffError(`${file}: ${capped}`);
		const [passed] = latest ? actor.ledger.reader.latestEventsOf(latest.taskId, [EventType.claimPassedBack], 1) : [];
		const passedBack = passed && latest ? {by: holderOf(actor.ledger, latest.taskId), reason: passed.data.reason ?? ''} : null;
		const taskId = `claim-${key}-${(latest?.count ?? 0) + 1}`;
		const at = now();
		const terms: HandInTerms = {checks, acceptors: acceptorRoles(acceptors), operator: operatorOf(contract)};
		actor.ledger.writer.append([
			{
				taskId,
				type: EventType.registered,
				at,
				source: actor.source,
				data: {title, source: actor.source, role: CLAIM_ROLE, cwd: null, stallSeconds: leaseSeconds, command: null},
			},
			{
				taskId,
				type: EventType.claimTaken,
				at,
				source: actor.source,
				data: {
					contract: checked.file,
					contractKey: key,
					kind: contract.kind,
					holder,
					actor: actorName(actor),
					passedBack,
					...terms,
					checks: [...checks],
					acceptorTerms: {...acceptors},
					acceptorNamedBy: namedBy,
					handedOverBy: options.handedOverBy ?? null,
					timeLimitSeconds,
					screenshots: screenshotLines(checks),
					policy: policyList(policy),
					contractDigest: checked.digest,
					contractText: checked.source,
					tripwires: tripped.outcomes,
				},
			},
			// A trace with no parent, taken on the exception path the policy allows: recorded, and a person sees it.
			...(exception
				? [
						{
							taskId,
							type: EventType.needRaised,
							at,
							source: actor.source,
							data: {
								lane: 'needs',
								kind: 'exception',
								message: `trace ${contract.trace?.trace_id ?? ''} has no parent span: taken as a new root trace (exception path)`,
								actor: actorName(actor),
							},
						},
					]
				: []),
		]);
		return {
			taskId,
			holder,
			title,
			passedBack,
			checks,
			leaseSeconds,
			timeLimitSeconds,
			acceptors: Object.keys(acceptors),
			tripwires: tripped.outcomes,
			warnings: checked.problems.filter(problem => problem.severity === 'warning'),
			guesses: checked.guesses,
		};
	});
}

/** Finds a claim that is still held; anything else is a refusal naming why. */
function heldClaim(ledger: Ledger, ref: string): Task {
	const task = ledger.reader.resolveTask(ref);
	if (!task) throw new HandoffError(`no task '${ref}' in ${ledger.path}`);
	if (task.role !== CLAIM_ROLE) throw new HandoffError(`task ${task.id} is not a claim (take a contract first)`);
	if (isEnded(task.status)) throw new HandoffError(`claim ${task.id} has ended (${task.endReason ?? task.status})`);
	return task;
}

/**
 * A claim still held that the actor may act on: a worker (an actor with an identity) only on its
 * own; a person at a terminal on any. Returns the task and its holder.
 */
function claimFor(actor: Actor, ref: string, verb: string): {task: Task; holder: string} {
	const task = heldClaim(actor.ledger, ref);
	const holder = holderOf(actor.ledger, task.id);
	if (actor.identity && !isSameName(holder, actor.identity))
		throw new NotHolderError(`claim ${task.id} is held by ${holder}; ${actor.identity} cannot ${verb}`);
	return {task, holder};
}

/** Runs a verb; a refusal for acting on another's claim is kept in rejects (outside the rolled-back transaction). */
function keepingImpersonation<T>(actor: Actor, fn: () => T): T {
	try {
		return fn();
	} catch (error) {
		if (error instanceof NotHolderError) recordReject(actor, `${actorName(actor)} refused: ${error.message}`, []);
		throw error;
	}
}

function appendToHeld(
	actor: Actor,
	ref: string,
	verb: string,
	build: (claim: {task: Task; holder: string}, at: number) => NewEvent[],
): Task {
	return keepingImpersonation(actor, () =>
		actor.ledger.writer.transaction(() => {
			const claim = claimFor(actor, ref, verb);
			actor.ledger.writer.append(build(claim, (actor.now ?? Date.now)()));
			return claim.task;
		}),
	);
}

/** Records a progress note; it renews the lease. */
export function recordProgress(actor: Actor, ref: string, note: string): Task {
	if (note.trim() === '') throw new HandoffError('note: required');
	return appendToHeld(actor, ref, 'progress it', ({task, holder}, at) => [
		{
			taskId: task.id,
			type: EventType.claimProgressed,
			at,
			source: actor.source,
			data: {note, holder, actor: actorName(actor)},
		},
	]);
}

/**
 * Frees the claim; the reason is shown first to whoever takes the contract next. The pass-back
 * past `limit` (docs/config.md, `passBackLimit`) also puts the contract in Needs you.
 */
export function passBack(actor: Actor, ref: string, reason: string, limit = DEFAULT_PASS_BACK_LIMIT): Task {
	if (reason.trim() === '') throw new HandoffError('reason: required');
	return appendToHeld(actor, ref, 'pass it back', ({task, holder}, at) => [
		{
			taskId: task.id,
			type: EventType.claimPassedBack,
			at,
			source: actor.source,
			data: {reason, holder, actor: actorName(actor)},
		},
		...passBackLimitNeed(
			actor.ledger,
			{taskId: task.id, contractKey: contractKeyOfClaim(actor.ledger, task.id)},
			at,
			actor.source,
			actorName(actor),
			limit,
		),
	]);
}

/** What a hand-in is judged by, as recorded at the take (and any acceptor named since). */
type ClaimTerms = {
	readonly terms: HandInTerms;
	readonly policy: ReceiverPolicy;
	/** The contract as it was taken (its snapshot), for its scope and tripwires; null for a claim taken before snapshots. */
	readonly contract: Contract | null;
	readonly contractFile: string | null;
};

function claimTermsOf(ledger: Ledger, taskId: string, holder: string): ClaimTerms {
	const [taken] = ledger.reader.latestEventsOf(taskId, [EventType.claimTaken], 1);
	const data = taken?.data;
	const [named] = ledger.reader.latestEventsOf(taskId, [EventType.claimAcceptorNamed], 1);
	const recorded = data?.acceptors ?? {};
	const fromReady = Object.keys(recorded).length === 0 && data?.contractKey ? namedAcceptorOf(ledger, data.contractKey) : null;
	const late = named?.data.acceptor ?? fromReady?.name ?? null;
	const acceptors = Object.keys(recorded).length > 0 || late === null ? recorded : {[late]: late};
	const parsed = parsePolicy(data?.policy ?? []);
	const snapshot =
		typeof data?.contractText === 'string' && typeof data.contract === 'string'
			? checkContractSnapshot(data.contractText, data.contract).contract
			: null;
	return {
		terms: {
			checks: data?.checks ?? [],
			acceptors,
			operator: data?.operator ?? null,
			screenshots: data?.screenshots ?? [],
			holder,
		},
		policy: 'policy' in parsed ? parsed.policy : NO_POLICY,
		contract: snapshot,
		contractFile: data?.contract ?? null,
	};
}

function readEvidence(file: string): unknown {
	try {
		return parseYaml(readContractText(file, MAX_EVIDENCE_BYTES), file);
	} catch (error) {
		if (error instanceof ContractParseError) throw new HandoffError(error.message);
		throw error;
	}
}

function clipOutputs<T>(value: T): T {
	if (typeof value === 'string') return (value.length > MAX_OUTPUT_CHARS ? `${value.slice(0, MAX_OUTPUT_CHARS)}…` : value) as T;
	if (Array.isArray(value)) return value.map(clipOutputs) as T;
	if (value !== null && typeof value === 'object')
		return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, clipOutputs(child)])) as T;
	return value;
}

export type HandInResult = {
	readonly taskId: string;
	/** Who accepts it; null while nobody is named (the hand-in waits until a person names one). */
	readonly acceptor: string | null;
	/** Files the change touched outside the contract's scope. */
	readonly outsideScope: readonly OutsideScope[];
	readonly tripwires: readonly TripwireOutcome[];
	/** What the hand-in was told but not refused for (files outside the scope, a scope not compared). */
	readonly warnings: readonly ContractProblem[];
};

/** What else a hand-in is given. */
export type HandInOptions = {
	/** The evidence itself (the MCP tool's `evidence`), instead of a file. */
	readonly evidence?: unknown;
	/** Runs a tripwire through the wrapper; without one, tripwires are not run. */
	readonly runTripwire?: TripwireRunner;
};

/**
 * The change against the contract's scope: the files between its base revision and the hand-in's
 * patch revision (review.commit) outside scope.allowed, under scope.excluded, or outside
 * authority.may_write. Errors when the policy requires the scope, else warnings; a scope that
 * cannot be compared says why.
 */
function scopeProblems(
	contract: Contract,
	repository: string | null,
	patch: string,
	policy: ReceiverPolicy,
): {readonly outside: OutsideScope[]; readonly problems: ContractProblem[]; readonly note: string | null} {
	const globs = scopeGlobsOf(contract);
	if (!hasScopeGlobs(globs)) return {outside: [], problems: [], note: null};
	const isRequired = policy.requires.has('scope');
	const severity = isRequired ? 'error' : 'warning';
	// Not compared: recorded with the hand-in; refused only when the receiver requires the scope.
	const notCompared = (why: string) => {
		const note = `the change was not compared with the scope: ${why}`;
		return {
			outside: [],
			note,
			problems: isRequired
				? [
						{
							severity: 'error' as const,
							field: 'review.commit',
							message: `${note}; the receiver's policy (scope) needs it compared`,
						},
					]
				: [],
		};
	};
	const base = typeof contract.context === 'object' ? contract.context.base_revision : undefined;
	if (repository === null) return notCompared("the contract's repository is not on this machine");
	if (base === undefined) return notCompared('the contract has no base revision');
	if (!commitExists(repository, patch)) return notCompared(`${patch} is not a commit in the repository`);
	const files = changedFiles(repository, base, patch);
	if (files === null) return notCompared(`git cannot tell what changed between ${base} and ${patch}`);
	const outside = filesOutsideScope(files, globs);
	return {
		outside,
		note: null,
		problems: outside.map(({file, reason}) => ({
			severity,
			field: 'change',
			message: `${file}: outside the scope (${reason})${isRequired ? "; the receiver's policy (scope) refuses it" : ''}`,
		})),
	};
}

/** The queue line a hand-in raises: who it waits for, and what left the scope. */
function waitingMessage(acceptor: string | null, contractFile: string | null, outside: readonly OutsideScope[]): string {
	const who =
		acceptor === null
			? `until a person names its acceptor (controlroom contract ready ${contractFile ?? 'FILE'})`
			: `for ${acceptor}`;
	const files = outside.map(item => item.file);
	const shown = files.length > 3 ? `${files.slice(0, 3).join(', ')} and ${files.length - 3} more` : files.join(', ');
	return `hand-in waits ${who}${files.length > 0 ? `; ${files.length} file${files.length === 1 ? '' : 's'} outside the scope: ${shown}` : ''}`;
}

/**
 * Hands in a claim with evidence (a file, or given inline). Refused unless every acceptance line
 * has evidence that shows it done and `uncertainty` is present, no tripwire trips, and (with the
 * scope policy) the change stays in scope; accepted work waits for its acceptor in the human queue,
 * or, when the contract names nobody, until a person names one.
 */
export function handIn(actor: Actor, ref: string, evidenceFile: string | null, options: HandInOptions = {}): HandInResult {
	// Whose claim it is comes before what the evidence says: another's claim is refused as such.
	const {task: claimed, holder: claimHolder} = keepingImpersonation(actor, () => claimFor(actor, ref, 'hand it in'));
	const document = options.evidence !== undefined ? options.evidence : readEvidence(evidenceFile ?? '');
	const claim = claimTermsOf(actor.ledger, claimed.id, claimHolder);
	const baseDir = claim.contractFile === null ? process.cwd() : dirname(claim.contractFile);
	const repository = claim.contract === null ? null : repositoryDir(baseDir, claim.contract);
	const evidenceDir = evidenceFile === null ? process.cwd() : dirname(resolve(evidenceFile));
	const facts: EvidenceFacts = {
		...(repository === null ? {} : {commitExists: (revision: string) => commitExists(repository, revision)}),
		keepScreenshot: file => keepScreenshot(actor.ledger.path, evidenceDir, file),
	};
	const verdict = checkEvidence(document, claim.terms, facts);
	const problems: ContractProblem[] = [...verdict.problems];
	let outside: OutsideScope[] = [];
	let scopeNote: string | null = null;
	let tripwires: readonly TripwireOutcome[] = [];
	if (verdict.evidence !== null && claim.contract !== null) {
		const scope = scopeProblems(claim.contract, repository, verdict.evidence.review.commit, claim.policy);
		outside = scope.outside;
		scopeNote = scope.note;
		problems.push(...scope.problems);
		if (!problems.some(problem => problem.severity === 'error')) {
			const run = runTripwires(claim.contract, repository, options.runTripwire, {
				verb: 'hand-in',
				parentId: claimed.id,
				title: titleOf(claim.contract),
			});
			tripwires = run.outcomes;
			problems.push(...run.problems);
		}
	}
	const evidenceName = evidenceFile === null ? '(evidence given inline)' : resolve(evidenceFile);
	if (verdict.evidence === null || problems.some(problem => problem.severity === 'error')) {
		recordReject(actor, `hand-in ${claimed.id} ${evidenceName}`, problems);
		throw new HandoffError(`hand-in of ${claimed.id} refused`, problems);
	}
	const evidence = verdict.evidence;
	const acceptor = verdict.acceptor;
	return keepingImpersonation(actor, () =>
		actor.ledger.writer.transaction(() => {
			const {task, holder} = claimFor(actor, ref, 'hand it in');
			const at = (actor.now ?? Date.now)();
			actor.ledger.writer.append([
				{
					taskId: task.id,
					type: EventType.claimHandedIn,
					at,
					source: actor.source,
					data: {
						acceptor,
						evidenceFile: evidenceName,
						evidence: clipOutputs(evidence),
						holder,
						actor: actorName(actor),
						outsideScope: outside,
						scopeNote,
						tripwires,
					},
				},
				{
					taskId: task.id,
					type: EventType.needRaised,
					at,
					source: actor.source,
					data: {
						lane: 'waiting',
						kind: 'hand-in',
						message: waitingMessage(acceptor, claim.contractFile, outside),
						actor: actorName(actor),
					},
				},
			]);
			return {
				taskId: task.id,
				acceptor,
				outsideScope: outside,
				tripwires,
				warnings: problems.filter(problem => problem.severity === 'warning'),
			};
		}),
	);
}

/**
 * Raises a need for a person on a task (the MCP `raise_need` verb), naming who raised it. A worker
 * raises one only on a claim it holds, or on its own task (`ownTask`: the run the agent that
 * started the server belongs to, CONTROLROOM_TASK_ID); another's claim or task is refused, naming
 * why, and kept in rejects.
 */
export function raiseNeed(
	actor: Actor,
	ref: string,
	message: string,
	ownTask: string | null = null,
	kind: AskedNeedKind | null = null,
): Task {
	if (message.trim() === '') throw new HandoffError('message: required');
	const task = keepingImpersonation(actor, () => {
		const found = actor.ledger.reader.resolveTask(ref);
		if (!found) throw new HandoffError(`no task '${ref}' in ${actor.ledger.path}`);
		if (!actor.identity || found.id === ownTask) return found;
		if (found.role !== CLAIM_ROLE)
			throw new NotHolderError(
				`task ${found.id} is not ${actor.identity}'s: a worker raises a need on a claim it holds or its own run`,
			);
		return claimFor(actor, found.id, 'raise a need on it').task;
	});
	actor.ledger.writer.append([
		{
			taskId: task.id,
			type: EventType.needRaised,
			at: (actor.now ?? Date.now)(),
			source: actor.source,
			// A kind the worker gave (missing_info) is counted by the measures (docs/stats.md); else it is the agent's.
			data: {message, kind: kind ?? 'agent', actor: actorName(actor)},
		},
	]);
	return task;
}

/** One contract's latest claim, as `list_work` reports it. */
export type WorkItem = {
	readonly taskId: string;
	readonly title: string | null;
	readonly contract: string | null;
	readonly kind: string | null;
	readonly holder: string;
	readonly state: 'held' | 'stalled' | ClaimEnding | 'ended';
	readonly lastEventAt: string;
	readonly endReason: string | null;
};

/** The latest claim of every contract ever taken, newest first: held, stalled, handed in, accepted, passed back or rejected (free to take). */
export function listWork(ledger: Ledger, now: number): WorkItem[] {
	const latest = new Map<string, EventOfType<'claim.taken'>>();
	for (const event of ledger.reader.eventsOfType([EventType.claimTaken])) {
		latest.set(event.data.contractKey ?? event.taskId, event);
	}
	const items: WorkItem[] = [];
	for (const event of [...latest.values()].reverse()) {
		const task = ledger.reader.task(event.taskId);
		if (!task) continue;
		const view = toSnapshotTask(task, now);
		const state: WorkItem['state'] = !isEnded(task.status)
			? view.health === 'stalled'
				? 'stalled'
				: 'held'
			: (claimEnding(task) ?? 'ended');
		items.push({
			taskId: task.id,
			title: task.title,
			contract: event.data.contract ?? null,
			kind: event.data.kind ?? null,
			holder: event.data.holder ?? 'unknown',
			state,
			lastEventAt: view.lastEventAt,
			endReason: task.endReason,
		});
	}
	return items;
}
