import {EventType, type NewEvent} from '../core/events.ts';
import {agentNameOf, findUntracked, ownedWithin, pidFate, type ProcessInfo} from '../core/process-tree.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {spoolDir} from '../ledger/paths.ts';
import {foldSpool} from '../ledger/spool.ts';
import {DEFAULT_PROC_ROOT, readArgv, readCwd, scanProcesses} from './proc-table.ts';
import {processRecordOf, registeringWrapperOf} from './task-process.ts';

/** Process names counted as agents unless configured (`--agents`, CONTROLROOM_AGENT_NAMES). */
export const DEFAULT_AGENT_NAMES: readonly string[] = ['claude', 'codex'];
/** Default pause between passes of `controlroom reconcile` (PRODUCT.md §2: every 5 s). */
export const DEFAULT_RECONCILE_INTERVAL_MS = 5000;
const MAX_COMMAND_CHARS = 200;
/** Interpreter names whose argv is read to see which script they run. */
const INTERPRETER_NAMES = new Set(['node', 'nodejs', 'bun', 'deno', 'python', 'python3']);

export type ReconcileOptions = {
	readonly now?: number;
	/** Names of agent processes (kernel name, argv[0], or an interpreter's script). */
	readonly agentNames?: readonly string[];
	/** Where the process table is read from (tests give a synthetic one). */
	readonly procRoot?: string;
};

/** What one pass did. */
export type ReconcileResult = {
	readonly spool: {readonly files: number; readonly lines: number; readonly appended: number; readonly rejected: number};
	/** Tasks found gone with no exit recorded, now `lost`. */
	readonly lost: readonly {readonly taskId: string; readonly pid: number; readonly reason: string}[];
	/** Agent processes nobody registered, now `untracked`. */
	readonly discovered: readonly {readonly taskId: string; readonly pid: number; readonly name: string}[];
	/** Untracked rows whose process a wrapper or hook now tracks: ended. */
	readonly adopted: readonly string[];
	/** Processes in the table this pass. */
	readonly processes: number;
	readonly elapsedMs: number;
};

/** The key of an untracked agent: its PID and start time, so a reused PID is a new row. */
export function untrackedTaskId(process: ProcessInfo): string {
	return `u-${process.pid}-${process.startTime}`;
}

/** Agent names from a comma list (flag or environment), or the defaults. */
export function agentNamesFrom(list: string | undefined): readonly string[] {
	const names = (list ?? '')
		.split(',')
		.map(name => name.trim())
		.filter(Boolean);
	return names.length > 0 ? names : DEFAULT_AGENT_NAMES;
}

function goneReason(fate: 'gone' | 'reused', pid: number): string {
	return fate === 'gone'
		? `process ${pid} is gone and no exit was recorded`
		: `PID ${pid} now belongs to another process (start time differs); the agent is gone and no exit was recorded`;
}

/**
 * One reconciler pass (synchronous; the board calls it on its own timer): folds the spool through
 * the same path as `ingest`; marks `running` tasks whose process is gone (or whose PID was reused)
 * with no exit as `lost`, unless their wrapper still lives and will record the exit itself; records
 * agent processes nobody registered as `untracked`, keyed by PID and start time, skipping those
 * with a tracked or agent ancestor within three levels; marks vanished untracked ones `lost`.
 * Every write re-checks the task inside the transaction, so a concurrent exit record wins.
 */
