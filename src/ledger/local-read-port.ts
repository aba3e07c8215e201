import {GATE_EVENT_TYPES} from '../core/read-port/host-gates.ts';
import type {HostRows} from '../core/read-port/host-rows.ts';
import {queuePartOf, recentTasksOf, type ReadPort, type RowsRequest} from '../core/read-port/read-port.ts';
import {STATS_EVENT_TYPES} from '../core/stats/measures.ts';
import type {LedgerReader} from './reader.ts';

/**
 * The local ledger as the read port (src/core/read-port/read-port.ts): one host, read
 * synchronously, rows only. `label` is the host name its tasks are shown with (null when not given).
 */
export function localReadPort(reader: LedgerReader, label: string | null = null): ReadPort<'sync'> {
	const queueRows = (request: RowsRequest): HostRows[] => {
		const recentTasks = recentTasksOf(request, since => reader.queueTasksSince(since));
		const needs = reader.needsMaybeCurrent(request.answeredBySession);
		const recentIds = new Set(recentTasks.map(task => task.id));
		const missing = [...new Set(needs.map(need => need.taskId))].filter(id => !recentIds.has(id));
		return [
			{
				host: {id: reader.hostId(), label},
				recentTasks,
				needs,
				needTasks: reader.tasksById(missing),
				gateEvents: reader.eventsOfType(GATE_EVENT_TYPES),
			},
		];
	};
	return {
		queueRows,
		snapshotRows(request) {
			const viewTasks = reader.tasksForView(request.viewSince);
			return queueRows(queuePartOf(request, viewTasks)).map(rows => ({...rows, viewTasks, statusCounts: reader.statusCounts()}));
		},
		statsEvents: () => [{hostId: reader.hostId(), events: reader.eventsOfType(STATS_EVENT_TYPES)}],
	};
}
