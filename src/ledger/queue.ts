import {disagreementRecords} from '../core/disagreements.ts';
import type {ApproverCheck} from '../core/effects/fold.ts';
import {EventType} from '../core/events.ts';
import {
	earliestSignalAt,
	FAILED_WINDOW_MS,
	humanQueueOf,
	orderSignals,
	queueSignals,
	SESSION_ANSWERED_SOURCES,
	type HumanQueue,
} from '../core/human-queue.ts';
import {reviewSignals, type ReviewRecord} from '../core/review/reviews.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from './open-ledger.ts';
import {readOrders} from './orders.ts';
import type {LedgerReader} from './reader.ts';
import {loadReviews} from './reviews.ts';

/**
 * Records that a person saw the queue entry raised at `signalAt` (the board's `k`, and the same
 * key pressed on a fleet board, carried out by the task's host).
 */
export function acknowledgeEntry(ledger: Ledger, taskId: string, signalAt: number, now: number, source: string): void {
	ledger.writer.append([{taskId, type: EventType.acknowledged, at: now, source, data: {signalAt}}]);
}

export type QueueOptions = {
	/** The reviews, when the caller has read them already (the board's Reviews panel shares them). */
	readonly reviews?: readonly ReviewRecord[];
	/** Entries a lane: five, unless a caller needs them all. */
	readonly limit?: number;
	/** Tells a running approval from a dead one (outcome unknown), where known. */
	readonly isApproverAlive?: ApproverCheck | undefined;
};

/**
 * Reads the rows the human queue is made from (failures, needs, reviews, disagreements, work
 * orders) and lets its rules (src/core/human-queue.ts) compute it.
 */
export function loadHumanQueue(reader: LedgerReader, now: number, options: QueueOptions = {}): HumanQueue {
	const recentTasks = reader.tasksForView(now - FAILED_WINDOW_MS);
	const needs = reader.needsMaybeCurrent(SESSION_ANSWERED_SOURCES);
	const tasks = new Map<string, Task>(recentTasks.map(task => [task.id, task]));
	for (const taskId of new Set(needs.map(need => need.taskId))) {
		const task = tasks.has(taskId) ? undefined : reader.task(taskId);
		if (task) tasks.set(taskId, task);
	}
	const reviews = reviewSignals(options.reviews ?? loadReviews(reader));
	const disagreements = disagreementRecords(reader.eventsOfType([EventType.disagreementOpened]));
	const signals = [
		...queueSignals({now, recentTasks, needs, tasks, reviews, disagreements}),
		...orderSignals(readOrders(reader).values(), now, options.isApproverAlive),
	];
	return humanQueueOf({
		signals,
		tasks,
		acknowledgements: reader.eventsOfType([EventType.acknowledged]),
		endedSinceEarliest: reader.tasksForView(earliestSignalAt(signals, now)),
		closers: reader.eventsOfType([EventType.workSentBack, EventType.workAccepted]),
		...(options.limit === undefined ? {} : {limit: options.limit}),
	});
}

/** One task's queue entry, if it has one (found past a lane's first five too), with its lane, as `explain` names it. */
export function loadQueueEntry(reader: LedgerReader, now: number, taskId: string) {
	const queue = loadHumanQueue(reader, now, {limit: Number.MAX_SAFE_INTEGER});
	for (const lane of queue.lanes) {
		const item = lane.items.find(entry => entry.taskId === taskId);
		if (item) return {lane: lane.name, reason: item.reason, at: item.at, seq: item.seq};
	}
	return null;
}
