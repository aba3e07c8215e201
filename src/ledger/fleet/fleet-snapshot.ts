import {snapshotEffects, type SnapshotEffect} from '../../core/effects/view.ts';
import {FAILED_WINDOW_MS, mergeHumanQueues} from '../../core/human-queue.ts';
import {shownVerdicts} from '../../core/review/reviews.ts';
import {
	buildSnapshot,
	toSnapshotDisagreements,
	toSnapshotVerdicts,
	type Snapshot,
	type SnapshotDisagreement,
	type SnapshotVerdict,
} from '../../core/snapshot.ts';
import type {SnapshotQuery} from '../snapshot-query.ts';
import {NO_GATES} from './fleet-gates.ts';
import type {FleetLedger} from './open-fleet.ts';

type Hosted<T> = T & {host: string};

/** Verdicts of several hosts in one list: whole reviews, the one with the newest verdict first (shownVerdicts' order). */
function mergeVerdicts(perHost: readonly Hosted<SnapshotVerdict>[][]): Hosted<SnapshotVerdict>[] {
	const reviews = perHost.flatMap(verdicts => {
		const blocks = new Map<string, Hosted<SnapshotVerdict>[]>();
		for (const verdict of verdicts) blocks.set(verdict.reviewId, [...(blocks.get(verdict.reviewId) ?? []), verdict]);
		return [...blocks.values()].map((block, index) => ({
			block,
			index,
			newest: block.reduce((max, v) => (v.at > max ? v.at : max), ''),
		}));
	});
	return reviews
		.sort((a, b) => b.newest.localeCompare(a.newest) || a.block[0]!.host.localeCompare(b.block[0]!.host) || a.index - b.index)
		.flatMap(review => review.block);
}

/**
 * Snapshot JSON v1 of the whole fleet: every host's tasks with their host, counts summed, each
 * host's queue and gates (verdicts, effects, disagreements) folded from its own events as its
 * local snapshot folds them, then merged; hosts listed. Reads only what the snapshot shows: the
 * tasks in the window (their rows serve the queue's two hours too), the kept counts, the needs
 * still current and the gates' events (docs/fleet.md).
 */
export async function readFleetSnapshot(fleet: FleetLedger, query: Omit<SnapshotQuery, 'host'>): Promise<Snapshot> {
	const {reader} = fleet;
	const since = query.windowMs === null ? null : query.now - query.windowMs;
	const hosts = await reader.hosts();
	const tasks = await reader.tasksForView(since);
	const statusCounts = await reader.statusCounts();
	const gates = await reader.gateEvents();
	const coversQueueWindow = since === null || since <= query.now - FAILED_WINDOW_MS;
	const queues = await reader.hostQueues(query.now, {gates, ...(coversQueueWindow ? {viewTasks: tasks} : {})});
	const labels = new Map(hosts.map(host => [host.id, host.label]));
	const verdicts: Hosted<SnapshotVerdict>[][] = [];
	const effects: Hosted<SnapshotEffect>[] = [];
	const disagreements: Hosted<SnapshotDisagreement>[] = [];
	for (const [hostId, hostGates = NO_GATES] of gates) {
		const host = labels.get(hostId) ?? hostId;
		const open = queues.find(queue => queue.hostId === hostId)?.openDisagreements ?? new Set<string>();
		verdicts.push(
			toSnapshotVerdicts(shownVerdicts(hostGates.reviews, since), hostGates.reviews).map(entry => ({...entry, host})),
		);
		// An approver on another machine cannot be checked from here: a started effect is shown as started.
		effects.push(...snapshotEffects(hostGates.orders.values(), query.now, since).map(entry => ({...entry, host})));
		disagreements.push(...toSnapshotDisagreements(hostGates.disagreements, open, since).map(entry => ({...entry, host})));
	}
	return buildSnapshot({
		tasks,
		statusCounts,
		queue: mergeHumanQueues(queues),
		verdicts: mergeVerdicts(verdicts),
		effects: effects.sort(
			(a, b) =>
				a.heldAt.localeCompare(b.heldAt) ||
				a.order.localeCompare(b.order) ||
				a.id.localeCompare(b.id) ||
				a.host.localeCompare(b.host),
		),
		disagreements: disagreements.sort((a, b) => b.at.localeCompare(a.at) || a.host.localeCompare(b.host)),
		now: query.now,
		hosts: hosts.map(host => ({
			name: host.label,
			id: host.id,
			lastSyncedAt: new Date(host.lastSyncedAt).toISOString(),
			lastSeq: host.lastSeq,
		})),
		...(query.stallSeconds === undefined ? {} : {stallSeconds: query.stallSeconds}),
	});
}
