import type {EventOfType} from '../../core/events.ts';
import {GATE_EVENT_TYPES} from '../../core/read-port/host-gates.ts';
import type {HostRows, SnapshotRows} from '../../core/read-port/host-rows.ts';
import {queuePartOf, recentTasksOf, type ReadPort, type RowsRequest} from '../../core/read-port/read-port.ts';
import {STATS_EVENT_TYPES} from '../../core/stats/measures.ts';
import {STATUSES, type Status} from '../../core/status.ts';
import type {Task} from '../../core/task.ts';
import {eventFromRow, type EventRow as LocalEventRow} from '../rows.ts';
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

/** An events row of the fleet: the local row's columns, and the host it came from. */
export type EventRow = LocalEventRow & {host_id: string};

const EVENT_COLUMNS = (alias: string): string =>
	['host_id', 'seq', 'task_id', 'type', 'at', 'source', 'data', 'dedup_key'].map(name => `${alias}.${name}`).join(', ');

const groupBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> => {
	const groups = new Map<string, T[]>();
	for (const item of items) {
		const list = groups.get(key(item));
		if (list) list.push(item);
		else groups.set(key(item), [item]);
	}
	return groups;
};

/** The fleet's task rows and hosts, as the reader and the read port both fetch them. */
export type FleetRows = {
	hosts(): Promise<FleetHost[]>;
	/** Task rows matching `where`, each with its host's label. */
	tasks(where: string, params: unknown[], labels: ReadonlyMap<string, string>, order?: string): Promise<HostedTask[]>;
	/** Tasks not ended, plus those ended at or after `endedSince` (all when null), newest first, then by host id and id. */
	viewTasks(endedSince: number | null, labels: ReadonlyMap<string, string>): Promise<HostedTask[]>;
	/** Event rows matching `where`, by host and seq, with their host id. */
	events(where: string, params: unknown[]): Promise<EventRow[]>;
};

/** The fleet's ledger as the read port (src/core/read-port/read-port.ts): a bundle for every host, rows only. */
export function createFleetReadPort(client: FleetClient, rows: FleetRows): ReadPort<'async', HostedTask> {
	const labelsOf = (hosts: readonly FleetHost[]) => new Map(hosts.map(host => [host.id, host.label]));

	/**
	 * Needs still current, read through indexes (migration 2) rather than every need ever raised:
	 * an agent's need counts only while its task is open with no activity after it (the rule
	 * queueSignals applies, so this drops nothing queueSignals would keep); a need raised by hand
	 * always. An agent's need always has a task row: the hook payload that raises it records an
	 * agent event on the same task first (src/ledger/payload-mapping.ts), and a task's row is
	 * shipped in the same transaction as its events (src/fleet/ship.ts). `answeredBySession` is
	 * bound as a parameter, as the SQLite reader binds it (the partial index names today's list).
	 */
	const currentNeeds = async (answeredBySession: readonly string[]): Promise<EventRow[]> =>
		(
			await client.query<EventRow>(
				`SELECT * FROM (
					SELECT ${EVENT_COLUMNS('e')} FROM controlroom.tasks t
					JOIN controlroom.events e ON e.host_id = t.host_id AND e.task_id = t.id AND e.type = 'need.raised'
						AND e.source = ANY($1::text[]) AND e.at >= t.last_event_at
					WHERE t.ended_at IS NULL
					UNION ALL
					SELECT ${EVENT_COLUMNS('e')} FROM controlroom.events e
					WHERE e.type = 'need.raised' AND e.source <> ALL($1::text[])
				) needs ORDER BY host_id, seq`,
				[answeredBySession],
			)
		).rows;

	const queueRowsOf = async (hosts: readonly FleetHost[], request: RowsRequest<HostedTask>): Promise<HostRows[]> => {
		const labels = labelsOf(hosts);
		const recent = await recentTasksOf(request, since =>
			rows.tasks(`ended_at >= $1 AND (status = 'failed' OR (status = 'done' AND exit_code = 0))`, [since], labels),
		);
		const gateRows = await rows.events('type = ANY($1::text[])', [GATE_EVENT_TYPES]);
		const needRows = await currentNeeds(request.answeredBySession);
		const recentKeys = new Set(recent.map(task => `${task.hostId}\u0000${task.id}`));
		const missing = needRows.filter(row => !recentKeys.has(`${row.host_id}\u0000${row.task_id}`));
		const needTasks =
			missing.length === 0
				? []
				: await rows.tasks(
						'(host_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
						[missing.map(row => row.host_id), missing.map(row => row.task_id)],
						labels,
					);
		const recentByHost = groupBy(recent, task => task.hostId);
		const needsByHost = groupBy(needRows, row => row.host_id);
		const needTasksByHost = groupBy(needTasks, task => task.hostId);
		const gatesByHost = groupBy(gateRows, row => row.host_id);
		return hosts.map(host => ({
			host: {id: host.id, label: host.label, synced: {lastSyncedAt: host.lastSyncedAt, lastSeq: host.lastSeq}},
			recentTasks: recentByHost.get(host.id) ?? [],
			needs: (needsByHost.get(host.id) ?? []).map(eventFromRow) as EventOfType<'need.raised'>[],
			needTasks: needTasksByHost.get(host.id) ?? [],
			gateEvents: (gatesByHost.get(host.id) ?? []).map(eventFromRow),
		}));
	};

	return {
		queueRows: async request => queueRowsOf(await rows.hosts(), request),
		async statsEvents() {
			const hosts = await rows.hosts();
			const byHost = groupBy(await rows.events('type = ANY($1::text[])', [STATS_EVENT_TYPES]), row => row.host_id);
			return hosts.map(host => ({hostId: host.id, events: (byHost.get(host.id) ?? []).map(eventFromRow)}));
		},
		async snapshotRows(request): Promise<SnapshotRows[]> {
			const hosts = await rows.hosts();
			const view = await rows.viewTasks(request.viewSince, labelsOf(hosts));
			// Kept by the server as task rows are written (migration 2): a few rows a host, not a scan of every task.
			const counts = await client.query<{host_id: string; status: Status; n: number}>(
				'SELECT host_id, status, n FROM controlroom.status_counts',
			);
			const countsByHost = groupBy(counts.rows, row => row.host_id);
			const viewByHost = groupBy(view, task => task.hostId);
			return (await queueRowsOf(hosts, queuePartOf(request, view))).map(bundle => {
				const statusCounts = Object.fromEntries(STATUSES.map(status => [status, 0])) as Record<Status, number>;
				for (const row of countsByHost.get(bundle.host.id) ?? [])
					if (row.status in statusCounts) statusCounts[row.status] = row.n;
				return {...bundle, viewTasks: viewByHost.get(bundle.host.id) ?? [], statusCounts};
			});
		},
	};
}
