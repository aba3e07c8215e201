import type {AskedNeedKind} from '../core/stats/need-kinds.ts';
import {NEED_MAX_CHARS, overTextLimit} from '../core/text-limits.ts';
import {randomBytes} from 'node:crypto';
import {waitingLine, type AskedVerdict, type LineVerdict} from '../core/contract/line-verdicts.ts';
import {EventType, type NewEvent} from '../core/events.ts';
import type {QueueItem, QueueLane} from '../core/human-queue.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {acknowledgeEntry as recordAcknowledgement, loadHumanQueue} from '../ledger/queue.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import {requirePerson} from './person-gate.ts';
import {handedInScreenshots, implementersOf, lookedSince} from './screenshots-looked.ts';
import {checkedVerdicts, handInDuties, verdictEvents, verdictsSince} from './line-verdicts.ts';
import {isWaitingHandIn} from './review/send-back.ts';
import {ReviewGateError} from './review/subject.ts';

/**
 * Raises a need by hand (`controlroom need "TEXT" [--task ID]`): an entry in the queue's needs
 * lane until acknowledged. Without a task it gets an id of its own (`need-…`), which `ack` takes.
 */
export function raiseNeedByHand(
	ledger: Ledger,
	request: {
		readonly message: string;
		readonly taskRef: string | null;
		readonly source: string;
		/** A kind the measures count (`--kind missing_info`, docs/stats.md); null: a person's need. */
		readonly kind?: AskedNeedKind | null;
	},
): {readonly taskId: string} {
	const message = request.message.replace(/\s+/g, ' ').trim();
	if (message === '') throw new ReviewGateError('need: say what is needed (controlroom need "TEXT")');
	const tooLong = overTextLimit('need', message, NEED_MAX_CHARS);
	if (tooLong !== null) throw new ReviewGateError(`${tooLong} (say it shortly; put the detail in a file and name it)`);
	let taskId = `need-${randomBytes(4).toString('hex')}`;
	if (request.taskRef !== null) {
		const task = ledger.reader.resolveTask(request.taskRef);
		if (!task) throw new ReviewGateError(`--task: no task '${request.taskRef}' in ${ledger.path}`);
		taskId = task.id;
	}
	ledger.writer.append([
		{
			taskId,
			type: EventType.needRaised,
			at: Date.now(),
			source: request.source,
			data: {message, kind: request.kind ?? 'person', lane: 'needs'},
		},
	]);
	return {taskId};
}

/** A queue entry found by its task id or a unique prefix of it, else by the task its title (or session) names. */
function queueEntry(ledger: Ledger, ref: string, now: number): {readonly lane: QueueLane; readonly item: QueueItem} {
	const entries = loadHumanQueue(ledger.reader, now, {limit: Number.MAX_SAFE_INTEGER}).lanes.flatMap(lane =>
		lane.items.map(item => ({lane: lane.name, item})),
	);
	const exact = entries.filter(entry => entry.item.taskId === ref);
	const byPrefix = exact.length > 0 ? exact : entries.filter(entry => entry.item.taskId.startsWith(ref));
	// No entry's id begins so: TASK may be a task's title (or a session id), named as every command names one.
	const named = byPrefix.length > 0 || ref.trim() === '' ? null : ledger.reader.resolveTask(ref);
	const matches = named ? entries.filter(entry => entry.item.taskId === named.id) : byPrefix;
	const [match] = matches;
	if (!match) throw new ReviewGateError(`nothing in the queue for '${ref}' (controlroom snapshot lists it)`);
	if (matches.length > 1) {
		throw new AmbiguousTaskError(
			ref,
			matches.map(entry => ({id: entry.item.taskId, title: ledger.reader.task(entry.item.taskId)?.title ?? null, endedAt: null})),
		);
	}
	return match;
}

/**
 * Acknowledges a task's queue entry (`controlroom ack TASK`, the board's `k`): it leaves the queue
 * until a newer signal comes for that task.
 */
export function acknowledgeEntry(
	ledger: Ledger,
	ref: string,
	source: string,
	now = Date.now(),
): {readonly taskId: string; readonly lane: QueueLane; readonly reason: string} {
	requirePerson(ledger, {verb: 'ack', target: ref, source});
	const {lane, item} = queueEntry(ledger, ref, now);
	recordAcknowledgement(ledger, item.taskId, item.at, now, source);
	return {taskId: item.taskId, lane, reason: item.reason};
}

/** The names the ledger knows as workers: claim holders and the workers of work orders. */
function workerNames(ledger: Ledger): string[] {
	const claims = ledger.reader.eventsOfType([EventType.claimTaken]).map(event => event.data.holder ?? '');
	const orders = ledger.reader.eventsOfType([EventType.orderOpened]).map(event => event.data.worker ?? '');
	return [...claims, ...orders].filter(name => name.trim() !== '');
}

const sameName = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Why a waiting hand-in cannot be accepted yet, or null: nobody is named to accept it (its contract
 * names no acceptor and no person said they accept it), or a screenshot a UI line asks for has not
 * been looked at since the hand-in.
 */
