import type {Statement} from 'better-sqlite3';
import {EventType} from '../core/events.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';

/** What the ledger knows about a task's process, for liveness checks and signals. */
export type ProcessRecord = {
	readonly pid: number;
	/** The process group to signal; null when only the PID is known (a hook session). */
	readonly pgid: number | null;
	/** The PID's start time (clock ticks after boot) when recorded: guards against PID reuse. */
	readonly startTime: number | null;
	readonly wrapperPid: number | null;
	readonly wrapperStartTime: number | null;
};

const statements = new WeakMap<Ledger, Statement>();

function latestProcessData(ledger: Ledger, taskId: string): Record<string, unknown>[] {
	let statement = statements.get(ledger);
	if (!statement) {
		statement = ledger.db
			.prepare(`SELECT data FROM events WHERE task_id = ? AND type IN (?, ?, ?) ORDER BY seq DESC LIMIT 8`)
			.pluck();
		statements.set(ledger, statement);
	}
	return (statement.all(taskId, EventType.started, EventType.pidReported, EventType.discovered) as string[]).map(
		data => JSON.parse(data) as Record<string, unknown>,
	);
}

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * The process behind a task: its PID from the projection, with the start time and wrapper recorded
 * beside that same PID in the newest `task.started`, `task.pid_reported` or `task.discovered` event. Null when no
 * producer reported a PID.
 */
export function processRecordOf(ledger: Ledger, task: Task): ProcessRecord | null {
	if (task.pid === null) return null;
	const data = latestProcessData(ledger, task.id).find(row => row['pid'] === task.pid) ?? {};
	return {
		pid: task.pid,
		pgid: task.pgid ?? numberOrNull(data['pgid']),
		startTime: numberOrNull(data['startTime']),
		wrapperPid: numberOrNull(data['wrapperPid']),
		wrapperStartTime: numberOrNull(data['wrapperStartTime']),
	};
}

const registrations = new WeakMap<Ledger, Statement>();

/**
 * The wrapper that registered a task (its PID and start time from `task.registered`), for a row
 * still `registered`: if that wrapper is gone, the spawn never happened and nobody will say so.
 */
export function registeringWrapperOf(ledger: Ledger, taskId: string): {pid: number; startTime: number | null} | null {
	let statement = registrations.get(ledger);
	if (!statement) {
		statement = ledger.db.prepare('SELECT data FROM events WHERE task_id = ? AND type = ? ORDER BY seq LIMIT 1').pluck();
		registrations.set(ledger, statement);
	}
	const data = statement.get(taskId, EventType.registered) as string | undefined;
	if (!data) return null;
	const parsed = JSON.parse(data) as Record<string, unknown>;
	const pid = numberOrNull(parsed['wrapperPid']);
	return pid === null ? null : {pid, startTime: numberOrNull(parsed['wrapperStartTime'])};
}
