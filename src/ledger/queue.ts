import type {ApproverCheck} from '../core/effects/fold.ts';
import {EventType} from '../core/events.ts';
import {
	earliestSignalAt,
	FAILED_WINDOW_MS,
	humanQueueOf,
	orderSignals,
	queueSignals,
	type HumanQueue,
} from '../core/human-queue.ts';
import type {Task} from '../core/task.ts';
import {readOrders} from './orders.ts';
import type {LedgerReader} from './reader.ts';

/**
 * Reads the rows the human queue is made from and lets its rules (src/core/human-queue.ts) compute
 * it. `isApproverAlive` tells a running approval from a dead one (outcome unknown), where known.
 */
export function loadHumanQueue(reader: LedgerReader, now: number, isApproverAlive?: ApproverCheck): HumanQueue {
	const recentTasks = reader.tasksForView(now - FAILED_WINDOW_MS);
	const needs = reader.eventsOfType([EventType.needRaised]);
	const tasks = new Map<string, Task>(recentTasks.map(task => [task.id, task]));
	for (const taskId of new Set(needs.map(need => need.taskId))) {
		const task = tasks.has(taskId) ? undefined : reader.task(taskId);
		if (task) tasks.set(taskId, task);
	}
	const signals = [
		...queueSignals({now, recentTasks, needs, tasks}),
		...orderSignals(readOrders(reader).values(), now, isApproverAlive),
	];
	return humanQueueOf({
		signals,
		tasks,
		acknowledgements: reader.eventsOfType([EventType.acknowledged]),
		endedSinceEarliest: reader.tasksForView(earliestSignalAt(signals, now)),
	});
}
