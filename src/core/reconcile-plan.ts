import {EventType, type NewEvent} from './events.ts';
import {findUntracked, PARENT_LEVELS, pidFate, type PidFate, type ProcessInfo} from './process-tree.ts';
import {helpersStillWorking} from './open-helpers.ts';
import {isEnded} from './status.ts';
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

/** What the pass reads of a watched row. */
export type WatchedRow = Pick<Task, 'id' | 'status' | 'pid' | 'lastSeq' | 'source' | 'isTurnOpen' | 'hasCompletedTurn'> &
	Partial<Pick<Task, 'sessionId' | 'sessionEndedAt' | 'parentId' | 'lastSeenAt' | 'openHelpers'>>;

/** A helper's parent, as the ledger holds it now. */
export type ParentRow = Pick<Task, 'id' | 'status' | 'endedAt'>;

/** One `registered`, `running` or `untracked` row the pass looks at, with what the ledger says about its processes. */
export type WatchedTask = {
	readonly task: WatchedRow;
	/** For a `registered` row: the wrapper that registered it, or null when it recorded none. */
	readonly registeredBy: RecordedWrapper | null;
	/** For a `running` or `untracked` row: its process, or null when no producer reported a PID. */
	readonly process: RecordedProcess | null;
	/** For a helper (a row with a parent and no process of its own): its parent's row, when the ledger has it. */
	readonly parent?: ParentRow | null;
	/** For a helper: the process its session ran in (its parent's), when the ledger recorded one; the helper runs inside it. */
	readonly parentProcess?: RecordedProcess | null;
	/**
	 * A question of the task holds it (a headless run's deferred call or crossed budget, open or
	 * answered and not carried out): it waits for a person, so it is neither lost nor ended when its
	 * agent and wrapper are gone (docs/headless-holds.md, "Crash safety").
	 */
	readonly isHeld?: boolean;
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
	 * The task, other than an untracked row, that names this very process (its PID with the same
	 * start time), or null: a hook session that ended while its agent still exits, say. Such a
	 * process is tracked work, never also untracked.
	 */
	readonly namedByTask: (process: ProcessInfo) => string | null;
	/**
	 * How long ago a process started (ms), when the process table says; an agent process younger
	 * than `discoveryGraceMs` is left for its own hook to register before it counts as untracked.
	 */
	readonly ageMs?: (process: ProcessInfo) => number | null;
	readonly discoveryGraceMs?: number;
};

/** What the pass decided about one watched task. */
export type Verdict =
	/** A registered row whose wrapper died before the spawn: nobody will start or end it. */
	| {readonly kind: 'never-started'; readonly wrapperPid: number}
	/**
	 * The task's process is gone, or its PID now names another process, and no exit was recorded:
	 * lost. `openHelpers`: helpers of its session still worked (their end never came).
	 */
	| {readonly kind: 'gone'; readonly pid: number; readonly fate: Exclude<PidFate, 'alive'>; readonly openHelpers?: number}
	/**
	 * A session's agent is gone (and no wrapper is left to record the exit) after its session ended or
	 * its last turn completed: it ended, its exit code unknown, never lost.
	 */
	| {
			readonly kind: 'session-over';
			readonly pid: number;
			readonly fate: Exclude<PidFate, 'alive'>;
			/** The wrapper that died without recording the exit, for a wrapper's task. */
			readonly wrapperPid: number | null;
	  }
	/**
	 * A helper whose session's process is gone (or, that process unknown, whose parent ended before its
	 * own last sign) and which never reported its end: lost, how its work ended unknown.
	 */
	| {readonly kind: 'with-parent'; readonly parent: ParentRow; readonly sessionPid: number | null}
	/** An untracked process went away: it was never tracked work, so it ended, outcome unknown (not lost). */
	| {readonly kind: 'vanished'; readonly pid: number}
	/** A hook reported the PID without its start time: note it once, to catch PID reuse later. */
	| {readonly kind: 'pid-reported'; readonly pid: number; readonly startTime: number}
	/** An untracked row whose process a wrapper or hook now tracks (`into`): the same work, shown once. */
	| {readonly kind: 'adopted'; readonly into: string};

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

type LostVerdict = Extract<Verdict, {kind: 'never-started' | 'gone' | 'with-parent'}>;

