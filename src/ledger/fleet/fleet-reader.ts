import {EventType, parseStoredEvent, type EventOfType, type LedgerEvent} from '../../core/events.ts';
import {hostLabels} from '../../core/fleet.ts';
import {
	earliestSignalAt,
	FAILED_WINDOW_MS,
	humanQueueOf,
	mergeHumanQueues,
	queueSignals,
	type HumanQueue,
} from '../../core/human-queue.ts';
import {STATUSES, type Status} from '../../core/status.ts';
import type {Task} from '../../core/task.ts';
import {AmbiguousTaskError} from '../reader.ts';
import {taskFromDoc, type EventRow as LocalEventRow} from '../rows.ts';
import type {FleetClient} from './connection.ts';

/** A host of the fleet, with the label it is shown by. */
export type FleetHost = {
	readonly id: string;
	readonly name: string;
	/** Its name, with part of its id where two hosts share a name. */
	readonly label: string;
	readonly lastSyncedAt: number;
	readonly lastSeq: number;
};

/** A task of the fleet: the host's own row, with the host it belongs to. */
export type HostedTask = Task & {readonly host: string; readonly hostId: string};

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
 * LedgerReader; the same pure functions (snapshot, queue rules, timeline folding) run on what they
 * return (docs/fleet.md, "The read side").
 */
export type FleetReader = {
	hosts(): Promise<FleetHost[]>;
	/** Tasks not ended, plus those ended at or after `endedSince` (all when null), newest first. */
	tasksForView(endedSince: number | null): Promise<HostedTask[]>;
	/** Count per status over the whole fleet. */
	statusCounts(): Promise<Record<Status, number>>;
	/** Each host's human queue by the same rules as a local one, merged (items carry their host). */
	humanQueue(now: number): Promise<HumanQueue>;
	/** A task by id, unique id prefix or session id, optionally on one host; throws when several match. */
	resolveTask(ref: string, hostLabel?: string): Promise<HostedTask | undefined>;
	/** One task's events on its host, oldest first (seq is the host's own). */
	eventsOf(hostId: string, taskId: string): Promise<LedgerEvent[]>;
	/** The newest fleet_seq (0 when nothing was shipped). */
	lastFleetSeq(): Promise<number>;
	/** Tasks touched by events after `fleetSeq`, at most `limit` events read. */
	changesSince(fleetSeq: number, limit: number): Promise<FleetChanges>;
};

type TaskRow = {host_id: string; doc: string};
/** An events row of the fleet: the local row's columns, and the host it came from. */
type EventRow = LocalEventRow & {host_id: string};

const eventOf = (row: EventRow): LedgerEvent =>
	parseStoredEvent({
		seq: row.seq,
		taskId: row.task_id,
		type: row.type,
		at: row.at,
		source: row.source,
		data: row.data,
		dedupKey: row.dedup_key,
	});

const groupBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> => {
	const groups = new Map<string, T[]>();
	for (const item of items) {
		const list = groups.get(key(item));
		if (list) list.push(item);
		else groups.set(key(item), [item]);
	}
	return groups;
};

