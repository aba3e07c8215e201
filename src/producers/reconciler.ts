import {raiseOverTimeClaims} from './claim-time-limits.ts';
import type {NewEvent} from '../core/events.ts';
import {decisionState, holdsHeadlessRun} from '../core/decisions/fold.ts';
import {agentNameOf, descendsFrom, pidFate, type ProcessInfo} from '../core/process-tree.ts';
import {
	adoptedTasks,
	discoveredEvent,
	DISCOVERY_GRACE_MS,
	endedTasks,
	lostTasks,
	planReconcile,
	type GuardedWrite,
	type ReconcileFacts,
	type ReconcilePlan,
	type RecordedProcess,
} from '../core/reconcile-plan.ts';
import type {Task} from '../core/task.ts';
import {readDecisions} from '../ledger/decisions.ts';
import type {Ledger, LedgerFileChange} from '../ledger/open-ledger.ts';
import {spoolDir} from '../ledger/paths.ts';
import {foldSpool} from '../ledger/spool.ts';
import {catchUpTranscripts} from '../ledger/transcript-catch-up.ts';
import {DEFAULT_PROC_ROOT, envValueOf, processAge, readArgv, readCwd, scanProcesses, type ProcessScan} from './proc-table.ts';
import {TASK_ID_ENV} from './task-id-env.ts';
import {DEFAULT_AGENT_NAMES} from './reconcile-options.ts';
import {namedByTask, processRecordOf, registeringWrapperOf} from './task-process.ts';

/** Interpreter names whose argv is read to see which script they run. */
const INTERPRETER_NAMES = new Set(['node', 'nodejs', 'bun', 'deno', 'python', 'python3']);

export type ReconcileOptions = {
	readonly now?: number;
	/** Names of agent processes (kernel name, argv[0], or an interpreter's script). */
	readonly agentNames?: readonly string[];
	/** Where the process table is read from (tests give a synthetic one). */
	readonly procRoot?: string;
	/**
	 * Looks for untracked agents only among this process's descendants (the demo passes its own PID,
	 * so the machine's other agents stay out of its ledger); every agent process when absent.
	 */
	readonly untrackedUnder?: number;
	/** How long a new agent process is left for its own hook to register it (default DISCOVERY_GRACE_MS). */
	readonly discoveryGraceMs?: number;
	/**
	 * Starts `run --resume TASK` for a held task that a person answered while no wrapper of it
	 * lives (killed with its questions open): the answer still resumes it (docs/headless-holds.md).
	 */
	readonly resumeHeld?: (taskId: string) => void;
};

/** What one pass did. */
export type ReconcileResult = {
	readonly spool: {
		readonly files: number;
		readonly lines: number;
		readonly appended: number;
		readonly rejected: number;
		/** Files that held bad input, moved to spool/rejected/ with their reasons. */
		readonly setAside: number;
	};
	/** Tasks found gone with no exit recorded, now `lost`. */
	readonly lost: readonly {readonly taskId: string; readonly pid: number; readonly reason: string}[];
	/** Rows ended without being lost: hook sessions gone after a completed turn, untracked processes gone. */
	readonly ended: readonly {readonly taskId: string; readonly pid: number; readonly reason: string}[];
	/** Agent processes nobody registered, now `untracked`. */
	readonly discovered: readonly {readonly taskId: string; readonly pid: number; readonly name: string}[];
	/** Untracked rows whose process a wrapper or hook now tracks: ended. */
	readonly adopted: readonly string[];
	/** The ledger file was found deleted or replaced before this pass, and reopened: the pass ran on the new file. */
	readonly ledgerChange: LedgerFileChange | null;
	/** Processes in the table this pass. */
	readonly processes: number;
	readonly elapsedMs: number;
};

/**
 * Reads what a pass decides on: the registered, running and untracked rows with their recorded
 * processes, and the agent processes in the table.
 */
function gather(
	ledger: Ledger,
	table: ProcessScan,
	options: {now: number; procRoot: string; agentNames: ReadonlySet<string>; untrackedUnder?: number; discoveryGraceMs: number},
): ReconcileFacts {
	const lookup = (pid: number) => table.get(pid);
	const isInScope = (pid: number): boolean =>
		options.untrackedUnder === undefined || descendsFrom(pid, options.untrackedUnder, lookup);
	const held = heldTaskIds(ledger, options.now);
	// A helper runs inside its parent's process: that process's end is its own (helperVerdict). Read once a parent.
	const parents = new Map<string, {row: Task | null; process: RecordedProcess | null}>();
	const parentOf = (parentId: string): {row: Task | null; process: RecordedProcess | null} => {
		const known = parents.get(parentId);
		if (known) return known;
		const row = ledger.reader.task(parentId) ?? null;
		const found = {row, process: row === null ? null : processRecordOf(ledger, row)};
		parents.set(parentId, found);
		return found;
	};
	const watched = ledger.reader.tasksWithStatus(['registered', 'running', 'untracked']).map(task => {
		const parent = task.parentId !== null && task.pid === null ? parentOf(task.parentId) : null;
		return {
			task,
			isHeld: held.has(task.id),
			registeredBy: task.status === 'registered' ? registeringWrapperOf(ledger, task.id) : null,
			process: task.status === 'registered' ? null : processRecordOf(ledger, task),
			parent: parent?.row ?? null,
			parentProcess: parent?.process ?? null,
		};
	});
	const agentProcesses: ProcessInfo[] = [];
	for (const pid of table.pids) {
		const name = table.name(pid) ?? '';
		const argv = INTERPRETER_NAMES.has(name) ? readArgv(pid, options.procRoot) : null;
		const process = agentNameOf(name, argv, options.agentNames) !== null && isInScope(pid) ? table.get(pid) : undefined;
		if (process) agentProcesses.push(process);
	}
	return {
		now: options.now,
		watched,
		processes: table,
		agentProcesses,
		// Asked only about the agents nobody tracks, so a pass reads one row per candidate.
		knownTaskIds: {has: taskId => ledger.reader.task(taskId) !== undefined},
		namedByTask: process => namedByTask(ledger, process),
		ageMs: processAge(options.procRoot),
		discoveryGraceMs: options.discoveryGraceMs,
	};
}