/** The reason a lost task carries, in words. */
function lostReason(verdict: LostVerdict): string {
	if (verdict.kind === 'never-started') return `wrapper ${verdict.wrapperPid} is gone and the agent was never started`;
	if (verdict.kind === 'with-parent') {
		// Its own fate, never its parent's status: the parent may have ended well while this helper was cut short.
		const session =
			verdict.sessionPid === null
				? `its session ${verdict.parent.id} ended`
				: `its session's process ${verdict.sessionPid} is gone`;
		return `${session} and it never reported its end (no SubagentStop): how its work ended is unknown`;
	}
	const gone =
		verdict.fate === 'gone'
			? `process ${verdict.pid} is gone and no exit was recorded`
			: `PID ${verdict.pid} now belongs to another process (start time differs); the agent is gone and no exit was recorded`;
	const open = verdict.openHelpers ?? 0;
	return open > 0 ? `${gone}, with ${helpersStillWorking(open)}` : gone;
}

/** Why a session that ended or finished its turn is ended rather than lost, in words. */
function sessionOverReason(task: WatchedRow, verdict: Extract<Verdict, {kind: 'session-over'}>): string {
	const gone = verdict.fate === 'gone' ? `process ${verdict.pid} is gone` : `PID ${verdict.pid} now belongs to another process`;
	const session =
		task.sessionEndedAt !== null && task.sessionEndedAt !== undefined
			? 'its session had ended (SessionEnd)'
			: 'its last turn had completed, with no SessionEnd';
	const wrapper = verdict.wrapperPid === null ? '' : `; wrapper ${verdict.wrapperPid} died without recording the exit`;
	return `${gone} and ${session}${wrapper}: ended, exit code unknown`;
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
		case 'with-parent':
			return {
				...base,
				type: EventType.lost,
				data: {reason: lostReason(verdict), parentId: verdict.parent.id},
				dedupKey: `lost:${task.id}:with-parent:${task.lastSeq}`,
			};
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
			return {...base, type: EventType.ended, data: {reason: sessionOverReason(task, verdict)}};
		case 'vanished':
			return {...base, type: EventType.vanished, data: {reason: vanishedReason(verdict.pid), pid: verdict.pid}};
		case 'adopted':
			return {
				...base,
				type: EventType.merged,
				data: {reason: `its process is tracked as ${verdict.into}`, into: verdict.into, pid: task.pid},
			};
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
	if (!record) return {verdict: helperVerdict(watched, processes), tracks: null};
	const current = processes.get(record.pid);
	const fate = pidFate(record.startTime, current);
	if (fate === 'alive') {
		const verdict: Verdict | null =
			record.startTime === null && current ? {kind: 'pid-reported', pid: record.pid, startTime: current.startTime} : null;
		return {verdict, tracks: record.pid};
	}
	// The wrapper records the exit itself; lost is only for a task nobody will speak for.
	if (isAlive(record.wrapperPid, record.wrapperStartTime)) return {verdict: null, tracks: record.wrapperPid};
	// Held for a person: `run --resume` (or the reconciler, once it is answered) carries it on.
	if (watched.isHeld) return {verdict: null, tracks: null};
	// A session that ended, or is at rest, has nothing in flight: its agent exited, its end is known.
	const isOver = isSessionAtRest(withSession(watched.task)) || (watched.task.sessionEndedAt ?? null) !== null;
	if (isOver) return {verdict: {kind: 'session-over', pid: record.pid, fate, wrapperPid: record.wrapperPid}, tracks: null};
	const openHelpers = watched.task.openHelpers?.length ?? 0;
	return {verdict: {kind: 'gone', pid: record.pid, fate, ...(openHelpers > 0 ? {openHelpers} : {})}, tracks: null};
}

function withSession(task: WatchedRow): WatchedRow & Pick<Task, 'sessionId'> {
	return {...task, sessionId: task.sessionId ?? null};
}

/**
 * A helper runs inside its session's process (its parent's), so it has no PID of its own. Once the
 * parent has ended and that process is gone, a helper that never reported its end (SubagentStop)
 * was cut short with it: lost, its outcome unknown, whatever the parent ended as. While the process
 * lives, the helper's own SubagentStop is still to come. Where the ledger has no process for the
 * parent, a helper whose own events go on after the parent's end is left running.
 */
export function helperVerdict(watched: WatchedTask, processes: ProcessTable): Verdict | null {
	const parent = watched.parent;
	if (!parent || parent.endedAt === null || !isEnded(parent.status)) return null;
	const session = watched.parentProcess ?? null;
	if (session !== null) {
		if (pidFate(session.startTime, processes.get(session.pid)) === 'alive') return null;
		return {kind: 'with-parent', parent, sessionPid: session.pid};
	}
	const ownLastSign = watched.task.lastSeenAt ?? 0;
	return ownLastSign > parent.endedAt ? null : {kind: 'with-parent', parent, sessionPid: null};
}

