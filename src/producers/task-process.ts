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

/** Events that report a task's PID, with its start time and wrapper beside it. */
const PROCESS_REPORTS = [EventType.started, EventType.pidReported, EventType.discovered] as const;
/** How many recent reports to search for the one naming the projection's PID. */
const REPORTS_SEARCHED = 8;

/**
 * The process behind a task: its PID from the projection, with the start time and wrapper recorded
 * beside that same PID in the newest `task.started`, `task.pid_reported` or `task.discovered` event. Null when no
 * producer reported a PID.
 */
export function processRecordOf(ledger: Ledger, task: Task): ProcessRecord | null {
	if (task.pid === null) return null;
	const reports = ledger.reader.latestEventsOf(task.id, PROCESS_REPORTS, REPORTS_SEARCHED);
	const report = reports.find(event => event.data.pid === task.pid);
	const data = report?.data;
	const wrapper = report?.type === EventType.started ? report.data : undefined;
	return {
		pid: task.pid,
		pgid: task.pgid ?? wrapper?.pgid ?? null,
		startTime: data?.startTime ?? null,
		wrapperPid: wrapper?.wrapperPid ?? null,
		wrapperStartTime: wrapper?.wrapperStartTime ?? null,
	};
}

/**
 * The wrapper that registered a task (its PID and start time from `task.registered`), for a row
 * still `registered`: if that wrapper is gone, the spawn never happened and nobody will say so.
 */
export function registeringWrapperOf(ledger: Ledger, taskId: string): {pid: number; startTime: number | null} | null {
	const registered = ledger.reader.firstEventOf(taskId, EventType.registered);
	const pid = registered?.data.wrapperPid ?? null;
	return pid === null ? null : {pid, startTime: registered?.data.wrapperStartTime ?? null};
}
