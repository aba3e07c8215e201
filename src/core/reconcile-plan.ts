import {EventType, type NewEvent} from './events.ts';
import {findUntracked, ownedWithin, PARENT_LEVELS, pidFate, type PidFate, type ProcessInfo} from './process-tree.ts';
import {isSessionAtRest, type Task} from './task.ts';

/** What the ledger recorded about a task's process: its PID with start time, and its wrapper's. */
export type RecordedProcess = {
	readonly pid: number;
	readonly startTime: number | null;
	readonly wrapperPid: number | null;
	readonly wrapperStartTime: number | null;
};

/** The wrapper that registered a task, as `task.registered` recorded it. */
export type RecordedWrapper = {readonly pid: number; readonly startTime: number | null};

/** One `registered`, `running` or `untracked` row the pass looks at, with what the ledger says about its processes. */
export type WatchedTask = {
	readonly task: Pick<Task, 'id' | 'status' | 'pid' | 'lastSeq' | 'source' | 'isTurnOpen' | 'hasCompletedTurn'>;
	/** For a `registered` row: the wrapper that registered it, or null when it recorded none. */
	readonly registeredBy: RecordedWrapper | null;
	/** For a `running` or `untracked` row: its process, or null when no producer reported a PID. */
	readonly process: RecordedProcess | null;
};

/** Finds a process in the table by PID (a Map in tests; a lazy /proc reader in a pass). */
export type ProcessTable = {get(pid: number): ProcessInfo | undefined};

/** Everything one pass decides on, gathered beforehand: the plan reads nothing else. */
export type ReconcileFacts = {
	readonly now: number;
	/** The registered, running and untracked rows, in ledger order. */
	readonly watched: readonly WatchedTask[];
	readonly processes: ProcessTable;
	/** Live processes named like agents (kernel name, argv[0] or an interpreter's script). */
	readonly agentProcesses: readonly ProcessInfo[];
	/** Whether the ledger already holds a task with this id (a Set in tests; a ledger read in a pass). */
	readonly knownTaskIds: {has(taskId: string): boolean};
	/**
	 * Whether a task that is not an untracked row names this very process (its PID with the same
	 * start time): a hook session that ended while its agent still exits, say. Such a process is
	 * tracked work, never also untracked.
	 */
	readonly isNamedByTask: (process: ProcessInfo) => boolean;
};

/** What the pass decided about one watched task. */
export type Verdict =
	/** A registered row whose wrapper died before the spawn: nobody will start or end it. */
	| {readonly kind: 'never-started'; readonly wrapperPid: number}
	/** The task's process is gone, or its PID now names another process, and no exit was recorded: lost. */
	| {readonly kind: 'gone'; readonly pid: number; readonly fate: Exclude<PidFate, 'alive'>}
	/** A hook session's agent is gone after its last turn completed: it ended, its exit code unknown. */
	| {readonly kind: 'session-over'; readonly pid: number; readonly fate: Exclude<PidFate, 'alive'>}
	/** An untracked process went away: it was never tracked work, so it ended, outcome unknown (not lost). */
	| {readonly kind: 'vanished'; readonly pid: number}
	/** A hook reported the PID without its start time: note it once, to catch PID reuse later. */
	| {readonly kind: 'pid-reported'; readonly pid: number; readonly startTime: number}
	/** An untracked row whose process a wrapper or hook now tracks. */
	| {readonly kind: 'adopted'};

/**
 * A write that holds only while the task is as the pass saw it: the writer re-reads the task
 * inside the write transaction and drops the write if its status or PID changed (an exit recorded
 * meanwhile wins).
 */
export type GuardedWrite = {
	readonly seen: Pick<Task, 'id' | 'status' | 'pid'>;
	readonly verdict: Verdict;
	readonly event: NewEvent;
};

/** An agent process nobody registered, to be recorded as an `untracked` row. */
export type Discovery = {readonly taskId: string; readonly process: ProcessInfo};

/** What one pass will write. */
export type ReconcilePlan = {
	readonly guarded: readonly GuardedWrite[];
	readonly discovered: readonly Discovery[];
};

/** The longest command line kept on a discovered row. */
const MAX_COMMAND_CHARS = 200;

/** The key of an untracked agent: its PID and start time, so a reused PID is a new row. */
function untrackedTaskId(process: ProcessInfo): string {
	return `u-${process.pid}-${process.startTime}`;
}

type LostVerdict = Extract<Verdict, {kind: 'never-started' | 'gone'}>;

/** The reason a lost task carries, in words. */
function lostReason(verdict: LostVerdict): string {
	if (verdict.kind === 'never-started') return `wrapper ${verdict.wrapperPid} is gone and the agent was never started`;
	return verdict.fate === 'gone'
		? `process ${verdict.pid} is gone and no exit was recorded`
		: `PID ${verdict.pid} now belongs to another process (start time differs); the agent is gone and no exit was recorded`;
}

