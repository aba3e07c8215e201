import {snapshotDecisions, type SnapshotDecision} from '../decisions/view.ts';
import type {ApproverCheck} from '../effects/fold.ts';
import {snapshotEffects, type SnapshotEffect} from '../effects/view.ts';
import {mergeHumanQueues, type HumanQueue} from '../human-queue.ts';
import {shownReviews} from '../review/reviews.ts';
import {
	buildSnapshot,
	toSnapshotDisagreements,
	carriedByHelpers,
	healthAndLane,
	snapshotTaskOf,
	toSnapshotVerdicts,
	type Snapshot,
	type SnapshotDisagreement,
	type SnapshotVerdict,
} from '../snapshot.ts';
import {isListed} from '../status.ts';
import {seenState} from '../seen.ts';
import {familyOf} from '../family.ts';
import {shippedPriceTable, type PriceTable} from '../price-table.ts';
import {hostGatesOf} from './host-gates.ts';
import {snapshotContracts, type SnapshotContract} from '../contract/intake.ts';
import {hostQueue, openDisagreements} from './host-queue.ts';
import {isWholeTask, type RowsHost, type SnapshotRows, type ViewRow} from './host-rows.ts';
import {mergeOrdered, sumStatusCounts} from './merge.ts';

/** How a snapshot is made from the rows. */
export type SnapshotOfQuery = {
	readonly now: number;
	/** Ended tasks, and gates settled, at or after this are shown (all when null). */
	readonly since: number | null;
	readonly stallSeconds?: number;
	/** Tells a running approval from a dead one (outcome unknown); without it, started stays started. */
	readonly isApproverAlive?: ApproverCheck | undefined;
	/** A fleet snapshot lists its hosts and marks every queue and gate entry with its host (docs/fleet.md); a local one is one host. */
	readonly isFleet: boolean;
	/** Prices for the tasks' cost: the shipped table unless a user's file is laid over it. */
	readonly prices?: PriceTable;
	/** Whose looks each finished task's `seen` is about (docs/tmux.md); none asked: every `seen` is null. */
	readonly person?: string | null;
	/**
	 * List a helper whose parent is listed only in its parent's `children`, as the board folds it
	 * (the text snapshot); `counts` and `unseen` still count every task.
	 */
	readonly foldHelpers?: boolean;
};

type Marked<T> = T & {host?: string};

/** One host's part of the snapshot, each list in the host's own order. */
type HostPart = {
	readonly label: string;
	readonly queue: HumanQueue;
	readonly reviews: readonly {readonly newest: number; readonly verdicts: readonly Marked<SnapshotVerdict>[]}[];
	readonly effects: readonly Marked<SnapshotEffect>[];
	readonly disagreements: readonly Marked<SnapshotDisagreement>[];
	readonly decisions: readonly Marked<SnapshotDecision>[];
	readonly contracts: readonly SnapshotContract[];
};

function hostPart(rows: SnapshotRows, query: SnapshotOfQuery): HostPart {
	const {now, since} = query;
	const gates = hostGatesOf(rows.gateEvents);
	const label = rows.host.label ?? '';
	const mark = <T extends object>(entries: readonly T[]): Marked<T>[] =>
		query.isFleet ? entries.map(entry => ({...entry, host: label})) : [...entries];
	// An approver on another machine cannot be asked from here: a fleet passes no check, and a started effect stays started.
	const isAlive = query.isApproverAlive;
	return {
		label,
		queue: hostQueue(rows, gates, now, {isApproverAlive: isAlive}),
		reviews: shownReviews(gates.reviews, since).map(review => ({
			newest: review.newest,
			verdicts: mark(toSnapshotVerdicts(review.verdicts, [review.record])),
		})),
		effects: mark(snapshotEffects(gates.orders.values(), now, since, isAlive)),
		disagreements: mark(toSnapshotDisagreements(gates.disagreements, openDisagreements(rows, gates, now), since)),
		// The approver check is a process check: it tells a question's waiting hook alive too.
		decisions: mark(snapshotDecisions(gates.decisions.values(), now, since, isAlive)),
		contracts: snapshotContracts(gates.contracts.values(), since, query.isFleet ? label : null),
	};
}

type HostedTask = {readonly task: ViewRow; readonly host: RowsHost};

