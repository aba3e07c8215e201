import type {Task} from '../../core/task.ts';
import {snapshotRowsAtTime, taskAtTime} from './fleet-as-of.ts';
import type {SnapshotRows} from '../../core/read-port/host-rows.ts';
import type {LedgerEvent} from '../../core/events.ts';
import {hostLabels} from '../../core/fleet.ts';
import type {ReadPort} from '../../core/read-port/read-port.ts';
import {chooseByTitle, titleKey, TITLE_CANDIDATES} from '../../core/task-ref.ts';
import {AmbiguousTaskError, likeEscaped} from '../reader.ts';
import {eventFromRow, taskFromDoc} from '../rows.ts';
import type {FleetClient} from './connection.ts';
import {createFleetReadPort, type EventRow, type FleetHost, type FleetRows, type HostedTask} from './fleet-read-port.ts';

/** What changed in the fleet after a fleet_seq: the task rows touched, re-read. */
export type FleetChanges = {
	readonly tasks: readonly HostedTask[];
	/** The newest fleet_seq read. */
	readonly fleetSeq: number;
	/** More events wait after this page. */
	readonly hasMore: boolean;
};

/**
 * The fleet ledger's reads. Asynchronous (each is a round trip to the server), unlike the local
 * LedgerReader; as the read port it gives every host's rows, on which the same pure functions
 * (snapshotOf, boardRound, hostQueue) run as on the local ledger's (docs/architecture.md, "The read port").
 */
export type FleetReader = ReadPort<'async', HostedTask> & {
	hosts(): Promise<FleetHost[]>;
	/** Tasks not ended, plus those ended at or after `endedSince` (all when null), newest first. */
	tasksForView(endedSince: number | null): Promise<HostedTask[]>;
	/** A task by id, unique id prefix, session id or title (docs/cli.md), optionally on one host; throws when several match. */
	resolveTask(ref: string, hostLabel?: string): Promise<HostedTask | undefined>;
	/** One task's events on its host, oldest first (seq is the host's own). */
	eventsOf(hostId: string, taskId: string): Promise<LedgerEvent[]>;
	/** The newest fleet_seq (0 when nothing was shipped). */
	lastFleetSeq(): Promise<number>;
	/** Each host's snapshot rows as they were at `time`, by the arrival each host recorded (fleet-as-of.ts). */
	snapshotRowsAt(time: number, viewSince: number | null): Promise<SnapshotRows[]>;
	/** One task of a host as it was at `time`, with its events up to then. */
	taskAt(
		hostId: string,
		taskId: string,
		time: number,
	): Promise<{readonly task: Task; readonly events: readonly LedgerEvent[]} | undefined>;
	/** Tasks touched by events after `fleetSeq`, at most `limit` events read. */
	changesSince(fleetSeq: number, limit: number): Promise<FleetChanges>;
};

