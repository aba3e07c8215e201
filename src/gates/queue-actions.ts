import {NEED_MAX_CHARS, overTextLimit} from '../core/text-limits.ts';
import {randomBytes} from 'node:crypto';
import {EventType} from '../core/events.ts';
import type {QueueItem, QueueLane} from '../core/human-queue.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {loadHumanQueue} from '../ledger/queue.ts';
import {isWaitingHandIn} from './review/send-back.ts';
import {ReviewGateError} from './review/subject.ts';

/**
 * Raises a need by hand (`controlroom need "TEXT" [--task ID]`): an entry in the queue's needs
 * lane until acknowledged. Without a task it gets an id of its own (`need-…`), which `ack` takes.
 */
export function raiseNeedByHand(
	ledger: Ledger,
	request: {readonly message: string; readonly taskRef: string | null; readonly source: string},
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
		{taskId, type: EventType.needRaised, at: Date.now(), source: request.source, data: {message, kind: 'person', lane: 'needs'}},
	]);
	return {taskId};
}

/** A queue entry found by its task id or a unique prefix of it. */
function queueEntry(ledger: Ledger, ref: string, now: number): {readonly lane: QueueLane; readonly item: QueueItem} {
	const entries = loadHumanQueue(ledger.reader, now, {limit: Number.MAX_SAFE_INTEGER}).lanes.flatMap(lane =>
		lane.items.map(item => ({lane: lane.name, item})),
	);
	const exact = entries.filter(entry => entry.item.taskId === ref);
	const matches = exact.length > 0 ? exact : entries.filter(entry => entry.item.taskId.startsWith(ref));
	const [match] = matches;
	if (!match) throw new ReviewGateError(`nothing in the queue for '${ref}' (controlroom snapshot lists it)`);
	if (matches.length > 1) {
		throw new ReviewGateError(`'${ref}' is ambiguous: it matches ${matches.map(entry => entry.item.taskId).join(', ')}`);
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
	const {lane, item} = queueEntry(ledger, ref, now);
	ledger.writer.append([{taskId: item.taskId, type: EventType.acknowledged, at: now, source, data: {signalAt: item.at}}]);
	return {taskId: item.taskId, lane, reason: item.reason};
}

/**
 * Accepts a hand-in that waits for its acceptor (`controlroom accept TASK`): the entry leaves the
 * waiting lane, and the claim stays done.
 */
export function acceptHandIn(
	ledger: Ledger,
	request: {readonly ref: string; readonly by: string; readonly note: string | null; readonly source: string},
): {readonly taskId: string} {
	const task = ledger.reader.resolveTask(request.ref);
	if (!task) throw new ReviewGateError(`no task '${request.ref}' in ${ledger.path}`);
	if (!isWaitingHandIn(ledger, task)) {
		throw new ReviewGateError(`${task.id} is not a hand-in waiting for its acceptor (${task.endReason ?? task.status})`);
	}
	ledger.writer.append([
		{
			taskId: task.id,
			type: EventType.workAccepted,
			at: Date.now(),
			source: request.source,
			data: {by: request.by, note: request.note},
		},
	]);
	return {taskId: task.id};
}
