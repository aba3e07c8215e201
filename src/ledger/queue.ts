import {EventType} from '../core/events.ts';
import {
	earliestSignalAt,
	FAILED_WINDOW_MS,
	humanQueueOf,
	queueEntryOf,
	queueSignals,
	type HumanQueue,
	type QueueRows,
	type QueueSignal,
} from '../core/human-queue.ts';
import type {Task} from '../core/task.ts';
import type {LedgerReader} from './reader.ts';

/** Reads the rows the human queue is made from. */
function loadQueueRows(reader: LedgerReader, now: number): QueueRows {
	const recentTasks = reader.tasksForView(now - FAILED_WINDOW_MS);
	const needs = reader.eventsOfType([EventType.needRaised]);
	const tasks = new Map<string, Task>(recentTasks.map(task => [task.id, task]));
	for (const taskId of new Set(needs.map(need => need.taskId))) {
		const task = tasks.has(taskId) ? undefined : reader.task(taskId);
		if (task) tasks.set(taskId, task);
	}
	const signals = queueSignals({now, recentTasks, needs, tasks});
	return {
		signals,
		tasks,
		acknowledgements: reader.eventsOfType([EventType.acknowledged]),
		endedSinceEarliest: reader.tasksForView(earliestSignalAt(signals, now)),
	};
}

/** Reads the rows the human queue is made from and lets its rules (src/core/human-queue.ts) compute it. */
export function loadHumanQueue(reader: LedgerReader, now: number): HumanQueue {
	return humanQueueOf(loadQueueRows(reader, now));
}

/** One task's queue entry, if it has one, by the same rules. */
export function loadQueueEntry(reader: LedgerReader, now: number, taskId: string): QueueSignal | null {
	return queueEntryOf(loadQueueRows(reader, now), taskId);
}