/**
 * Snapshot JSON v1 from each host's rows: the one function behind `snapshot` on a local ledger (one
 * host) and on a fleet. Each host's queue and gates are computed from its own rows, as its own
 * ledger would, then merged: tasks newest first, the queue oldest waiting first (five a lane),
 * verdicts whole reviews newest first, effects oldest held first, disagreements newest first;
 * counts summed. One host's lists come back as they were.
 */
export function snapshotOf(hosts: readonly SnapshotRows[], query: SnapshotOfQuery): Snapshot {
	if (!query.isFleet && hosts.length !== 1) throw new Error(`a local snapshot is one host, not ${hosts.length}`);
	const parts = hosts.map(rows => hostPart(rows, query));
	const byHost = (a: {host?: string}, b: {host?: string}): number => (a.host ?? '').localeCompare(b.host ?? '');
	const tasks = mergeOrdered(
		hosts.map(rows => rows.viewTasks.map((task): HostedTask => ({task, host: rows.host}))),
		// The stores list tasks newest first, then by host id (a fleet's SQL order): ids compare as text.
		(a, b) => b.task.createdAt - a.task.createdAt || (a.host.id < b.host.id ? -1 : a.host.id > b.host.id ? 1 : 0),
	);
	const reviews = mergeOrdered(
		parts.map(part => part.reviews.map(review => ({...review, host: part.label}))),
		(a, b) => b.newest - a.newest || byHost(a, b),
	);
	const listed = tasks.filter(({task}) => isListed(task));
	const family = familyOf(
		listed.map(({task}) => task),
		{now: query.now, prices: query.prices ?? shippedPriceTable()},
	);
	const person = query.person ?? null;
	const listedIds = new Set(listed.map(({task}) => task.id));
	const isFolded = ({task}: HostedTask): boolean =>
		query.foldHelpers === true && task.parentId !== null && task.parentId !== task.id && listedIds.has(task.parentId);
	const shown = listed.filter(entry => !isFolded(entry));
	// A folded helper is counted as a listed one would be, without being built.
	const folded = listed.filter(isFolded).map(({task}) => ({
		health: carriedByHelpers({status: task.status, ...healthAndLane(task, query.now, query.stallSeconds)}, family.get(task.id))
			.health,
		seen: seenState(task, person),
	}));
	return buildSnapshot({
		tasks: shown.map(({task, host}) => {
			// A store gives a helper's few fields only where the request folds it under a listed parent.
			if (!isWholeTask(task)) throw new Error(`the store gave ${task.id} as a folded helper, but its parent is not listed`);
			return snapshotTaskOf(task, query.now, query.stallSeconds, host.label, family.get(task.id), seenState(task, person));
		}),
		...(folded.length === 0 ? {} : {folded}),
		seenBy: person,
		statusCounts: sumStatusCounts(hosts.map(rows => rows.statusCounts)),
		queue: query.isFleet
			? mergeHumanQueues(parts.map(part => ({host: part.label, queue: part.queue})))
			: (parts[0]?.queue ?? {lanes: [], total: 0}),
		verdicts: reviews.flatMap(review => review.verdicts),
		effects: mergeOrdered(
			parts.map(part => part.effects),
			(a, b) => a.heldAt.localeCompare(b.heldAt) || a.order.localeCompare(b.order) || a.id.localeCompare(b.id) || byHost(a, b),
		),
		disagreements: mergeOrdered(
			parts.map(part => part.disagreements),
			(a, b) => b.at.localeCompare(a.at) || byHost(a, b),
		),
		decisions: mergeOrdered(
			parts.map(part => part.decisions),
			(a, b) => a.askedAt.localeCompare(b.askedAt) || byHost(a, b),
		),
		contracts: mergeOrdered(
			parts.map(part => part.contracts),
			(a, b) => a.writtenAt.localeCompare(b.writtenAt) || a.id.localeCompare(b.id),
		),
		now: query.now,
		...(query.isFleet
			? {
					hosts: hosts.map(({host}) => ({
						name: host.label ?? host.id,
						id: host.id,
						lastSyncedAt: new Date(host.synced?.lastSyncedAt ?? 0).toISOString(),
						lastSeq: host.synced?.lastSeq ?? 0,
					})),
				}
			: {host: hosts[0]?.host.label ?? null}),
	});
}
