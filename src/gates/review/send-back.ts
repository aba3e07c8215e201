import type {Door} from '../../core/actor.ts';
import {acceptanceStanding, unmetForNextAttempt, type AskedVerdict} from '../../core/contract/line-verdicts.ts';
import {EventType, type NewEvent} from '../../core/events.ts';
import {renderFixes} from '../../core/review/chain.ts';
import {latestReviews} from '../../core/review/reviews.ts';
import type {Task} from '../../core/task.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {loadReviews} from '../../ledger/reviews.ts';
import {CLAIM_ROLE} from '../../handoff/claims.ts';
import {contractKeyOfClaim, DEFAULT_PASS_BACK_LIMIT, passBackLimitNeed} from '../../handoff/pass-back-limit.ts';
import {checkedVerdicts, handInDuties, verdictEvents, verdictsSince} from '../line-verdicts.ts';
import {requirePerson} from '../person-gate.ts';
import {DEFAULT_FAILED_RUN_LIMIT, failedRunsRefusal} from './failed-runs.ts';
import {prepareRerun, startRerun, type Launcher} from './rerun.ts';
import {ReviewGateError, reviewSubject} from './subject.ts';

/** Where work is sent back from: the queue lane it waited in. */
export type SentBackFrom = 'reviews' | 'failed' | 'waiting';

export type SendBackRequest = {
	readonly ledger: Ledger;
	readonly ref: string;
	readonly reason: string;
	/** `--line N --met|--unmet REASON` on a hand-in: recorded first; the unmet lines (these and earlier ones) go back. */
	readonly lines?: readonly AskedVerdict[];
	/** Who sends it back (recorded, and named in the worker's brief); null: the OS user asking. */
	readonly by: string | null;
	/** Which door: `cli`, `board` or `fleet`. */
	readonly source: string;
	/** A fleet board's request carried out by this host's sync; absent: this process's own terminal. */
	readonly door?: Door;
	/** How to start `controlroom run` in the background for the worker's next run. */
	readonly launcher: Launcher;
	/** Passes back a contract may have before it goes to Needs you (docs/config.md, `passBackLimit`): a returned claim counts. */
	readonly passBackLimit?: number;
	/** Failed runs after which a run is not started again (docs/config.md, `failedRunLimit`). */
	readonly failedRunLimit?: number;
};

export type SendBackResult = {
	readonly taskId: string;
	readonly from: SentBackFrom;
	/** The worker's next run, started in the background; null when a claim was returned instead. */
	readonly rerunTaskId: string | null;
	readonly logPath: string | null;
	readonly briefPath: string | null;
	readonly claimReturned: boolean;
	/** One line for the person. */
	readonly message: string;
};

/** The time a person last acted on the task (sent it back, accepted it), or null. */
function lastActedAt(ledger: Ledger, taskId: string): number | null {
	const [latest] = ledger.reader.latestEventsOf(taskId, [EventType.workSentBack, EventType.workAccepted], 1);
	return latest?.at ?? null;
}

/** Whether a claim was handed in and still waits for its acceptor. */
export function isWaitingHandIn(ledger: Ledger, task: Task): boolean {
	if (task.role !== CLAIM_ROLE || task.status !== 'done') return false;
	const [handedIn] = ledger.reader.latestEventsOf(task.id, [EventType.claimHandedIn], 1);
	if (!handedIn) return false;
	const acted = lastActedAt(ledger, task.id);
	return acted === null || acted < handedIn.at;
}

/** Which lane the task waits in for a person, or null when it waits in none `x` can act on. */
function waitingIn(ledger: Ledger, task: Task): SentBackFrom | null {
	const review = latestReviews(loadReviews(ledger.reader).filter(record => record.taskId === task.id))[0];
	const acted = lastActedAt(ledger, task.id);
	if (review?.outcome === 'needs-person' && (acted === null || acted < (review.concludedAt ?? 0))) return 'reviews';
	if (isWaitingHandIn(ledger, task)) return 'waiting';
	if (task.status === 'failed') return 'failed';
	return null;
}

/**
 * What goes back with a hand-in: the person's line verdicts (checked against the contract, as the
 * acceptor the contract names), then every line unmet on this round with its text and reasons, and
 * the free-text reason if any; never a met line. Nothing unmet and no reason: refused.
 */
function linesGoingBack(
	ledger: Ledger,
	taskId: string,
	by: string,
	asked: readonly AskedVerdict[],
	reason: string,
	asker: {readonly user: string | null; readonly uid: number | null; readonly source: string; readonly at: number},
): {events: NewEvent[]; by: string; reason: string; unmetLines: {line: number; reason: string | null; by: string}[]} {
	const duties = handInDuties(ledger, taskId);
	const before = verdictsSince(ledger, taskId, duties.handedInAt);
	let events: NewEvent[] = [];
	let standing = acceptanceStanding(duties.owed, before);
	let name = by;
	if (asked.length > 0) {
		const {acceptor, verdicts} = checkedVerdicts(taskId, duties, by, asked, 'none');
		const giver = {by: acceptor, osUser: asker.user ?? 'unknown', uid: asker.uid, source: asker.source, at: asker.at};
		({events, standing} = verdictEvents(taskId, duties, before, verdicts, giver));
		name = acceptor;
	}
	const carried = unmetForNextAttempt(standing.unmet, duties.checks);
	if (carried.length === 0 && reason === '')
		throw new ReviewGateError(
			`${taskId}: nothing to send back: no line is unmet (--line N --unmet "REASON" says which), and no --reason`,
		);
	return {
		events,
		by: name,
		reason: [...carried, ...(reason === '' ? [] : [reason])].join('; '),
		unmetLines: standing.unmet.map(verdict => ({line: verdict.line, reason: verdict.reason, by: verdict.by})),
	};
}

