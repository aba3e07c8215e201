import {isAgentName} from '../core/agent-process.ts';
import {EventType} from '../core/events.ts';
import {
	agentNameOf,
	descendantsOf,
	stampFate,
	type ProcessInfo,
	type RecordedStamp,
	type StampFate,
} from '../core/process-tree.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import type {ProcessReport} from '../ledger/reader.ts';
import {DEFAULT_PROC_ROOT, processesWithEnv, readArgv, readProcess, readProcessTable} from './proc-table.ts';
import {TASK_ID_ENV} from './task-id-env.ts';

// What a stop may signal (docs/wrapper.md, "Stop"): the processes producers recorded for the task,
// each only while its PID still has the recorded start time (and, where an agent's hook or the
// process table named it, still answers to that agent's name), and everything below them.

/** A process of an agent's tree, named by PID and start time, so a PID the kernel gave to another process meanwhile is never signalled. */
export type TreeProcess = {readonly pid: number; readonly startTime: number; readonly name: string};

/** A recorded process that is not signalled, and why. */
export type RefusedStamp = {readonly pid: number; readonly fate: Exclude<StampFate, 'matches'>; readonly from: string};

/** An agent's process tree as a stop finds it, and how to look for the rest of it again. */
export type AgentTree = {
	/** Every process of the tree now: the recorded ones that still match, and all below them. */
	readonly processes: readonly TreeProcess[];
	/** Recorded processes left alone: gone, their PID reused, no longer an agent, or never stamped. */
	readonly refused: readonly RefusedStamp[];
	/** The tree as it is now, given what was found before (children born since, setsid escapees). */
	rescan(known: readonly TreeProcess[]): TreeProcess[];
};

const treeProcess = (process: ProcessInfo): TreeProcess => ({pid: process.pid, startTime: process.startTime, name: process.name});

/** Whether a live process still is the agent a hook or the reconciler named: its kernel name, or the script its interpreter runs. */
export function answersTo(agent: string, process: ProcessInfo, procRoot = DEFAULT_PROC_ROOT): boolean {
	if (isAgentName(agent, process.name)) return true;
	return agentNameOf(process.name, readArgv(process.pid, procRoot), new Set([agent])) === agent;
}

/**
 * The agent a recorded PID must still answer to: none for the wrapper's own child (it spawned
 * it: a shell, `timeout`, anything), the recorded name for an untracked row, else the agent whose
 * hook (or whose session, for the reconciler's note of a start time) reported it.
 */
function requiredAgent(report: ProcessReport, task: Pick<Task, 'source'>): string | null {
	if (report.source === 'wrapper') return null;
	if (report.type === EventType.discovered) return report.name ?? report.source;
	if (report.source === 'claude' || report.source === 'codex') return report.source;
	return task.source;
}

/** The processes producers recorded for a task, each with the agent it must answer to (see requiredAgent). */
export function recordedStampsOf(ledger: Ledger, task: Pick<Task, 'id' | 'source'>): RecordedStamp[] {
	const stamps = new Map<string, RecordedStamp>();
	for (const report of ledger.reader.processReportsOf(task.id)) {
		const agent = requiredAgent(report, task);
		const key = `${report.pid}:${report.startTime ?? ''}:${agent ?? ''}`;
		if (!stamps.has(key))
			stamps.set(key, {pid: report.pid, startTime: report.startTime, agent, from: `${report.type} by ${report.source}`});
	}
	const all = [...stamps.values()];
	// A PID reported without its start time, beside a report of the same PID with one, says nothing more.
	return all.filter(stamp => stamp.startTime !== null || !all.some(other => other.pid === stamp.pid && other.startTime !== null));
}

/**
 * Everything below the given processes now, plus, for a wrapped run, every process carrying its
 * task id (CONTROLROOM_TASK_ID) and what is below those: found by descent, so a process that
 * moved to another group or session is found; by the marker, one whose parent died too.
 */
function treeNow(known: readonly TreeProcess[], marker: string | null, procRoot: string): TreeProcess[] {
	const table = readProcessTable(procRoot);
	const found = new Map<number, TreeProcess>();
	const alive = known.filter(process => {
		const current = table.get(process.pid);
		return current !== undefined && current.state !== 'Z' && current.startTime === process.startTime;
	});
	for (const process of alive) found.set(process.pid, process);
	const marked = marker === null ? [] : processesWithEnv(TASK_ID_ENV, marker, procRoot);
	for (const process of marked) if (!found.has(process.pid)) found.set(process.pid, treeProcess(process));
	for (const process of descendantsOf(found.keys(), table.values())) {
		if (process.state !== 'Z' && !found.has(process.pid)) found.set(process.pid, treeProcess(process));
	}
	return [...found.values()];
}

/**
 * A task's process tree: each process producers recorded for it that still matches its stamp,
 * everything below those, and for a wrapper's task everything its child started wherever it went.
 */
export function agentTreeOf(ledger: Ledger, task: Pick<Task, 'id' | 'source'>, procRoot = DEFAULT_PROC_ROOT): AgentTree {
	const roots: TreeProcess[] = [];
	const refused: RefusedStamp[] = [];
	for (const stamp of recordedStampsOf(ledger, task)) {
		const current = readProcess(stamp.pid, procRoot);
		const fate = stampFate(stamp, current, (agent, process) => answersTo(agent, process, procRoot));
		if (fate === 'matches' && current) {
			if (!roots.some(root => root.pid === current.pid)) roots.push(treeProcess(current));
		} else if (fate !== 'matches') {
			refused.push({pid: stamp.pid, fate, from: stamp.from});
		}
	}
	const marker = task.source === 'wrapper' ? task.id : null;
	const rescan = (known: readonly TreeProcess[]): TreeProcess[] => treeNow(known, marker, procRoot);
	// A wrapped run whose recorded processes are all gone may still have escapees carrying its id.
	const processes = roots.length === 0 && marker === null ? [] : rescan(roots);
	return {processes, refused, rescan};
}

/** The tree of a wrapper's own child (it knows the child's PID and start time, and its task id). */
export function childTreeOf(child: {readonly pid: number; readonly startTime: number | null}, taskId: string): AgentTree {
	const current = readProcess(child.pid);
	const isSame = current !== undefined && (child.startTime === null || current.startTime === child.startTime);
	const roots = isSame && current ? [treeProcess(current)] : [];
	const rescan = (known: readonly TreeProcess[]): TreeProcess[] => treeNow(known, taskId, DEFAULT_PROC_ROOT);
	return {processes: rescan(roots), refused: [], rescan};
}