/** Whether a process carries the id of a task of this ledger that a wrapper gave its child (CONTROLROOM_TASK_ID). */
function isWrappedRunsAgent(ledger: Ledger, pid: number, procRoot: string): boolean {
	const taskId = envValueOf(pid, TASK_ID_ENV, procRoot);
	return taskId !== null && taskId !== '' && ledger.reader.task(taskId) !== undefined;
}

/**
 * Writes a plan: the discoveries as they are, and each guarded write only if its task is still as
 * the pass saw it, re-read inside the write transaction (a wrapper may have recorded the exit
 * since). Returns the guarded writes that were written.
 */
function applyPlan(ledger: Ledger, plan: ReconcilePlan, discoveries: readonly NewEvent[]): readonly GuardedWrite[] {
	if (discoveries.length === 0 && plan.guarded.length === 0) return [];
	return ledger.writer.transaction(() => {
		const stillValid = plan.guarded.filter(({seen}) => {
			const now = ledger.reader.task(seen.id);
			return now !== undefined && now.status === seen.status && now.pid === seen.pid;
		});
		ledger.writer.append([...discoveries, ...stillValid.map(write => write.event)]);
		return stillValid;
	});
}

/** Tasks a question holds, and whether it is answered (waiting only for a wrapper to carry it out). */
function heldTaskIds(ledger: Ledger, now: number): Map<string, boolean> {
	const held = new Map<string, boolean>();
	for (const decision of readDecisions(ledger.reader).values()) {
		if (!holdsHeadlessRun(decision)) continue;
		const state = decisionState(decision, now);
		if (state === 'open' || state === 'answered')
			held.set(decision.taskId, (held.get(decision.taskId) ?? false) || state === 'answered');
	}
	return held;
}

/** Held tasks answered while no wrapper of theirs lives: each one's resume started. */
function resumeAnsweredHolds(ledger: Ledger, facts: ReconcileFacts, resume: (taskId: string) => void, now: number): void {
	const held = heldTaskIds(ledger, now);
	for (const watched of facts.watched) {
		if (watched.task.status !== 'running' || held.get(watched.task.id) !== true) continue;
		const record = watched.process;
		const wrapper = record?.wrapperPid ?? null;
		if (wrapper !== null && pidFate(record?.wrapperStartTime ?? null, facts.processes.get(wrapper)) === 'alive') continue;
		try {
			resume(watched.task.id);
		} catch {
			// The next pass tries again; the answer waits in the ledger.
		}
	}
}

/**
 * One reconciler pass (synchronous; the board calls it on its own timer): folds the spool through
 * the same path as `ingest`, gathers the watched rows and the process table, lets the plan
 * (src/core/reconcile-plan.ts) decide what is lost, untracked or ended, and writes it.
 */
export function reconcileOnce(ledger: Ledger, options: ReconcileOptions = {}): ReconcileResult {
	const started = performance.now();
	const now = options.now ?? Date.now();
	const procRoot = options.procRoot ?? DEFAULT_PROC_ROOT;
	// Before folding: a fold into a deleted ledger would move spool files into a file no one reads.
	const ledgerChange = ledger.verifyFile();
	const folded = foldSpool(ledger, spoolDir(ledger.path), now);
	// What live sessions' transcripts grew by since: tokens as current as the hooks' events.
	catchUpTranscripts(ledger, {now: Math.max(now, Date.now())});
	const table = scanProcesses(procRoot);
	const facts = gather(ledger, table, {
		now,
		procRoot,
		agentNames: new Set(options.agentNames ?? DEFAULT_AGENT_NAMES),
		...(options.untrackedUnder === undefined ? {} : {untrackedUnder: options.untrackedUnder}),
		discoveryGraceMs: options.discoveryGraceMs ?? DISCOVERY_GRACE_MS,
	});
	const planned = planReconcile(facts);
	// A wrapped run's own agent is never a stranger: while a stop or a budget stop ends it, its task has
	// already ended (so it is no longer tracked), but the wrapper gave it the task's id.
	const plan = {
		...planned,
		discovered: planned.discovered.filter(found => !isWrappedRunsAgent(ledger, found.process.pid, procRoot)),
	};
	const discoveries = plan.discovered.map(discovery =>
		discoveredEvent(
			discovery,
			{argv: readArgv(discovery.process.pid, procRoot), cwd: readCwd(discovery.process.pid, procRoot)},
			now,
		),
	);
	const written = applyPlan(ledger, plan, discoveries);
	if (options.resumeHeld) resumeAnsweredHolds(ledger, facts, options.resumeHeld, now);
	// A claim held past its time limit goes to Needs you (docs/contracts.md, "Caps").
	raiseOverTimeClaims(ledger, now);
	return {
		spool: {
			files: folded.files,
			lines: folded.lines,
			appended: folded.appended,
			rejected: folded.rejected,
			setAside: folded.setAside,
		},
		lost: lostTasks(written),
		ended: endedTasks(written),
		discovered: plan.discovered.map(({taskId, process}) => ({taskId, pid: process.pid, name: process.name})),
		adopted: adoptedTasks(written),
		ledgerChange,
		processes: table.pids.length,
		elapsedMs: performance.now() - started,
	};
}
