import {parseStoredEvent, type EventOfType, type LedgerEvent} from '../../core/events.ts';
import {hostLabels} from '../../core/fleet.ts';
import {
	earliestSignalAt,
	FAILED_WINDOW_MS,
	humanQueueOf,
	mergeHumanQueues,
	orderSignals,
	queueSignals,
	type HumanQueue,
	type QueueSignal,
} from '../../core/human-queue.ts';
import {reviewSignals} from '../../core/review/reviews.ts';
import {STATUSES, type Status} from '../../core/status.ts';
import type {Task} from '../../core/task.ts';
import {AmbiguousTaskError} from '../reader.ts';
import {taskFromDoc, type EventRow as LocalEventRow} from '../rows.ts';
import type {FleetClient} from './connection.ts';
import {GATE_EVENT_TYPES, hostGatesOf, NO_GATES, type HostGates} from './fleet-gates.ts';

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
	humanQueue(now: number, options?: FleetQueueOptions): Promise<HumanQueue>;
	/** Each host's human queue on its own, with the disagreements still open in it. */
	hostQueues(now: number, options?: FleetQueueOptions): Promise<HostQueue[]>;
	/** Each host's gates (reviews, disagreements, work orders, acknowledgements), by host id. */
	gateEvents(): Promise<Map<string, HostGates>>;
	/** A task by id, unique id prefix or session id, optionally on one host; throws when several match. */
	resolveTask(ref: string, hostLabel?: string): Promise<HostedTask | undefined>;
	/** One task's events on its host, oldest first (seq is the host's own). */
	eventsOf(hostId: string, taskId: string): Promise<LedgerEvent[]>;
	/** The newest fleet_seq (0 when nothing was shipped). */
	lastFleetSeq(): Promise<number>;
	/** Tasks touched by events after `fleetSeq`, at most `limit` events read. */
	changesSince(fleetSeq: number, limit: number): Promise<FleetChanges>;
};

/** What a caller that read them already can hand the queue, so they are not read twice. */
export type FleetQueueOptions = {
	/** Each host's gates (gateEvents). */
	readonly gates?: ReadonlyMap<string, HostGates>;
	/** Tasks not ended or ended within a window at least as long as the failed window (tasksForView). */
	readonly viewTasks?: readonly HostedTask[];
};

/** One host's queue, as its own ledger would compute it. */
export type HostQueue = {
	readonly hostId: string;
	readonly host: string;
	readonly queue: HumanQueue;
	/** Tasks whose disagreement is still in the queue (the whole lane, not the five shown). */
	readonly openDisagreements: ReadonlySet<string>;
};

/** The sources whose need their session's own later activity answers (src/core/human-queue.ts); the partial index of migration 2 names the same. */
const AGENT_SOURCES_SQL = "('claude', 'codex')";

