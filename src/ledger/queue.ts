import {EventType} from '../core/events.ts';
import {earliestSignalAt, FAILED_WINDOW_MS, humanQueueOf, queueSignals, type HumanQueue} from '../core/human-queue.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from './open-ledger.ts';
import type {LedgerReader} from './reader.ts';

/**
 * Records that a person saw the queue entry raised at `signalAt` (the board's `k`, and the same
 * key pressed on a fleet board, carried out by the task's host).
 */
export function acknowledgeEntry(ledger: Ledger, taskId: string, signalAt: number, now: number, source: string): void {
	ledger.writer.append([{taskId, type: EventType.acknowledged, at: now, source, data: {signalAt}}]);
}

/** Reads the rows the human queue is made from and lets its rules (src/core/human-queue.ts) compute it. */
export function loadHumanQueue(reader: LedgerReader, now: number): HumanQueue {
	const recentTasks = reader.tasksForView(now - FAILED_WINDOW_MS);
	const needs = reader.eventsOfType([EventType.needRaised]);
	const tasks = new Map<string, Task>(recentTasks.map(task => [task.id, task]));
	for (const taskId of new Set(needs.map(need => need.taskId))) {
		const task = tasks.has(taskId) ? undefined : reader.task(taskId);
		if (task) tasks.set(taskId, task);
	}
	const signals = queueSignals({now, recentTasks, needs, tasks});
	return humanQueueOf({
		signals,
		tasks,
		acknowledgements: reader.eventsOfType([EventType.acknowledged]),
		endedSinceEarliest: reader.tasksForView(earliestSignalAt(signals, now)),
	});
}
