import {EventType} from '../core/events.ts';
import {computeHumanQueue, FAILED_WINDOW_MS, type HumanQueue, type QueueSignal} from '../core/human-queue.ts';
import type {Task} from '../core/task.ts';
import type {LedgerReader} from './reader.ts';

const AGENT_SOURCES = new Set(['claude', 'codex']);

function failedReason(task: Task): string {
	if (task.error) return task.error;
	if (task.exitCode !== null) return `exit ${task.exitCode}`;
	return 'failed';
}

/**
 * Gathers the queue's signals from the ledger and computes it. An agent's own need is current
 * only until that session shows activity after it (the person answered it).
 */
export function loadHumanQueue(reader: LedgerReader, now: number): HumanQueue {
	const signals: QueueSignal[] = [];
	const taskCache = new Map<string, Task | undefined>();
	const taskOf = (id: string): Task | undefined => {
		if (!taskCache.has(id)) taskCache.set(id, reader.task(id));
		return taskCache.get(id);
	};
	for (const task of reader.tasksForView(now - FAILED_WINDOW_MS)) {
		taskCache.set(task.id, task);
		if (task.status === 'failed' && task.endedAt !== null && task.endedAt >= now - FAILED_WINDOW_MS) {
			signals.push({taskId: task.id, lane: 'failed', reason: failedReason(task), at: task.endedAt, seq: task.lastSeq});
		}
	}
	for (const event of reader.eventsOfType([EventType.needRaised])) {
		const task = taskOf(event.taskId);
		const fromAgent = AGENT_SOURCES.has(event.source);
		if (fromAgent && task && (task.lastEventAt > event.at || task.endedAt !== null)) continue;
		const lane = event.data.lane === 'waiting' ? 'waiting' : 'needs';
		signals.push({
			taskId: event.taskId,
			lane,
			reason: event.data.message ?? 'needs you',
			at: event.at,
			seq: event.seq,
		});
	}
	const acknowledgedAt = new Map<string, number>();
	for (const event of reader.eventsOfType([EventType.acknowledged])) {
		const at = event.data.signalAt ?? event.at;
		acknowledgedAt.set(event.taskId, Math.max(acknowledgedAt.get(event.taskId) ?? 0, at));
	}
	const earliest = signals.reduce((min, signal) => Math.min(min, signal.at), now);
	const successes = reader
		.tasksForView(earliest)
		.filter(task => task.status === 'done' && task.exitCode === 0 && task.endedAt !== null)
		.map(task => ({taskId: task.id, cwd: task.cwd, title: task.title, endedAt: task.endedAt ?? 0}));
	const taskKeys = new Map(
		signals.map(signal => {
			const task = taskOf(signal.taskId);
			return [signal.taskId, {cwd: task?.cwd ?? null, title: task?.title ?? null}] as const;
		}),
	);
	return computeHumanQueue({signals, acknowledgedAt, successes, taskKeys});
}