/** The fleet reader over one connection. Host labels are read once per call that needs them. */
export function createFleetReader(client: FleetClient): FleetReader {
	const rows: FleetRows = {
		async hosts() {
			const result = await client.query<{id: string; name: string; last_synced_at: Date; last_seq: number}>(
				'SELECT id, name, last_synced_at, last_seq FROM controlroom.hosts ORDER BY name, id',
			);
			const labels = hostLabels(result.rows);
			return result.rows.map(row => ({
				id: row.id,
				name: row.name,
				label: labels.get(row.id) ?? row.name,
				lastSyncedAt: row.last_synced_at.getTime(),
				lastSeq: row.last_seq,
			}));
		},
		async tasks(where, params, labels, order = '') {
			const result = await client.query<{host_id: string; doc: string}>(
				`SELECT host_id, doc FROM controlroom.tasks WHERE ${where} ${order}`,
				params,
			);
			// The parsed document is this call's own object: adding the host to it saves a copy of thousands of tasks.
			return result.rows.map(row =>
				Object.assign(taskFromDoc(row.doc), {host: labels.get(row.host_id) ?? row.host_id, hostId: row.host_id}),
			);
		},
		viewTasks(endedSince, labels) {
			const order = 'ORDER BY created_at DESC, host_id, id';
			return endedSince === null
				? rows.tasks('true', [], labels, order)
				: rows.tasks('ended_at IS NULL OR ended_at >= $1', [endedSince], labels, order);
		},
		async events(where, params) {
			const result = await client.query<EventRow>(
				`SELECT host_id, seq, task_id, type, at, source, data, dedup_key FROM controlroom.events WHERE ${where} ORDER BY host_id, seq`,
				params,
			);
			return result.rows;
		},
	};
	const labelsNow = async (): Promise<Map<string, string>> => new Map((await rows.hosts()).map(host => [host.id, host.label]));

	return {
		...createFleetReadPort(client, rows),
		snapshotRowsAt: (time, viewSince) => snapshotRowsAtTime(client, rows, time, viewSince),
		taskAt: (hostId, taskId, time) => taskAtTime(client, hostId, taskId, time),
		hosts: rows.hosts,
		tasksForView: async endedSince => rows.viewTasks(endedSince, await labelsNow()),
		async resolveTask(ref, hostLabel) {
			const all = await rows.hosts();
			const onHosts = hostLabel === undefined ? all : all.filter(host => host.label === hostLabel || host.name === hostLabel);
			const ids = onHosts.map(host => host.id);
			const labels = new Map(all.map(host => [host.id, host.label]));
			const attempts: [string, unknown[]][] = [
				['id = $1', [ref]],
				[`id LIKE $1 || '%'`, [likeEscaped(ref)]],
				['session_id = $1', [ref]],
			];
			for (const [where, params] of attempts) {
				const tasks = await rows.tasks(
					`(${where}) AND host_id = ANY($${params.length + 1}::text[]) LIMIT 6`,
					[...params, ids],
					labels,
				);
				if (tasks.length === 1) return tasks[0];
				if (tasks.length > 1) throw new AmbiguousTaskError(ref, tasks);
			}
			// Then a title, whole or its start, as on the local ledger (chooseByTitle decides).
			const titled = await rows.tasks(
				`title ILIKE $1 || '%' AND host_id = ANY($2::text[])`,
				[likeEscaped(titleKey(ref)), ids],
				labels,
				`ORDER BY ended_at IS NULL DESC, created_at DESC LIMIT ${TITLE_CANDIDATES}`,
			);
			const chosen = chooseByTitle(ref, titled);
			if (chosen !== null && 'ambiguous' in chosen) throw new AmbiguousTaskError(ref, chosen.ambiguous);
			return chosen?.task;
		},
		async eventsOf(hostId, taskId) {
			return (await rows.events('host_id = $1 AND task_id = $2', [hostId, taskId])).map(eventFromRow);
		},
		async lastFleetSeq() {
			const result = await client.query<{seq: number}>(
				'SELECT COALESCE(MAX(fleet_seq), 0)::bigint AS seq FROM controlroom.events',
			);
			return result.rows[0]?.seq ?? 0;
		},
		async changesSince(fleetSeq, limit) {
			const touched = await client.query<{host_id: string; task_id: string; fleet_seq: number}>(
				`SELECT host_id, task_id, fleet_seq FROM controlroom.events WHERE fleet_seq > $1 ORDER BY fleet_seq LIMIT $2`,
				[fleetSeq, limit],
			);
			const last = touched.rows.at(-1)?.fleet_seq ?? fleetSeq;
			if (touched.rows.length === 0) return {tasks: [], fleetSeq, hasMore: false};
			const keys = [...new Set(touched.rows.map(row => `${row.host_id}\u0000${row.task_id}`))];
			const tasks = await rows.tasks(
				'(host_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
				[keys.map(key => key.split('\u0000')[0]), keys.map(key => key.split('\u0000')[1])],
				await labelsNow(),
			);
			return {tasks, fleetSeq: last, hasMore: touched.rows.length === limit};
		},
	};
}