/** The fleet reader over one connection. Host labels are read once per call that needs them. */
export function createFleetReader(client: FleetClient): FleetReader {
	const hosts = async (): Promise<FleetHost[]> => {
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
	};
	const labelsNow = async (): Promise<Map<string, string>> => new Map((await hosts()).map(host => [host.id, host.label]));
	const hosted = (rows: readonly TaskRow[], labels: ReadonlyMap<string, string>): HostedTask[] =>
		rows.map(row => ({...taskFromDoc(row.doc), host: labels.get(row.host_id) ?? row.host_id, hostId: row.host_id}));
	const taskRows = async (where: string, params: unknown[], order = ''): Promise<TaskRow[]> =>
		(await client.query<TaskRow>(`SELECT host_id, doc FROM controlroom.tasks WHERE ${where} ${order}`, params)).rows;
	const eventRows = async (where: string, params: unknown[]): Promise<EventRow[]> =>
		(
			await client.query<EventRow>(
				`SELECT host_id, seq, task_id, type, at, source, data, dedup_key FROM controlroom.events WHERE ${where} ORDER BY host_id, seq`,
				params,
			)
		).rows;

	const humanQueue = async (now: number): Promise<HumanQueue> => {
		const labels = await labelsNow();
		const recent = await taskRows('ended_at IS NULL OR ended_at >= $1', [now - FAILED_WINDOW_MS]);
		// Only needs still current: an agent's need its session answered (later activity, or its end)
		// is dropped here by the same rule queueSignals applies, so the fleet never reads them all.
		const needs = await eventRows(
			`type = $1 AND NOT EXISTS (
				SELECT 1 FROM controlroom.tasks t WHERE t.host_id = events.host_id AND t.id = events.task_id
				AND events.source IN ('claude', 'codex') AND (t.last_event_at > events.at OR t.ended_at IS NOT NULL))`,
			[EventType.needRaised],
		);
		const needTasks = await taskRows('(host_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[]))', [
			needs.map(row => row.host_id),
			needs.map(row => row.task_id),
		]);
		const acknowledgements = await eventRows('type = $1', [EventType.acknowledged]);
		const recentByHost = groupBy(recent, row => row.host_id);
		const needsByHost = groupBy(needs, row => row.host_id);
		const needTasksByHost = groupBy(needTasks, row => row.host_id);
		const acksByHost = groupBy(acknowledgements, row => row.host_id);
		const perHost = new Map<string, ReturnType<typeof queueSignals>>();
		const tasksByHost = new Map<string, Map<string, Task>>();
		for (const hostId of new Set([...recentByHost.keys(), ...needsByHost.keys()])) {
			const recentTasks = (recentByHost.get(hostId) ?? []).map(row => taskFromDoc(row.doc));
			const tasks = new Map<string, Task>(recentTasks.map(task => [task.id, task]));
			for (const row of needTasksByHost.get(hostId) ?? []) {
				const task = taskFromDoc(row.doc);
				if (!tasks.has(task.id)) tasks.set(task.id, task);
			}
			const hostNeeds = (needsByHost.get(hostId) ?? []).map(eventOf) as EventOfType<'need.raised'>[];
			perHost.set(hostId, queueSignals({now, recentTasks, needs: hostNeeds, tasks}));
			tasksByHost.set(hostId, tasks);
		}
		const earliest = [...perHost.values()].reduce((min, signals) => Math.min(min, earliestSignalAt(signals, now)), now);
		const successes = (
			await client.query<{
				host_id: string;
				id: string;
				status: Status;
				exit_code: number | null;
				ended_at: number | null;
				cwd: string | null;
				title: string | null;
			}>(
				`SELECT host_id, id, status, exit_code, ended_at, cwd, title FROM controlroom.tasks
				WHERE status = 'done' AND exit_code = 0 AND ended_at >= $1`,
				[earliest],
			)
		).rows;
		const successesByHost = groupBy(successes, row => row.host_id);
		const queues = [...perHost].map(([hostId, signals]) => ({
			host: labels.get(hostId) ?? hostId,
			queue: humanQueueOf({
				signals,
				tasks: tasksByHost.get(hostId) ?? new Map(),
				acknowledgements: (acksByHost.get(hostId) ?? []).map(eventOf) as EventOfType<'queue.acknowledged'>[],
				endedSinceEarliest: (successesByHost.get(hostId) ?? []).map(row => ({
					id: row.id,
					status: row.status,
					exitCode: row.exit_code,
					endedAt: row.ended_at,
					cwd: row.cwd,
					title: row.title,
				})),
			}),
		}));
		return mergeHumanQueues(queues);
	};

	return {
		hosts,
		async tasksForView(endedSince) {
			const labels = await labelsNow();
			const rows =
				endedSince === null
					? await taskRows('true', [], 'ORDER BY created_at DESC, host_id, id')
					: await taskRows('ended_at IS NULL OR ended_at >= $1', [endedSince], 'ORDER BY created_at DESC, host_id, id');
			return hosted(rows, labels);
		},
		async statusCounts() {
			const result = Object.fromEntries(STATUSES.map(status => [status, 0])) as Record<Status, number>;
			const rows = await client.query<{status: Status; n: number}>(
				'SELECT status, COUNT(*)::bigint AS n FROM controlroom.tasks GROUP BY status',
			);
			for (const row of rows.rows) if (row.status in result) result[row.status] = row.n;
			return result;
		},
		humanQueue,
		async resolveTask(ref, hostLabel) {
			const all = await hosts();
			const onHosts = hostLabel === undefined ? all : all.filter(host => host.label === hostLabel || host.name === hostLabel);
			const ids = onHosts.map(host => host.id);
			const labels = new Map(all.map(host => [host.id, host.label]));
			const attempts: [string, unknown[]][] = [
				['id = $1', [ref]],
				[`id LIKE $1 || '%'`, [ref.replace(/[\\%_]/g, match => `\\${match}`)]],
				['session_id = $1', [ref]],
			];
			for (const [where, params] of attempts) {
				const rows = await taskRows(`(${where}) AND host_id = ANY($${params.length + 1}::text[]) LIMIT 6`, [...params, ids]);
				const tasks = hosted(rows, labels);
				if (tasks.length === 1) return tasks[0];
				if (tasks.length > 1)
					throw new AmbiguousTaskError(
						ref,
						tasks.map(task => `${task.id} on ${task.host}`),
					);
			}
			return undefined;
		},
		async eventsOf(hostId, taskId) {
			return (await eventRows('host_id = $1 AND task_id = $2', [hostId, taskId])).map(eventOf);
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
			const rows = await taskRows('(host_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[]))', [
				keys.map(key => key.split('\u0000')[0]),
				keys.map(key => key.split('\u0000')[1]),
			]);
			return {tasks: hosted(rows, await labelsNow()), fleetSeq: last, hasMore: touched.rows.length === limit};
		},
	};
}
