import {EventType} from '../core/events.ts';
import type {ProcessInfo} from '../core/process-tree.ts';
import {isEnded} from '../core/status.ts';
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

/** Events that report a task's PID, with its start time (and, for `task.started`, its wrapper) beside it. */
const PROCESS_REPORTS = [EventType.started, EventType.pidReported, EventType.discovered, EventType.agentEvent] as const;
/** How many recent reports to search for one naming the projection's PID with its start time. */
const REPORTS_SEARCHED = 8;

/**
 * The process behind a task: its PID from the projection, with the start time recorded beside
 * that same PID in a recent report (`task.started`, `task.pid_reported`, `task.discovered`, or a
 * hook's `agent.event`). A wrapper's task takes its process group, start time and wrapper from
 * the wrapper's own `task.started` (its first): its agent's hook reports may name the same PID
 * without them. Null when no producer reported a PID.
 */
export function processRecordOf(ledger: Ledger, task: Task): ProcessRecord | null {
	if (task.pid === null) return null;
	const wrapperStart = task.source === 'wrapper' ? ledger.reader.firstEventOf(task.id, EventType.started) : undefined;
	const wrapper = wrapperStart?.data.pid === task.pid ? wrapperStart.data : undefined;
	const reports = wrapper ? [] : ledger.reader.latestEventsOf(task.id, PROCESS_REPORTS, REPORTS_SEARCHED);
	const reported = reports.find(event => event.data.pid === task.pid && typeof event.data.startTime === 'number');
	return {
		pid: task.pid,
		pgid: task.pgid ?? wrapper?.pgid ?? null,
		startTime: wrapper?.startTime ?? reported?.data.startTime ?? null,
		wrapperPid: wrapper?.wrapperPid ?? null,
		wrapperStartTime: wrapper?.wrapperStartTime ?? null,
	};
}

/**
 * The task, other than an untracked (or merged) row, that names this process: its PID, with the
 * same start time where one was recorded (a live row with none recorded counts; an ended one does
 * not, as its PID may since have been reused). Null when none does.
 */
export function namedByTask(ledger: Ledger, process: ProcessInfo): string | null {
	const named = ledger.reader.tasksWithPid(process.pid).find(task => {
		if (task.status === 'untracked' || task.status === 'merged') return false;
		const startTime = processRecordOf(ledger, task)?.startTime ?? null;
		return startTime === null ? !isEnded(task.status) : startTime === process.startTime;
	});
	return named?.id ?? null;
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