function notYetAcceptable(ledger: Ledger, taskId: string): string | null {
	const [handedIn] = ledger.reader.latestEventsOf(taskId, [EventType.claimHandedIn], 1);
	const [named] = ledger.reader.latestEventsOf(taskId, [EventType.claimAcceptorNamed], 1);
	const [taken] = ledger.reader.latestEventsOf(taskId, [EventType.claimTaken], 1);
	if (handedIn && !handedIn.data.acceptor && !named)
		return `${taskId}: nobody is named to accept it yet: its contract names no acceptor; controlroom contract ready ${taken?.data.contract ?? 'FILE'} names you`;
	const lines = new Set(taken?.data.screenshots ?? []);
	const {at, shots} = handedInScreenshots(ledger, taskId);
	const looked = lookedSince(ledger, taskId, at ?? 0);
	const unseen = shots.filter(shot => lines.has(shot.line) && !looked.has(shot.sha256));
	if (unseen.length === 0) return null;
	const which = unseen.map(shot => `line ${shot.line}: ${shot.kept}`).join('; ');
	return `${taskId}: a screenshot the acceptance asks for has not been looked at (${which}): look at it, then controlroom looked ${taskId}`;
}

/** What an accept did: closed the hand-in, or recorded this acceptor's lines and left it open. */
export type AcceptResult = {
	readonly taskId: string;
	/** The acceptor, as the contract spells the name. */
	readonly by: string;
	/** Every acceptor has now said met for every line of theirs: the hand-in is accepted. */
	readonly accepted: boolean;
	/** Who still owes which lines (`waiting for lee: lines 2, 3`), or null. */
	readonly waiting: string | null;
	/** Lines someone said are unmet on this round (send-back carries them). */
	readonly unmet: readonly LineVerdict[];
};

/**
 * Accepts a hand-in that waits for its acceptor (`controlroom accept TASK`): only a person, and
 * never the one who did the work (docs/security.md, "Acceptance"). `as` names the person accepting
 * (the contract's acceptor, or another person); without it the OS user accepts. Either way the OS
 * user who said yes is recorded beside the name. The entry leaves the waiting lane, and the claim
 * reads accepted everywhere.
 */
export function acceptHandIn(
	ledger: Ledger,
	request: {
		readonly ref: string;
		readonly as: string | null;
		readonly note: string | null;
		readonly source: string;
		/** `--line N --met|--unmet REASON`; none: every line of this acceptor's is met. */
		readonly lines?: readonly AskedVerdict[];
	},
): AcceptResult {
	const person = requirePerson(ledger, {verb: 'accept', target: request.ref, source: request.source});
	const task = ledger.reader.resolveTask(request.ref);
	if (!task) throw new ReviewGateError(`no task '${request.ref}' in ${ledger.path}`);
	const [accepted] = ledger.reader.latestEventsOf(task.id, [EventType.workAccepted], 1);
	const [handedIn] = ledger.reader.latestEventsOf(task.id, [EventType.claimHandedIn], 1);
	if (accepted && handedIn && accepted.at >= handedIn.at) {
		throw new ReviewGateError(
			`${task.id} is already accepted (by ${accepted.data.by ?? 'unknown'}, ${new Date(accepted.at).toISOString()}): nothing to accept again`,
		);
	}
	if (!isWaitingHandIn(ledger, task)) {
		throw new ReviewGateError(`${task.id} is not a hand-in waiting for its acceptor (${task.endReason ?? task.status})`);
	}
	const waiting = notYetAcceptable(ledger, task.id);
	if (waiting !== null) throw new ReviewGateError(waiting);
	const osUser = person.user ?? 'unknown';
	const by = request.as?.trim() || osUser;
	for (const name of new Set([by, osUser])) {
		if (implementersOf(ledger, task.id).some(implementer => sameName(implementer, name))) {
			throw new ReviewGateError(
				`${task.id}: ${name} did this work (its operator, holder or actor): whoever does the work cannot accept it`,
			);
		}
	}
	if (request.as !== null && workerNames(ledger).some(worker => sameName(worker, by))) {
		throw new ReviewGateError(
			`--as ${by}: ${by} is a worker in this ledger (it holds claims or work orders): --as names a person`,
		);
	}
	return ledger.writer.transaction(() => {
		const duties = handInDuties(ledger, task.id);
		const {acceptor, verdicts} = checkedVerdicts(task.id, duties, by, request.lines ?? [], 'all-met');
		const at = Date.now();
		const before = verdictsSince(ledger, task.id, duties.handedInAt);
		const giver = {by: acceptor, osUser, uid: person.uid, source: request.source, at};
		const {events, standing} = verdictEvents(task.id, duties, before, verdicts, giver);
		const closing: NewEvent[] = standing.complete
			? [
					{
						taskId: task.id,
						type: EventType.workAccepted,
						at,
						source: request.source,
						data: {by: acceptor, note: request.note, osUser, uid: person.uid},
					},
				]
			: [];
		ledger.writer.append([...events, ...closing]);
		return {taskId: task.id, by: acceptor, accepted: standing.complete, waiting: waitingLine(standing), unmet: standing.unmet};
	});
}
