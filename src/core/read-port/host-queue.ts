import {decisionSignals, isAnswerable} from '../decisions/view.ts';
import type {ApproverCheck} from '../effects/fold.ts';
import {humanQueueOf, orderSignals, queueSignals, type HumanQueue} from '../human-queue.ts';
import {reviewSignals} from '../review/reviews.ts';
import {draftReason} from '../contract/intake.ts';
import type {Task} from '../task.ts';
import type {HostGates} from './host-gates.ts';
import type {HostRows} from './host-rows.ts';

/** How a queue is read. */
export type HostQueueOptions = {
	/** Entries a lane: five, unless a caller needs them all (`ack`, `explain`). */
	readonly limit?: number;
	/**
	 * Tells a running approval from a dead one (outcome unknown), where the approver's machine is
	 * this one; the same process check tells a question's waiting hook alive from one that died.
	 */
	readonly isApproverAlive?: ApproverCheck | undefined;
};

/**
 * One host's human queue from its rows and its folded gates, by the rules of
 * src/core/human-queue.ts. A success answers only a failure, and a failure is in the queue only
 * within the failed window, so the recent tasks are where every answering success is.
 */
export function hostQueue(rows: HostRows, gates: HostGates, now: number, options: HostQueueOptions = {}): HumanQueue {
	const tasks = new Map<string, Task>(rows.recentTasks.map(task => [task.id, task]));
	for (const task of rows.needTasks) if (!tasks.has(task.id)) tasks.set(task.id, task);
	// Claude's "needs your permission" Notification (6 s into a dialog) is the same question as the
	// decision its PermissionRequest hook asked: shown once, in the Decisions lane, where a and x answer it.
	const asking = new Set(
		[...gates.decisions.values()]
			.filter(decision => decision.kind === 'permission' && isAnswerable(decision, now, options.isApproverAlive))
			.map(decision => decision.taskId),
	);
	const needs =
		asking.size === 0
			? rows.needs
			: rows.needs.filter(need => !(need.data.kind === 'permission_prompt' && asking.has(need.taskId)));
	const signals = [
		...queueSignals({
			now,
			recentTasks: rows.recentTasks,
			needs,
			tasks,
			reviews: reviewSignals(gates.reviews),
			disagreements: gates.disagreements,
		}),
		...orderSignals(gates.orders.values(), now, options.isApproverAlive),
		...decisionSignals(gates.decisions.values(), now, options.isApproverAlive),
		// A draft waits for a person to make it ready (docs/serve.md).
		...[...gates.contracts.values()]
			.filter(record => record.state === 'draft')
			.map(record => ({
				taskId: record.id,
				lane: 'waiting' as const,
				reason: draftReason(record),
				at: record.writtenAt,
				seq: record.lastSeq,
			})),
	];
	return humanQueueOf({
		signals,
		tasks,
		acknowledgements: gates.acknowledgements,
		endedSinceEarliest: rows.recentTasks,
		closers: gates.closers,
		...(options.limit === undefined ? {} : {limit: options.limit}),
	});
}

/** The tasks whose disagreement is still in the host's queue: the whole lane, not the five it shows. */
export function openDisagreements(rows: HostRows, gates: HostGates, now: number): ReadonlySet<string> {
	if (gates.disagreements.length === 0) return new Set();
	const lane = hostQueue(rows, gates, now, {limit: Number.MAX_SAFE_INTEGER}).lanes.find(each => each.name === 'disagreements');
	return new Set(lane?.items.map(item => item.taskId) ?? []);
}
