import {setTimeout as sleep} from 'node:timers/promises';
import {EventType} from '../core/events.ts';
import {pidFate} from '../core/process-tree.ts';
import {isEnded} from '../core/status.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {groupMembers, readProcess} from './proc-table.ts';
import {processRecordOf, type ProcessRecord} from './task-process.ts';

/** Time a task gets to end after SIGTERM before SIGKILL. */
export const DEFAULT_GRACE_MS = 5000;
/** How often the group is checked while waiting for it to be gone (processes we did not spawn cannot be awaited). */
const CHECK_EVERY_MS = 25;
/** How long SIGKILL may take to clear the group before we give up and say so. */
export const KILL_WAIT_MS = 3000;

/** Why a task cannot be stopped. */
export type StopRefusal = 'not-found' | 'ended' | 'pid-unknown' | 'gone' | 'pid-reused' | 'not-permitted' | 'survived';

/** What `stopTask` did, or why it could not. */
export type StopResult =
	| {
			readonly outcome: 'stopped';
			readonly taskId: string;
			/** The last signal sent: SIGKILL when the group outlived the grace period. */
			readonly signal: 'SIGTERM' | 'SIGKILL';
			readonly escalated: boolean;
			readonly message: string;
	  }
	| {readonly outcome: 'refused'; readonly taskId: string | null; readonly reason: StopRefusal; readonly message: string};

/** The processes a stop must end: the whole group where one is known, else the one PID. */
export type StopTarget = {readonly pid: number; readonly pgid: number | null; readonly startTime: number | null};

/** Live processes of the target: group members (zombies excluded), or the PID if it is still the same process. */
export function liveMembers(target: StopTarget): number[] {
	if (target.pgid !== null) return groupMembers(target.pgid).map(process => process.pid);
	return pidFate(target.startTime, readProcess(target.pid)) === 'alive' ? [target.pid] : [];
}

function send(target: StopTarget, signal: NodeJS.Signals): void {
	try {
		process.kill(target.pgid !== null ? -target.pgid : target.pid, signal);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
	}
}

async function waitGone(target: StopTarget, ms: number): Promise<boolean> {
	const deadline = Date.now() + ms;
	for (;;) {
		if (liveMembers(target).length === 0) return true;
		if (Date.now() >= deadline) return false;
		await sleep(CHECK_EVERY_MS);
	}
}

/** How a group that was asked to end did end: by the first signal, or by SIGKILL after the grace. */
export type GroupEnd = {signal: 'SIGTERM' | 'SIGKILL'; escalated: boolean; survivors: number[]};

/**
 * Waits for a group already sent SIGTERM to be gone, sends SIGKILL once `graceLeftMs` has passed,
 * and confirms that no process of it is left.
 */
export async function awaitGroupEnd(target: StopTarget, graceLeftMs: number): Promise<GroupEnd> {
	if (await waitGone(target, Math.max(0, graceLeftMs))) return {signal: 'SIGTERM', escalated: false, survivors: []};
	send(target, 'SIGKILL');
	await waitGone(target, KILL_WAIT_MS);
	return {signal: 'SIGKILL', escalated: true, survivors: liveMembers(target)};
}

/**
 * Sends SIGTERM to the target's group, waits up to `graceMs`, then SIGKILL, and confirms that no
 * process of the group is left. Shared by `controlroom stop` and the wrapper's budget stop.
 */
export async function terminate(target: StopTarget, graceMs: number): Promise<GroupEnd> {
	send(target, 'SIGTERM');
	return awaitGroupEnd(target, graceMs);
}

/** A target from a process record: the group when the PID leads one (wrapper children always do). */
function targetOf(record: ProcessRecord): StopTarget {
	const leadsGroup = readProcess(record.pid)?.pgid === record.pid;
	return {pid: record.pid, pgid: record.pgid ?? (leadsGroup ? record.pid : null), startTime: record.startTime};
}

/** How a stop is made: the grace period, and who asked (recorded as the events' source). */
export type StopOptions = {readonly graceMs?: number; readonly source?: 'cli' | 'board' | 'fleet'};

/**
 * Stops a task (by id, unique id prefix or session id): records the request, signals its process
 * group, escalates to SIGKILL after the grace period, confirms every process of the group is gone
 * and records `stopped` with the signal that ended the group, once (a task that ended meanwhile
 * keeps its end). A live wrapper that sees the request leaves this record to the stop, which alone
 * knows whether SIGKILL was needed. A task whose PID no producer reported cannot be stopped, and
 * the result says why. The board's `s` key and `controlroom stop` both call this.
 */
export async function stopTask(ledger: Ledger, ref: string, options: StopOptions = {}): Promise<StopResult> {
	const source = options.source ?? 'cli';
	let task: Task | undefined;
	try {
		task = ledger.reader.resolveTask(ref);
	} catch (error) {
		return {outcome: 'refused', taskId: null, reason: 'not-found', message: (error as Error).message};
	}
	if (!task) return {outcome: 'refused', taskId: null, reason: 'not-found', message: `no task matches '${ref}'`};
	const taskId = task.id;
	const refuse = (reason: StopRefusal, message: string): StopResult => ({outcome: 'refused', taskId, reason, message});
	if (isEnded(task.status)) return refuse('ended', `task ${task.id} has already ended (${task.status})`);
	const record = processRecordOf(ledger, task);
	if (!record) {
		return refuse(
			'pid-unknown',
			`task ${task.id} cannot be stopped: no producer reported its PID, so there is no process to signal`,
		);
	}
	const fate = pidFate(record.startTime, readProcess(record.pid));
	if (fate === 'gone')
		return refuse('gone', `task ${task.id}: process ${record.pid} is already gone; the reconciler will mark it lost`);
	if (fate === 'reused') {
		return refuse(
			'pid-reused',
			`task ${task.id}: PID ${record.pid} now belongs to another process (start time differs); not signalling it`,
		);
	}
	const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
	const target = targetOf(record);
	ledger.writer.append([
		{
			taskId: task.id,
			type: EventType.stopRequested,
			at: Date.now(),
			source,
			data: {signal: 'SIGTERM', graceMs, pgid: target.pgid},
		},
	]);
	let ended: Awaited<ReturnType<typeof terminate>>;
	try {
		ended = await terminate(target, graceMs);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'EPERM')
			return refuse('not-permitted', `task ${task.id}: not permitted to signal process ${record.pid}`);
		throw error;
	}
	if (ended.survivors.length > 0) {
		return refuse('survived', `task ${task.id}: processes ${ended.survivors.join(', ')} survived SIGKILL`);
	}
	const reason = ended.escalated ? `stop requested; still alive after ${graceMs} ms, killed` : 'stop requested';
	ledger.writer.transaction(() => {
		const now = ledger.reader.task(task.id);
		if (now && !isEnded(now.status)) {
			ledger.writer.append([
				{
					taskId: task.id,
					type: EventType.stopped,
					at: Date.now(),
					source,
					data: {signal: ended.signal, reason, exitCode: null, escalated: ended.escalated},
				},
			]);
		}
	});
	const scope = target.pgid !== null ? `process group ${target.pgid}` : `process ${target.pid}`;
	return {
		outcome: 'stopped',
		taskId: task.id,
		signal: ended.signal,
		escalated: ended.escalated,
		message: `stopped ${task.id}: ${scope} ended by ${ended.signal}${ended.escalated ? ` after ${graceMs} ms grace` : ''}`,
	};
}
