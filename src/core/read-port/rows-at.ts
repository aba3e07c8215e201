import type {EventOfType, LedgerEvent} from '../events.ts';
import {STATUSES, type Status} from '../status.ts';
import {applyEvent, type Task} from '../task.ts';
import type {RowsHost, SnapshotRows} from './host-rows.ts';
import {isRecent, type SnapshotRequest} from './read-port.ts';

/** An event with when it arrived in its host's ledger (null: before arrival was kept). */
export type ArrivedEvent = {readonly event: LedgerEvent; readonly arrivedAt: number | null};

/**
 * A task folded from its events as the writer folded it: applyEvent, each event at the time it
 * arrived (docs/ledger.md, "The ledger at a moment"). Undefined when no event made it a task.
 */
export function foldTask(events: readonly ArrivedEvent[]): Task | undefined {
	let task: Task | undefined;
	for (const {event, arrivedAt} of events) {
		if (event.type === 'foreign') continue;
		task = applyEvent(task, event, event.seq, arrivedAt ?? undefined);
	}
	return task;
}

const byNewest = (a: Task, b: Task): number => b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * One host's snapshot rows from its tasks and events as they were at a moment: what a store
 * gives for now, with the rules its queries apply (the window, the failed window, the needs that
 * may still be current) applied to the tasks of then. For a store that cannot ask its SQL for a
 * past moment (the fleet).
 */
export function snapshotRowsAt<T extends Task>(
	host: RowsHost,
	tasks: readonly T[],
	needRaised: readonly EventOfType<'need.raised'>[],
	gateEvents: readonly LedgerEvent[],
	request: SnapshotRequest,
): SnapshotRows {
	const sorted = [...tasks].sort(byNewest);
	const byId = new Map(sorted.map(task => [task.id, task]));
	const recentTasks = sorted.filter(task => isRecent(task, request.now));
	const recentIds = new Set(recentTasks.map(task => task.id));
	const needs = needRaised.filter(need => {
		const task = byId.get(need.taskId);
		return (
			!request.answeredBySession.includes(need.source) ||
			task === undefined ||
			(task.endedAt === null && need.at >= task.lastEventAt)
		);
	});
	const statusCounts = Object.fromEntries(STATUSES.map(status => [status, 0])) as Record<Status, number>;
	for (const task of sorted) statusCounts[task.status] += 1;
	return {
		host,
		recentTasks,
		needs,
		needTasks: [...new Set(needs.map(need => need.taskId))].filter(id => !recentIds.has(id)).flatMap(id => byId.get(id) ?? []),
		gateEvents,
		viewTasks: sorted.filter(task => request.viewSince === null || task.endedAt === null || task.endedAt >= request.viewSince),
		statusCounts,
	};
}
