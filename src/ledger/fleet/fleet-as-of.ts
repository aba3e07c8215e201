import {EventType, type EventOfType, type LedgerEvent} from '../../core/events.ts';
import {SESSION_ANSWERED_SOURCES} from '../../core/human-queue.ts';
import {GATE_EVENT_TYPES} from '../../core/read-port/host-gates.ts';
import type {SnapshotRows} from '../../core/read-port/host-rows.ts';
import {foldTask, snapshotRowsAt, type ArrivedEvent} from '../../core/read-port/rows-at.ts';
import type {Task} from '../../core/task.ts';
import {eventFromRow} from '../rows.ts';
import type {FleetClient} from './connection.ts';
import type {FleetHost, FleetRows, EventRow} from './fleet-read-port.ts';

type ArrivedRow = EventRow & {arrived_at: string | null};

const toArrived = (row: ArrivedRow): ArrivedEvent => ({
	event: eventFromRow({...row, seq: Number(row.seq), at: Number(row.at)}),
	arrivedAt: row.arrived_at === null ? null : Number(row.arrived_at),
});

/**
 * One host of the fleet as it was at `time`, by the arrival its ledger recorded: the last of its
 * events that had arrived, its tasks folded as its writer folded them (a row with no later event
 * is the host's own row), and its events up to then.
 */
export type HostAt = {
	readonly host: FleetHost;
	/** The host's last seq that had arrived by then (0: none). */
	readonly seq: number;
	readonly tasks: readonly Task[];
};

/** The last seq of a host whose event had arrived by `time` (events shipped without an arrival go by their own time). */
async function seqArrivedBy(client: FleetClient, hostId: string, time: number): Promise<number> {
	const result = await client.query<{seq: string}>(
		'SELECT COALESCE(MAX(seq), 0) AS seq FROM controlroom.events WHERE host_id = $1 AND COALESCE(arrived_at, at) <= $2',
		[hostId, time],
	);
	return Number(result.rows[0]?.seq ?? 0);
}

async function arrivedEvents(client: FleetClient, where: string, params: unknown[]): Promise<ArrivedRow[]> {
	const result = await client.query<ArrivedRow>(
		`SELECT host_id, seq, task_id, type, at, source, data, dedup_key, arrived_at FROM controlroom.events WHERE ${where} ORDER BY seq`,
		params,
	);
	return result.rows;
}

/** A host's tasks as they were right after its event `seq`. */
async function hostTasksAt(client: FleetClient, rows: FleetRows, host: FleetHost, seq: number): Promise<Task[]> {
	const labels = new Map([[host.id, host.label]]);
	const touched = (
		await client.query<{task_id: string}>('SELECT DISTINCT task_id FROM controlroom.events WHERE host_id = $1 AND seq > $2', [
			host.id,
			seq,
		])
	).rows.map(row => row.task_id);
	const touchedSet = new Set(touched);
	const kept = (await rows.tasks('host_id = $1', [host.id], labels)).filter(task => !touchedSet.has(task.id));
	const refolded: Task[] = [];
	if (touched.length > 0) {
		const events = await arrivedEvents(client, 'host_id = $1 AND seq <= $2 AND task_id = ANY($3::text[])', [
			host.id,
			seq,
			touched,
		]);
		const byTask = new Map<string, ArrivedEvent[]>();
		for (const row of events) {
			const list = byTask.get(row.task_id) ?? [];
			list.push(toArrived(row));
			byTask.set(row.task_id, list);
		}
		for (const list of byTask.values()) {
			const task = foldTask(list);
			if (task !== undefined) refolded.push(Object.assign(task, {host: host.label, hostId: host.id}));
		}
	}
	return [...kept, ...refolded];
}

/** Every host as it was at `time`. */
async function hostsAt(client: FleetClient, rows: FleetRows, time: number): Promise<HostAt[]> {
	const hosts = await rows.hosts();
	return Promise.all(
		hosts.map(async host => {
			const seq = await seqArrivedBy(client, host.id, time);
			return {host, seq, tasks: await hostTasksAt(client, rows, host, seq)};
		}),
	);
}

/** Each host's snapshot rows as they were at `time` (docs/fleet.md, "The fleet at a moment"). */
export async function snapshotRowsAtTime(
	client: FleetClient,
	rows: FleetRows,
	time: number,
	viewSince: number | null,
): Promise<SnapshotRows[]> {
	const result: SnapshotRows[] = [];
	for (const at of await hostsAt(client, rows, time)) {
		const events = (
			await arrivedEvents(client, 'host_id = $1 AND seq <= $2 AND type = ANY($3::text[])', [
				at.host.id,
				at.seq,
				[...GATE_EVENT_TYPES, EventType.needRaised],
			])
		).map(row => toArrived(row).event);
		const needs = events.filter((event): event is EventOfType<'need.raised'> => event.type === EventType.needRaised);
		const gates = events.filter(event => (GATE_EVENT_TYPES as readonly string[]).includes(event.type));
		result.push(
			snapshotRowsAt(
				{id: at.host.id, label: at.host.label, synced: {lastSyncedAt: at.host.lastSyncedAt, lastSeq: at.host.lastSeq}},
				at.tasks,
				needs,
				gates,
				{now: time, answeredBySession: SESSION_ANSWERED_SOURCES, viewSince},
			),
		);
	}
	return result;
}

/** One task of a host as it was at `time`, and its events up to then; undefined when it was not a task yet. */
export async function taskAtTime(
	client: FleetClient,
	hostId: string,
	taskId: string,
	time: number,
): Promise<{readonly task: Task; readonly events: readonly LedgerEvent[]} | undefined> {
	const seq = await seqArrivedBy(client, hostId, time);
	const events = (await arrivedEvents(client, 'host_id = $1 AND task_id = $2 AND seq <= $3', [hostId, taskId, seq])).map(
		toArrived,
	);
	const task = foldTask(events);
	return task === undefined ? undefined : {task, events: events.map(each => each.event)};
}