/** An untracked row: vanished (outcome unknown) when its process is gone, merged once a wrapper or hook tracks it or an ancestor. */
function judgeUntracked(watched: WatchedTask, processes: ProcessTable, tracked: ReadonlyMap<number, string>): Verdict | null {
	const record = watched.process;
	if (!record) return null;
	const fate = pidFate(record.startTime, processes.get(record.pid));
	if (fate !== 'alive') return {kind: 'vanished', pid: record.pid};
	const into = trackerOf(record.pid, processes, tracked);
	return into === null ? null : {kind: 'adopted', into};
}

/** The task that tracks a process, or one of its first PARENT_LEVELS ancestors; null when none does. */
function trackerOf(pid: number, processes: ProcessTable, tracked: ReadonlyMap<number, string>): string | null {
	let current: number | undefined = pid;
	for (let level = 0; level <= PARENT_LEVELS && current !== undefined && current > 1; level += 1) {
		const taskId = tracked.get(current);
		if (taskId !== undefined) return taskId;
		current = processes.get(current)?.ppid;
	}
	return null;
}

/** How long an agent process is left for its own hook to register it before it counts as untracked. */
export const DISCOVERY_GRACE_MS = 3000;

/**
 * Decides one reconciler pass from gathered facts (docs/wrapper.md, "`controlroom reconcile`"): which tasks
 * are lost, which PIDs get their start time noted, which agent processes nobody registered become
 * `untracked` rows (skipping those with a tracked or agent ancestor within three levels, and those
 * younger than the discovery grace), which untracked rows vanished or merged into the task that
 * now tracks them, and which helpers end with their parent. Registered and running rows are judged
 * first: the PIDs they keep alive are what "tracked" means for the rest.
 */
export function planReconcile(facts: ReconcileFacts): ReconcilePlan {
	const {now, processes} = facts;
	const guarded: GuardedWrite[] = [];
	const write = (watched: WatchedTask, verdict: Verdict): void => {
		guarded.push({seen: watched.task, verdict, event: eventOf(watched.task, verdict, now)});
	};
	const tracked = new Map<number, string>();
	const untracked = facts.watched.filter(watched => watched.task.status === 'untracked');
	for (const watched of facts.watched) {
		if (watched.task.status === 'untracked') continue;
		const {verdict, tracks} = judgeTracked(watched, processes);
		if (tracks !== null) tracked.set(tracks, watched.task.id);
		if (verdict) write(watched, verdict);
	}
	const covered = coveredPids(facts, tracked);
	const untrackedIds = new Set(untracked.map(watched => watched.task.id));
	const grace = facts.discoveryGraceMs ?? 0;
	const isOldEnough = (process: ProcessInfo): boolean => (facts.ageMs?.(process) ?? Number.POSITIVE_INFINITY) >= grace;
	const discovered = findUntracked(facts.agentProcesses, pid => processes.get(pid), new Set(covered.keys()))
		.filter(isOldEnough)
		.map(process => ({taskId: untrackedTaskId(process), process}))
		.filter(({taskId}) => !untrackedIds.has(taskId) && !facts.knownTaskIds.has(taskId));
	for (const watched of untracked) {
		const verdict = judgeUntracked(watched, processes, covered);
		if (verdict) write(watched, verdict);
	}
	return {guarded, discovered};
}

/**
 * The PIDs that are tracked work, each with the task that tracks it: those the live rows keep
 * alive, the agent processes a task names with their start time (a session that ended while its
 * agent exits), and the agent's own launchers above them (Codex's `node .../codex` above the
 * native `codex` its hooks name).
 */
function coveredPids(facts: ReconcileFacts, tracked: ReadonlyMap<number, string>): Map<number, string> {
	const agents = new Map(facts.agentProcesses.map(process => [process.pid, process]));
	const covered = new Map(tracked);
	for (const process of facts.agentProcesses) {
		if (covered.has(process.pid)) continue;
		const named = facts.namedByTask(process);
		if (named !== null) covered.set(process.pid, named);
	}
	for (const [pid, taskId] of [...covered]) {
		let parent = facts.processes.get(pid)?.ppid;
		for (let level = 0; level < PARENT_LEVELS && parent !== undefined && agents.has(parent); level += 1) {
			if (!covered.has(parent)) covered.set(parent, taskId);
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
		if (verdict.kind === 'with-parent') lost.push({taskId: seen.id, pid: seen.pid ?? 0, reason: lostReason(verdict)});
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
			const reason = event.type === EventType.ended || event.type === EventType.vanished ? (event.data.reason ?? '') : '';
			ended.push({taskId: seen.id, pid: verdict.pid, reason});
		}
	}
	return ended;
}
