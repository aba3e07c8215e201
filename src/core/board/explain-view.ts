import {explainTask, signalLine} from '../explain.ts';
import type {LedgerEvent} from '../events.ts';
import {formatDuration} from '../format.ts';
import type {HumanQueue} from '../human-queue.ts';
import type {Task} from '../task.ts';

/**
 * The drill-down's `why` line (issue 10; docs/board.md, "What it shows", and docs/snapshot.md,
 * "`controlroom explain`"): the signal behind the status the board shows, or, when two signals
 * disagree about a fact, both of them. The board reads no process table, so what only the process
 * table can say is left to `controlroom explain`.
 */
export function whyLine(
	task: Task,
	events: readonly LedgerEvent[],
	queue: HumanQueue,
	now: number,
	stallSeconds?: number,
): string {
	const entry = queue.lanes
		.flatMap(lane => lane.items.map(item => ({lane: lane.name, ...item})))
		.find(item => item.taskId === task.id);
	const explanation = explainTask({
		task,
		events,
		now,
		...(stallSeconds === undefined ? {} : {stallSeconds}),
		queueEntry: entry ? {lane: entry.lane, reason: entry.reason, at: entry.at, seq: entry.seq} : null,
		process: null,
		wrapper: null,
	});
	const disputed = explanation.facts.find(fact => fact.basis === 'disputed');
	if (disputed) {
		const sides = disputed.signals.slice(0, 2).map(signal => signalLine(signal, now, formatDuration));
		return `${disputed.field} disputed: ${sides.join(' vs ')}`;
	}
	const status = explanation.facts.find(fact => fact.field === 'status');
	const signal = status?.signals[0];
	const said = signal ? signalLine(signal, now, formatDuration) : 'no event set it';
	return `${status?.shows ?? task.status} (${status?.basis ?? 'unknown'}): ${said}`;
}