/** Why a hook session that finished its turn is ended rather than lost, in words. */
function sessionOverReason(verdict: Extract<Verdict, {kind: 'session-over'}>): string {
	const gone = verdict.fate === 'gone' ? `process ${verdict.pid} is gone` : `PID ${verdict.pid} now belongs to another process`;
	return `${gone} after its last turn completed, with no SessionEnd: ended, exit code unknown`;
}

/** Why an untracked process's row leaves the live lanes, in words. */
export function vanishedReason(pid: number): string {
	return `process ${pid} went away; it was never tracked, so how it ended is unknown`;
}

/** The event a verdict writes: the one place a reconciler's `lost`, `ended` and `pid_reported` are made. */
function eventOf(task: WatchedTask['task'], verdict: Verdict, now: number): NewEvent {
	const base = {taskId: task.id, at: now, source: 'reconciler'} as const;
	switch (verdict.kind) {
		case 'never-started':
			return {...base, type: EventType.lost, data: {reason: lostReason(verdict)}};
		case 'gone':
			return {
				...base,
				type: EventType.lost,
				data: {reason: lostReason(verdict), pid: verdict.pid},
				// A running task may be seen gone by the board's pass and a `reconcile` loop at once.
				...(task.status === 'running' ? {dedupKey: `lost:${task.id}:${verdict.pid}:${task.lastSeq}`} : {}),
			};
		case 'pid-reported':
			return {
				...base,
				type: EventType.pidReported,
				data: {pid: verdict.pid, startTime: verdict.startTime},
				dedupKey: `pid-start:${task.id}:${verdict.pid}:${verdict.startTime}`,
			};
		case 'session-over':
			return {...base, type: EventType.ended, data: {reason: sessionOverReason(verdict)}};
		case 'vanished':
			return {...base, type: EventType.ended, data: {reason: vanishedReason(verdict.pid)}};
		case 'adopted':
			return {...base, type: EventType.ended, data: {reason: 'now tracked by a wrapper or hook'}};
	}
}

/** The `task.discovered` event of a discovery, with the argv and working folder read for it. */
export function discoveredEvent(
	discovery: Discovery,
	seen: {readonly argv: readonly string[] | null; readonly cwd: string | null},
	now: number,
): NewEvent {
	const {taskId, process} = discovery;
	return {
		taskId,
		type: EventType.discovered,
		at: now,
		source: 'reconciler',
		data: {
			pid: process.pid,
			name: process.name,
			command: (seen.argv ?? [process.name]).join(' ').slice(0, MAX_COMMAND_CHARS),
			cwd: seen.cwd,
			startTime: process.startTime,
		},
		dedupKey: `discovered:${taskId}`,
	};
}

type Judgement = {readonly verdict: Verdict | null; readonly tracks: number | null};

/**
 * A registered or running row. Its process alive: it is tracked (a PID reported without its start
 * time gets one noted). Its process gone: lost, unless its wrapper still lives and will record the
 * exit itself. A registered row whose wrapper is gone was never started, so it is lost too.
 */
function judgeTracked(watched: WatchedTask, processes: ProcessTable): Judgement {
	const isAlive = (pid: number | null, startTime: number | null): boolean =>
		pid !== null && pidFate(startTime, processes.get(pid)) === 'alive';
	if (watched.task.status === 'registered') {
		const wrapper = watched.registeredBy;
		if (!wrapper || isAlive(wrapper.pid, wrapper.startTime)) return {verdict: null, tracks: null};
		return {verdict: {kind: 'never-started', wrapperPid: wrapper.pid}, tracks: null};
	}
	const record = watched.process;
	if (!record) return {verdict: null, tracks: null};
	const current = processes.get(record.pid);
	const fate = pidFate(record.startTime, current);
	if (fate === 'alive') {
		const verdict: Verdict | null =
			record.startTime === null && current ? {kind: 'pid-reported', pid: record.pid, startTime: current.startTime} : null;
		return {verdict, tracks: record.pid};
	}
	// The wrapper records the exit itself; lost is only for a task nobody will speak for.
	if (isAlive(record.wrapperPid, record.wrapperStartTime)) return {verdict: null, tracks: record.wrapperPid};
	// A hook session at rest has nothing in flight: its agent exited without a SessionEnd.
	return {verdict: {kind: isSessionAtRest(watched.task) ? 'session-over' : 'gone', pid: record.pid, fate}, tracks: null};
}