const EVENT_COLUMNS = (alias: string): string =>
	['host_id', 'seq', 'task_id', 'type', 'at', 'source', 'data', 'dedup_key'].map(name => `${alias}.${name}`).join(', ');

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
		// The parsed document is this call's own object: adding the host to it saves a copy of thousands of tasks.
		rows.map(row => Object.assign(taskFromDoc(row.doc), {host: labels.get(row.host_id) ?? row.host_id, hostId: row.host_id}));
	const taskRows = async (where: string, params: unknown[], order = ''): Promise<TaskRow[]> =>
		(await client.query<TaskRow>(`SELECT host_id, doc FROM controlroom.tasks WHERE ${where} ${order}`, params)).rows;
	const eventRows = async (where: string, params: unknown[]): Promise<EventRow[]> =>
		(
			await client.query<EventRow>(
				`SELECT host_id, seq, task_id, type, at, source, data, dedup_key FROM controlroom.events WHERE ${where} ORDER BY host_id, seq`,
				params,
			)
		).rows;

	/**
	 * Needs still current, read through indexes (migration 2) rather than every need ever raised:
	 * an agent's need counts only while its task is open with no activity after it (the rule
	 * queueSignals applies, so this drops nothing queueSignals would keep); a need raised by hand
	 * always. An agent's need always has a task row: the hook payload that raises it records an
	 * agent event on the same task first (src/ledger/payload-mapping.ts), and a task's row is
	 * shipped in the same transaction as its events (ship.ts).
	 */
	const currentNeeds = async (): Promise<EventRow[]> =>
		(
			await client.query<EventRow>(
				`SELECT * FROM (
					SELECT ${EVENT_COLUMNS('e')} FROM controlroom.tasks t
					JOIN controlroom.events e ON e.host_id = t.host_id AND e.task_id = t.id AND e.type = 'need.raised'
						AND e.source IN ${AGENT_SOURCES_SQL} AND e.at >= t.last_event_at
					WHERE t.ended_at IS NULL
					UNION ALL
					SELECT ${EVENT_COLUMNS('e')} FROM controlroom.events e
					WHERE e.type = 'need.raised' AND e.source NOT IN ${AGENT_SOURCES_SQL}
				) needs ORDER BY host_id, seq`,
			)
		).rows;

	const gateEvents = async (): Promise<Map<string, HostGates>> => {
		const rows = await eventRows('type = ANY($1::text[])', [GATE_EVENT_TYPES]);
		const gates = new Map<string, HostGates>();
		for (const [hostId, hostRows] of groupBy(rows, row => row.host_id)) gates.set(hostId, hostGatesOf(hostRows.map(eventOf)));
		return gates;
	};

	const hostQueues = async (now: number, options: FleetQueueOptions = {}): Promise<HostQueue[]> => {
		const labels = await labelsNow();
		const windowStart = now - FAILED_WINDOW_MS;
		const recent: HostedTask[] = options.viewTasks
			? options.viewTasks.filter(task => task.endedAt === null || task.endedAt >= windowStart)
			: hosted(await taskRows('ended_at IS NULL OR ended_at >= $1', [windowStart]), labels);
		const gates = options.gates ?? (await gateEvents());
		const needs = await currentNeeds();
		const recentKeys = new Set(recent.map(task => `${task.hostId}\u0000${task.id}`));
		const missing = needs.filter(row => !recentKeys.has(`${row.host_id}\u0000${row.task_id}`));
		const needTasks =
			missing.length === 0
				? []
				: hosted(
						await taskRows('(host_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[]))', [
							missing.map(row => row.host_id),
							missing.map(row => row.task_id),
						]),
						labels,
					);
		const recentByHost = groupBy(recent, task => task.hostId);
		const needsByHost = groupBy(needs, row => row.host_id);
		const needTasksByHost = groupBy(needTasks, task => task.hostId);
		const perHost = new Map<string, {signals: QueueSignal[]; tasks: Map<string, Task>}>();
		for (const hostId of new Set([...recentByHost.keys(), ...needsByHost.keys(), ...gates.keys()])) {
			const recentTasks = recentByHost.get(hostId) ?? [];
			const tasks = new Map<string, Task>(recentTasks.map(task => [task.id, task]));
			for (const task of needTasksByHost.get(hostId) ?? []) if (!tasks.has(task.id)) tasks.set(task.id, task);
			const hostGates = gates.get(hostId) ?? NO_GATES;
			const hostNeeds = (needsByHost.get(hostId) ?? []).map(eventOf) as EventOfType<'need.raised'>[];
			const signals = [
				...queueSignals({
					now,
					recentTasks,
					needs: hostNeeds,
					tasks,
					reviews: reviewSignals(hostGates.reviews),
					disagreements: hostGates.disagreements,
				}),
				// Whether an approver on another machine still runs cannot be checked from here: a started effect stays started.
				...orderSignals(hostGates.orders.values(), now),
			];
			perHost.set(hostId, {signals, tasks});
		}
		const earliest = [...perHost.values()].reduce((min, {signals}) => Math.min(min, earliestSignalAt(signals, now)), now);
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
		return [...perHost].map(([hostId, {signals, tasks}]) => {
			const hostGates = gates.get(hostId) ?? NO_GATES;
			const rows = {
				signals,
				tasks,
				acknowledgements: hostGates.acknowledgements,
				closers: hostGates.closers,
				endedSinceEarliest: (successesByHost.get(hostId) ?? []).map(row => ({
					id: row.id,
					status: row.status,
					exitCode: row.exit_code,
					endedAt: row.ended_at,
					cwd: row.cwd,
					title: row.title,
				})),
			};
			// Which disagreements are still open needs the whole lane, not the five it shows (as the local snapshot reads it).
			const disagreementLane =
				hostGates.disagreements.length === 0
					? undefined
					: humanQueueOf({...rows, limit: Number.MAX_SAFE_INTEGER}).lanes.find(lane => lane.name === 'disagreements');
			return {
				hostId,
				host: labels.get(hostId) ?? hostId,
				queue: humanQueueOf(rows),
				openDisagreements: new Set(disagreementLane?.items.map(item => item.taskId) ?? []),
			};
		});
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
			// Kept by the server as task rows are written (migration 2): a few rows a host, not a scan of every task.
			const rows = await client.query<{status: Status; n: number}>(
				'SELECT status, SUM(n)::bigint AS n FROM controlroom.status_counts GROUP BY status',
			);
			for (const row of rows.rows) if (row.status in result) result[row.status] = row.n;
			return result;
		},
		async humanQueue(now, options) {
			return mergeHumanQueues(await hostQueues(now, options));
		},
		hostQueues,
		gateEvents,
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
