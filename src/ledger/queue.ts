import {disagreementRecords} from '../core/disagreements.ts';
import {EventType} from '../core/events.ts';
import {earliestSignalAt, FAILED_WINDOW_MS, humanQueueOf, queueSignals, type HumanQueue} from '../core/human-queue.ts';
import {reviewSignals, type ReviewRecord} from '../core/review/reviews.ts';
import type {Task} from '../core/task.ts';
import type {LedgerReader} from './reader.ts';
import {loadReviews} from './reviews.ts';

/**
 * Reads the rows the human queue is made from and lets its rules (src/core/human-queue.ts) compute
 * it; `limit` entries a lane (five, unless a caller needs them all).
 */
export function loadHumanQueue(
	reader: LedgerReader,
	now: number,
	reviews: readonly ReviewRecord[] = loadReviews(reader),
	limit?: number,
): HumanQueue {
	const recentTasks = reader.tasksForView(now - FAILED_WINDOW_MS);
	const needs = reader.eventsOfType([EventType.needRaised]);
	const tasks = new Map<string, Task>(recentTasks.map(task => [task.id, task]));
	for (const taskId of new Set(needs.map(need => need.taskId))) {
		const task = tasks.has(taskId) ? undefined : reader.task(taskId);
		if (task) tasks.set(taskId, task);
	}
	const disagreements = disagreementRecords(reader.eventsOfType([EventType.disagreementOpened]));
	const signals = queueSignals({now, recentTasks, needs, tasks, reviews: reviewSignals(reviews), disagreements});
	return humanQueueOf({
		signals,
		tasks,
		acknowledgements: reader.eventsOfType([EventType.acknowledged]),
		endedSinceEarliest: reader.tasksForView(earliestSignalAt(signals, now)),
		closers: reader.eventsOfType([EventType.workSentBack, EventType.workAccepted]),
		...(limit === undefined ? {} : {limit}),
	});
}

/** One task's queue entry, if it has one (found past a lane's first five too), with its lane, as `explain` names it. */
export function loadQueueEntry(reader: LedgerReader, now: number, taskId: string) {
	const queue = loadHumanQueue(reader, now, undefined, Number.MAX_SAFE_INTEGER);
	for (const lane of queue.lanes) {
		const item = lane.items.find(entry => entry.taskId === taskId);
		if (item) return {lane: lane.name, reason: item.reason, at: item.at, seq: item.seq};
	}
	return null;
}