/** An untracked row: ended (outcome unknown) when its process is gone, ended once a wrapper or hook tracks it or an ancestor. */
function judgeUntracked(watched: WatchedTask, processes: ProcessTable, tracked: ReadonlySet<number>): Verdict | null {
	const record = watched.process;
	if (!record) return null;
	const fate = pidFate(record.startTime, processes.get(record.pid));
	if (fate !== 'alive') return {kind: 'vanished', pid: record.pid};
	const isTracked = (pid: number): boolean => tracked.has(pid);
	return isTracked(record.pid) || ownedWithin(record.pid, pid => processes.get(pid), isTracked) ? {kind: 'adopted'} : null;
}

/**
 * Decides one reconciler pass from gathered facts (docs/wrapper.md, "`controlroom reconcile`"): which tasks are lost, which
 * PIDs get their start time noted, which agent processes nobody registered become `untracked`
 * rows (skipping those with a tracked or agent ancestor within three levels), and which untracked
 * rows end because they are now tracked. Registered and running rows are judged first: the PIDs
 * they keep alive are what "tracked" means for the rest.
 */
export function planReconcile(facts: ReconcileFacts): ReconcilePlan {
	const {now, processes} = facts;
	const guarded: GuardedWrite[] = [];
	const write = (watched: WatchedTask, verdict: Verdict): void => {
		guarded.push({seen: watched.task, verdict, event: eventOf(watched.task, verdict, now)});
	};
	const tracked = new Set<number>();
	const untracked = facts.watched.filter(watched => watched.task.status === 'untracked');
	for (const watched of facts.watched) {
		if (watched.task.status === 'untracked') continue;
		const {verdict, tracks} = judgeTracked(watched, processes);
		if (tracks !== null) tracked.add(tracks);
		if (verdict) write(watched, verdict);
	}
	const covered = coveredPids(facts, tracked);
	const untrackedIds = new Set(untracked.map(watched => watched.task.id));
	const discovered = findUntracked(facts.agentProcesses, pid => processes.get(pid), covered)
		.map(process => ({taskId: untrackedTaskId(process), process}))
		.filter(({taskId}) => !untrackedIds.has(taskId) && !facts.knownTaskIds.has(taskId));
	for (const watched of untracked) {
		const verdict = judgeUntracked(watched, processes, covered);
		if (verdict) write(watched, verdict);
	}
	return {guarded, discovered};
}

/**
 * The PIDs that are tracked work: those the live rows keep alive, the agent processes a task
 * names with their start time (a session that ended while its agent exits), and the agent's own
 * launchers above them (Codex's `node .../codex` above the native `codex` its hooks name).
 */
function coveredPids(facts: ReconcileFacts, tracked: ReadonlySet<number>): Set<number> {
	const agents = new Map(facts.agentProcesses.map(process => [process.pid, process]));
	const covered = new Set(tracked);
	for (const process of facts.agentProcesses) {
		if (!covered.has(process.pid) && facts.isNamedByTask(process)) covered.add(process.pid);
	}
	for (const pid of [...covered]) {
		let parent = facts.processes.get(pid)?.ppid;
		for (let level = 0; level < PARENT_LEVELS && parent !== undefined && agents.has(parent); level += 1) {
			covered.add(parent);
			parent = agents.get(parent)?.ppid;
		}
	}
	return covered;
}

/** The tasks a pass found lost, as it reports them: the PID that is gone (the wrapper's, for a run never started). */
export function lostTasks(writes: Iterable<GuardedWrite>): {taskId: string; pid: number; reason: string}[] {
	const lost: {taskId: string; pid: number; reason: string}[] = [];
	for (const {seen, verdict} of writes) {
		if (verdict.kind === 'never-started') lost.push({taskId: seen.id, pid: verdict.wrapperPid, reason: lostReason(verdict)});
		if (verdict.kind === 'gone') lost.push({taskId: seen.id, pid: verdict.pid, reason: lostReason(verdict)});
	}
	return lost;
}

/** The untracked rows a pass ended because a wrapper or hook now tracks them. */
export function adoptedTasks(writes: Iterable<GuardedWrite>): string[] {
	return [...writes].filter(({verdict}) => verdict.kind === 'adopted').map(({seen}) => seen.id);
}

/** The rows a pass ended without calling them lost: sessions whose last turn had completed, untracked processes gone. */
export function endedTasks(writes: Iterable<GuardedWrite>): {taskId: string; pid: number; reason: string}[] {
	const ended: {taskId: string; pid: number; reason: string}[] = [];
	for (const {seen, verdict, event} of writes) {
		if (verdict.kind === 'session-over' || verdict.kind === 'vanished') {
			ended.push({taskId: seen.id, pid: verdict.pid, reason: event.type === EventType.ended ? (event.data.reason ?? '') : ''});
		}
	}
	return ended;
}
