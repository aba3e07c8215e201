import {FAILED_WINDOW_MS} from '../human-queue.ts';
import type {Task} from '../task.ts';
import type {LedgerEvent} from '../events.ts';
import type {HostRows, SnapshotRows} from './host-rows.ts';

/** What a read asks a store for. */
export type RowsRequest<Held extends Task = Task> = {
	readonly now: number;
	/**
	 * The sources whose need the session's own later activity answers (SESSION_ANSWERED_SOURCES):
	 * every store passes this list to its need query, SQLite and PostgreSQL alike.
	 */
	readonly answeredBySession: readonly string[];
	/** Tasks the caller holds already (a board's), every recent one among them (isRecent): the store takes those instead of reading them. */
	readonly heldTasks?: readonly Held[];
};

/** What a snapshot asks a store for: the queue's rows and the window's tasks. */
export type SnapshotRequest = Omit<RowsRequest, 'heldTasks'> & {
	/** Ended tasks are listed when they ended at or after this (every task when null). */
	readonly viewSince: number | null;
};

type Answer<Mode extends 'sync' | 'async', T> = Mode extends 'async' ? Promise<T> : T;

/**
 * The read port: how a store plugs in. A store answers these reads with each host's rows, in its
 * host order, and nothing else; every rule of what the views show runs on those rows in src/core
 * (hostQueue, snapshotOf, boardRound). The local SQLite ledger answers synchronously, as one host;
 * the fleet's PostgreSQL ledger asynchronously, with a bundle for every host (docs/architecture.md,
 * "The read port").
 */
export type ReadPort<Mode extends 'sync' | 'async', Held extends Task = Task> = {
	/** Each host's queue and gate rows at `request.now`. */
	queueRows(request: RowsRequest<Held>): Answer<Mode, HostRows[]>;
	/** Each host's rows for a snapshot: the queue's and gates' rows, the window's tasks, the counts. */
	snapshotRows(request: SnapshotRequest): Answer<Mode, SnapshotRows[]>;
	/**
	 * Each host's events of STATS_EVENT_TYPES (src/core/stats/measures.ts), oldest first, over its
	 * whole history: what the measures fold (docs/stats.md). The whole history, because Needs you at
	 * a window's start and the claim a later need is on were made by earlier events.
	 */
	statsEvents(): Answer<Mode, HostEvents[]>;
};

/** One host's events, oldest first. */
export type HostEvents = {readonly hostId: string; readonly events: readonly LedgerEvent[]};

/** Where the queue's recent tasks start at `now`: the failed window. */
export function recentSince(now: number): number {
	return now - FAILED_WINDOW_MS;
}

/** Whether a task is one of the queue's recent tasks at `now`: not ended, or ended within the failed window. */
export function isRecent(task: Task, now: number): boolean {
	return task.endedAt === null || task.endedAt >= recentSince(now);
}

/**
 * Whether the tasks not ended or ended since `since` (every task when null) include every recent
 * task: then a store takes the recent tasks from those it read for the view instead of reading
 * thousands of task documents twice.
 */
export function coversRecent(since: number | null, now: number): boolean {
	return since === null || since <= recentSince(now);
}

/**
 * The recent tasks of a request: those among the caller's held tasks, else what `read` fetches from
 * the failed window's start, which need only be the tasks the queue reads (failed, or done with exit
 * 0: `LedgerReader.queueTasksSince`).
 */
export function recentTasksOf<T extends Task, Read>(request: RowsRequest<T>, read: (since: number) => Read): T[] | Read {
	return request.heldTasks ? request.heldTasks.filter(task => isRecent(task, request.now)) : read(recentSince(request.now));
}

/** The queue's part of a snapshot request: the window's tasks serve as the recent ones when they cover the failed window. */
export function queuePartOf<T extends Task>(request: SnapshotRequest, viewTasks: readonly T[]): RowsRequest<T> {
	const {now, answeredBySession} = request;
	return {now, answeredBySession, ...(coversRecent(request.viewSince, now) ? {heldTasks: viewTasks} : {})};
}