/** One line: what the person typed, its runs of whitespace (a pasted newline) made single spaces. */
function oneLine(reason: string): string {
	return reason.replace(/\s+/g, ' ').trim();
}

/**
 * Sends work back with a reason (the board's `x`, `controlroom send-back`): on a task in the
 * reviews lane, a failed task, or a hand-in waiting for its acceptor. A run started through the
 * wrapper runs again in the background with the reason added to its brief; a handed-in claim is
 * returned to the pool, the reason shown first to its next taker. Either way the reason is on the
 * ledger and the queue entry is closed.
 */
export function sendBack(request: SendBackRequest): SendBackResult {
	const person = requirePerson(request.ledger, {
		verb: 'send-back',
		target: request.ref,
		source: request.source,
		...(request.door ? {door: request.door} : {}),
	});
	const by = request.by ?? person.user ?? 'a person';
	const reason = oneLine(request.reason);
	const asked = request.lines ?? [];
	if (reason === '' && asked.length === 0)
		throw new ReviewGateError('send-back: a reason is required (what should be done differently?)');
	const task = request.ledger.reader.resolveTask(request.ref);
	if (!task) throw new ReviewGateError(`no task '${request.ref}' in ${request.ledger.path}`);
	if (asked.length > 0 && !(task.role === CLAIM_ROLE && isWaitingHandIn(request.ledger, task)))
		throw new ReviewGateError(
			`${task.id}: --line is for a hand-in waiting for its acceptors (its contract's acceptance lines); send this back with --reason`,
		);
	const from = waitingIn(request.ledger, task);
	if (from === null) {
		throw new ReviewGateError(
			`${task.id} is not waiting for a person (${task.status}): send back works on a task in the reviews lane, a failed task, or a hand-in waiting for its acceptor`,
		);
	}
	const at = Date.now();
	const base = {taskId: task.id, at, source: request.source};
	if (task.role === CLAIM_ROLE) {
		if (task.status !== 'done')
			throw new ReviewGateError(`claim ${task.id} is ${task.status}: only a handed-in claim can be returned`);
		const back = linesGoingBack(request.ledger, task.id, by, asked, reason, {
			user: person.user,
			uid: person.uid,
			source: request.source,
			at,
		});
		request.ledger.writer.append([
			...back.events,
			{
				...base,
				type: EventType.workSentBack,
				data: {reason: back.reason, by: back.by, from, claimReturned: true, unmetLines: back.unmetLines},
			},
			{...base, type: EventType.claimPassedBack, data: {reason: `sent back by ${back.by}: ${back.reason}`, holder: back.by}},
			...passBackLimitNeed(
				request.ledger,
				{taskId: task.id, contractKey: contractKeyOfClaim(request.ledger, task.id)},
				// After the send-back, which closes the task's entries up to its own time (src/core/human-queue.ts).
				at + 1,
				request.source,
				back.by,
				request.passBackLimit ?? DEFAULT_PASS_BACK_LIMIT,
			),
		]);
		return {
			taskId: task.id,
			from,
			rerunTaskId: null,
			logPath: null,
			briefPath: null,
			claimReturned: true,
			message: `sent back ${task.id}: the claim is free again; its next taker reads “${back.reason}” first`,
		};
	}
	const subject = reviewSubject(request.ledger, task);
	if (subject.worker === null)
		throw new ReviewGateError(`cannot send ${task.id} back: ${subject.notRerunnable ?? 'it cannot be run again'}`);
	const failed = failedRunsRefusal(
		request.ledger,
		subject.worker.rootId,
		request.failedRunLimit ?? DEFAULT_FAILED_RUN_LIMIT,
		request.source,
		at,
	);
	if (failed !== null) throw new ReviewGateError(`cannot send ${task.id} back: ${failed}`);
	const rerun = prepareRerun(request.ledger, subject.worker, renderFixes([reason], {kind: 'person', by}), 'sent back');
	request.ledger.writer.append([
		{
			...base,
			type: EventType.workSentBack,
			data: {
				reason,
				by,
				from,
				rerunTaskId: rerun.taskId,
				briefPath: rerun.briefPath,
				logPath: rerun.logPath,
				claimReturned: false,
			},
		},
	]);
	startRerun(request.ledger, rerun, request.launcher);
	return {
		taskId: task.id,
		from,
		rerunTaskId: rerun.taskId,
		logPath: rerun.logPath,
		briefPath: rerun.briefPath,
		claimReturned: false,
		message: `sent back ${task.id}: the worker runs again as ${rerun.taskId} with the reason in its brief`,
	};
}