export function reconcileOnce(ledger: Ledger, options: ReconcileOptions = {}): ReconcileResult {
	const started = performance.now();
	const now = options.now ?? Date.now();
	const procRoot = options.procRoot ?? DEFAULT_PROC_ROOT;
	const names = new Set(options.agentNames ?? DEFAULT_AGENT_NAMES);
	const folded = foldSpool(ledger, spoolDir(ledger.path), now);
	const table = scanProcesses(procRoot);
	const isAlive = (pid: number | null, startTime: number | null): boolean =>
		pid !== null && pidFate(startTime, table.get(pid)) === 'alive';

	const events: NewEvent[] = [];
	const lost: {taskId: string; pid: number; reason: string}[] = [];
	const tracked = new Set<number>();
	const untrackedRows: Task[] = [];
	const guarded: {task: Task; event: NewEvent}[] = [];

	for (const task of ledger.reader.tasksWithStatus(['registered', 'running', 'untracked'])) {
		if (task.status === 'untracked') {
			untrackedRows.push(task);
			continue;
		}
		if (task.status === 'registered') {
			const wrapper = registeringWrapperOf(ledger, task.id);
			if (!wrapper || isAlive(wrapper.pid, wrapper.startTime)) continue;
			const reason = `wrapper ${wrapper.pid} is gone and the agent was never started`;
			lost.push({taskId: task.id, pid: wrapper.pid, reason});
			guarded.push({task, event: {taskId: task.id, type: EventType.lost, at: now, source: 'reconciler', data: {reason}}});
			continue;
		}
		const record = processRecordOf(ledger, task);
		if (!record) continue;
		const current = table.get(record.pid);
		const fate = pidFate(record.startTime, current);
		if (fate === 'alive') {
			tracked.add(record.pid);
			if (record.startTime === null && current) {
				// A hook reported the PID without its start time: record it once, to catch PID reuse later.
				guarded.push({
					task,
					event: {
						taskId: task.id,
						type: EventType.pidReported,
						at: now,
						source: 'reconciler',
						data: {pid: record.pid, startTime: current.startTime},
						dedupKey: `pid-start:${task.id}:${record.pid}:${current.startTime}`,
					},
				});
			}
			continue;
		}
		// The wrapper records the exit itself; lost is only for a task nobody will speak for.
		if (isAlive(record.wrapperPid, record.wrapperStartTime)) {
			if (record.wrapperPid !== null) tracked.add(record.wrapperPid);
			continue;
		}
		const reason = goneReason(fate, record.pid);
		lost.push({taskId: task.id, pid: record.pid, reason});
		guarded.push({
			task,
			event: {
				taskId: task.id,
				type: EventType.lost,
				at: now,
				source: 'reconciler',
				data: {reason, pid: record.pid},
				dedupKey: `lost:${task.id}:${record.pid}:${task.lastSeq}`,
			},
		});
	}

	const lookup = (pid: number): ProcessInfo | undefined => table.get(pid);
	const agentProcesses: ProcessInfo[] = [];
	for (const pid of table.pids) {
		const name = table.name(pid) ?? '';
		const argv = INTERPRETER_NAMES.has(name) ? readArgv(pid, procRoot) : null;
		const process = agentNameOf(name, argv, names) !== null ? table.get(pid) : undefined;
		if (process) agentProcesses.push(process);
	}
	const discovered: {taskId: string; pid: number; name: string}[] = [];
	const adopted: string[] = [];
	const untrackedIds = new Set(untrackedRows.map(task => task.id));
	for (const process of findUntracked(agentProcesses, lookup, tracked)) {
		const taskId = untrackedTaskId(process);
		if (untrackedIds.has(taskId) || ledger.reader.task(taskId)) continue;
		const argv = readArgv(process.pid, procRoot);
		const command = (argv ?? [process.name]).join(' ').slice(0, MAX_COMMAND_CHARS);
		discovered.push({taskId, pid: process.pid, name: process.name});
		events.push({
			taskId,
			type: EventType.discovered,
			at: now,
			source: 'reconciler',
			data: {pid: process.pid, name: process.name, command, cwd: readCwd(process.pid, procRoot), startTime: process.startTime},
			dedupKey: `discovered:${taskId}`,
		});
	}
	for (const task of untrackedRows) {
		const record = processRecordOf(ledger, task);
		if (!record) continue;
		const fate = pidFate(record.startTime, table.get(record.pid));
		if (fate !== 'alive') {
			const reason = goneReason(fate, record.pid);
			lost.push({taskId: task.id, pid: record.pid, reason});
			guarded.push({
				task,
				event: {taskId: task.id, type: EventType.lost, at: now, source: 'reconciler', data: {reason, pid: record.pid}},
			});
		} else if (tracked.has(record.pid) || ownedWithin(record.pid, lookup, pid => tracked.has(pid))) {
			adopted.push(task.id);
			guarded.push({
				task,
				event: {
					taskId: task.id,
					type: EventType.ended,
					at: now,
					source: 'reconciler',
					data: {reason: 'now tracked by a wrapper or hook'},
				},
			});
		}
	}

	let written = new Set<NewEvent>(events);
	if (events.length > 0 || guarded.length > 0) {
		written = ledger.writer.transaction(() => {
			// Re-read inside the write lock: a wrapper may have recorded the exit since we looked.
			const stillValid = guarded.filter(({task}) => {
				const now = ledger.reader.task(task.id);
				return now !== undefined && now.status === task.status && now.pid === task.pid;
			});
			ledger.writer.append([...events, ...stillValid.map(entry => entry.event)]);
			return new Set([...events, ...stillValid.map(entry => entry.event)]);
		});
	}
	const isWritten = (taskId: string, type: string): boolean =>
		[...written].some(event => event.taskId === taskId && event.type === type);
	return {
		spool: {files: folded.files, lines: folded.lines, appended: folded.appended, rejected: folded.rejected},
		lost: lost.filter(entry => isWritten(entry.taskId, EventType.lost)),
		discovered,
		adopted: adopted.filter(taskId => isWritten(taskId, EventType.ended)),
		processes: table.pids.length,
		elapsedMs: performance.now() - started,
	};
}
