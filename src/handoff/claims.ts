import {createHash} from 'node:crypto';
import {realpathSync} from 'node:fs';
import {resolve} from 'node:path';
import {claimEnding, type ClaimEnding} from '../core/claim-state.ts';
import {acceptanceLines, acceptorsOf, operatorOf} from '../core/contract/model.ts';
import {checkEvidence, type HandInTerms} from '../core/contract/evidence.ts';
import type {ContractProblem} from '../core/contract/rules.ts';
import {EventType, type EventOfType, type NewEvent} from '../core/events.ts';
import {toSnapshotTask} from '../core/snapshot.ts';
import {isEnded} from '../core/status.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {checkContractFile, unreadContract} from './check-contract.ts';
import {ContractParseError, parseYaml, readContractText} from './contract-file.ts';

/** A claim's lease: silence longer than this makes it stalled (docs/contracts.md, "Claims": 30 min). */
export const CLAIM_LEASE_SECONDS = 1800;
/** Claim tasks carry this role, so the board and list_work can tell them from runs. */
export const CLAIM_ROLE = 'claim';
/** Longest output kept per evidence entry; the file itself stays the full record. */
const MAX_OUTPUT_CHARS = 4000;
/** The largest evidence file read: outputs are cut to MAX_OUTPUT_CHARS each anyway (docs/contracts.md, "Limits"). */
const MAX_EVIDENCE_BYTES = 4 * 1024 * 1024;

/** A refusal the caller can act on, with one problem per field. */
export class HandoffError extends Error {
	readonly problems: readonly ContractProblem[];
	constructor(message: string, problems: readonly ContractProblem[] = []) {
		super(message);
		this.name = 'HandoffError';
		this.problems = problems;
	}
}

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

/** Names are compared as people write them: case and surrounding spaces do not matter (as for acceptors). */
export function isSameName(a: string, b: string): boolean {
	return a.trim().toLowerCase() === b.trim().toLowerCase();
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

/**
 * Takes a contract: validates it, then decides inside one immediate transaction, so of two takers
 * at once exactly one wins; the other learns who holds it.
 */
export function takeContract(
	actor: Actor,
	file: string,
	holderHint: string | null,
	leaseSeconds = CLAIM_LEASE_SECONDS,
): TakeResult {
	const checked = checkContractFile(file);
	if (!checked.isValid || checked.contract === null) {
		const errors = checked.problems.filter(problem => problem.severity === 'error');
		recordReject(actor, `take ${checked.file}`, errors);
		const unread = unreadContract(checked);
		throw unread === null
			? new HandoffError(`${file}: invalid contract; not taken`, errors)
			: new HandoffError(`${unread}; not taken`);
	}
	const contract = checked.contract;
	if (actor.identity && holderHint !== null && !isSameName(holderHint, actor.identity))
		throw new HandoffError(`${actor.identity} cannot take a contract for ${holderHint}: a worker takes only for itself`);
	const holder = holderHint ?? actor.identity ?? operatorOf(contract) ?? process.env['USER'] ?? 'unknown';
	const key = contractKey(checked.file);
	const checks = acceptanceLines(contract);
	const now = actor.now ?? Date.now;
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
		const [passed] = latest ? actor.ledger.reader.latestEventsOf(latest.taskId, [EventType.claimPassedBack], 1) : [];
		const passedBack = passed && latest ? {by: holderOf(actor.ledger, latest.taskId), reason: passed.data.reason ?? ''} : null;
		const taskId = `claim-${key}-${(latest?.count ?? 0) + 1}`;
		const at = now();
		const terms: HandInTerms = {checks, acceptors: acceptorsOf(contract), operator: operatorOf(contract)};
		actor.ledger.writer.append([
			{
				taskId,
				type: EventType.registered,
				at,
				source: actor.source,
				data: {
					title: contract.title,
					source: actor.source,
					role: CLAIM_ROLE,
					cwd: null,
					stallSeconds: leaseSeconds,
					command: null,
				},
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
					contractDigest: checked.digest,
					contractText: checked.source,
				},
			},
		]);
		return {taskId, holder, title: contract.title, passedBack, checks, leaseSeconds};
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

/** Frees the claim; the reason is shown first to whoever takes the contract next. */
export function passBack(actor: Actor, ref: string, reason: string): Task {
	if (reason.trim() === '') throw new HandoffError('reason: required');
	return appendToHeld(actor, ref, 'pass it back', ({task, holder}, at) => [
		{
			taskId: task.id,
			type: EventType.claimPassedBack,
			at,
			source: actor.source,
			data: {reason, holder, actor: actorName(actor)},
		},
	]);
}

function termsOf(ledger: Ledger, taskId: string): HandInTerms {
	const [taken] = ledger.reader.latestEventsOf(taskId, [EventType.claimTaken], 1);
	return {checks: taken?.data.checks ?? [], acceptors: taken?.data.acceptors ?? {}, operator: taken?.data.operator ?? null};
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

export type HandInResult = {readonly taskId: string; readonly acceptor: string};

/**
 * Hands in a claim with an evidence file. Refused unless every acceptance line has passing
 * evidence and `uncertainty` is present; accepted work waits for its acceptor in the human queue.
 */
export function handIn(actor: Actor, ref: string, evidenceFile: string): HandInResult {
	// Whose claim it is comes before what the evidence says: another's claim is refused as such.
	keepingImpersonation(actor, () => claimFor(actor, ref, 'hand it in'));
	const document = readEvidence(evidenceFile);
	const outcome = keepingImpersonation(actor, () =>
		actor.ledger.writer.transaction<HandInResult | {taskId: string; problems: readonly ContractProblem[]}>(() => {
			const {task, holder} = claimFor(actor, ref, 'hand it in');
			const {evidence, problems} = checkEvidence(document, termsOf(actor.ledger, task.id));
			if (evidence === null || problems.length > 0) return {taskId: task.id, problems};
			const acceptor = evidence.review.acceptor;
			const at = (actor.now ?? Date.now)();
			actor.ledger.writer.append([
				{
					taskId: task.id,
					type: EventType.claimHandedIn,
					at,
					source: actor.source,
					data: {acceptor, evidenceFile: resolve(evidenceFile), evidence: clipOutputs(evidence), holder, actor: actorName(actor)},
				},
				{
					taskId: task.id,
					type: EventType.needRaised,
					at,
					source: actor.source,
					data: {lane: 'waiting', kind: 'hand-in', message: `hand-in waits for ${acceptor}`, actor: actorName(actor)},
				},
			]);
			return {taskId: task.id, acceptor};
		}),
	);
	if ('problems' in outcome) {
		// Outside the transaction: a refusal must not roll back its own record.
		recordReject(actor, `hand-in ${outcome.taskId} ${resolve(evidenceFile)}`, outcome.problems);
		throw new HandoffError(`hand-in of ${outcome.taskId} refused`, outcome.problems);
	}
	return outcome;
}

/**
 * Raises a need for a person on a task (the MCP `raise_need` verb), naming who raised it. A worker
 * raises one only on a claim it holds, or on its own task (`ownTask`: the run the agent that
 * started the server belongs to, CONTROLROOM_TASK_ID); another's claim or task is refused, naming
 * why, and kept in rejects.
 */
export function raiseNeed(actor: Actor, ref: string, message: string, ownTask: string | null = null): Task {
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
			data: {message, kind: 'agent', actor: actorName(actor)},
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
