import {setTimeout as sleep} from 'node:timers/promises';
import {EventType} from '../core/events.ts';
import {isEnded} from '../core/status.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import {agentTreeOf, type AgentTree, type RefusedStamp, type TreeProcess} from './agent-tree.ts';
import {processStartTime, readProcess} from './proc-table.ts';
import {decisionState, holdsHeadlessRun} from '../core/decisions/fold.ts';
import {readDecisions} from '../ledger/decisions.ts';

/** Time a task gets to end after SIGTERM before SIGKILL. */
export const DEFAULT_GRACE_MS = 5000;
/**
 * How often the tree's known processes are checked while waiting for them to be gone: the kernel
 * gives Node no event for the end of a process it did not spawn, and one stat read per known
 * process is all a check costs. Looking for new members (every process's stat and environment)
 * happens only on the events that call for it (endTree), never on a timer.
 */
const CHECK_EVERY_MS = 25;
/** How long SIGKILL may take to clear the tree before we give up and name what is left. */
export const KILL_WAIT_MS = 3000;

/** Why a task cannot be stopped. */
export type StopRefusal = 'not-found' | 'ambiguous' | 'ended' | 'pid-unknown' | 'gone' | 'pid-reused';

/** A wrapped run's child as the wrapper spawned it: its PID, the group it leads and its start time. */
export type StopTarget = {readonly pid: number; readonly pgid: number | null; readonly startTime: number | null};

/** A process of the tree still alive after SIGKILL, and why, where known. */
export type Survivor = {readonly pid: number; readonly name: string; readonly why: string};

/** What `stopTask` did, or why it could not. */
export type StopResult =
	| {
			readonly outcome: 'stopped';
			readonly taskId: string;
			/** The last signal sent: SIGKILL when the tree outlived the grace period. */
			readonly signal: 'SIGTERM' | 'SIGKILL';
			readonly escalated: boolean;
			/** Every process the stop ended, each confirmed gone. */
			readonly pids: readonly number[];
			readonly message: string;
	  }
	| {
			/** Some processes of the tree outlived SIGKILL (another user's, or stuck in the kernel): named. */
			readonly outcome: 'partial';
			readonly taskId: string;
			readonly pids: readonly number[];
			readonly survivors: readonly Survivor[];
			readonly message: string;
	  }
	| {readonly outcome: 'refused'; readonly taskId: string | null; readonly reason: StopRefusal; readonly message: string};

/** How a tree that was asked to end did end. */
export type TreeEnd = {
	readonly signal: 'SIGTERM' | 'SIGKILL';
	readonly escalated: boolean;
	/** Every process signalled, the survivors among them. */
	readonly pids: readonly number[];
	readonly survivors: readonly Survivor[];
};

/** Whether a process is still the one that was found: same PID, same start time, not a zombie. */
function isSame(target: TreeProcess): boolean {
	const current = readProcess(target.pid);
	return current !== undefined && current.state !== 'Z' && current.startTime === target.startTime;
}

/** Signals one process, checked to be the same process just before; the error code when the kernel refused. */
function signal(target: TreeProcess, name: NodeJS.Signals): string | null {
	if (!isSame(target)) return null;
	try {
		process.kill(target.pid, name);
		return null;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code ?? 'error';
		return code === 'ESRCH' ? null : code;
	}
}

/**
 * Ends a process tree: SIGTERM to each process, SIGKILL to what is left after `graceMs`, and a
 * check that each is gone; what outlives SIGKILL for KILL_WAIT_MS is named. The tree is looked for
 * again (its new members signalled at once) only on the events that can hide one: a process of it
 * ended (what it started is orphaned, out of reach of a descent from it), the move to SIGKILL (what
 * was born during the grace dies too), and the moment every known process is gone (nothing new
 * left behind). Reading every process's environment on a timer held a stop up on a loaded machine.
 * Shared by `stop`, the board's `s`, a fleet stop, the wrapper's budget stop and the signals it forwards.
 */
export async function endTree(tree: AgentTree, graceMs: number): Promise<TreeEnd> {
	const known = new Map<number, TreeProcess>();
	const refusedBy = new Map<number, string>();
	let current: 'SIGTERM' | 'SIGKILL' = 'SIGTERM';
	const take = (found: readonly TreeProcess[]): void => {
		for (const process of found) {
			if (known.has(process.pid)) continue;
			known.set(process.pid, process);
			const refusal = signal(process, current);
			if (refusal) refusedBy.set(process.pid, refusal);
		}
	};
	const aliveNow = (): TreeProcess[] => [...known.values()].filter(isSame);
	take(tree.processes);
	let deadline = Date.now() + Math.max(0, graceMs);
	// Every process found counts as alive when found: one already gone by the first check is an end to look behind.
	let aliveBefore = known.size;
	for (;;) {
		let alive = aliveNow();
		if (alive.length < aliveBefore) {
			const before = known.size;
			take(tree.rescan([...known.values()]));
			if (alive.length === 0 && known.size === before) break;
			alive = aliveNow();
		}
		aliveBefore = alive.length;
		if (alive.length === 0) break;
		if (Date.now() >= deadline) {
			if (current === 'SIGKILL') break;
			current = 'SIGKILL';
			for (const process of alive) {
				const refusal = signal(process, 'SIGKILL');
				if (refusal) refusedBy.set(process.pid, refusal);
			}
			const sizeBefore = known.size;
			take(tree.rescan([...known.values()]));
			// Those signalled and those just found count as alive, as at the start: one that dies at
			// once is then an end to look behind, so the tree is looked at once more when it is gone.
			aliveBefore = alive.length + known.size - sizeBefore;
			deadline = Date.now() + KILL_WAIT_MS;
		}
		await sleep(CHECK_EVERY_MS);
	}
	const survivors = aliveNow().map(process => ({
		pid: process.pid,
		name: process.name,
		why: refusedBy.get(process.pid) === 'EPERM' ? 'not permitted to signal it' : `alive ${KILL_WAIT_MS} ms after SIGKILL`,
	}));
	return {signal: current, escalated: current === 'SIGKILL', pids: [...known.keys()], survivors};
}

/** How a stop is made: the grace period, and who asked (recorded as the events' source). */
export type StopOptions = {readonly graceMs?: number; readonly source?: 'cli' | 'board' | 'fleet'; readonly procRoot?: string};

/**
 * The live wrapper of a held run that waits for a person (its agent exited on a deferred call):
 * its PID when a deferred or budget question of the task is open or answered and not carried out.
 */
function waitingWrapperOf(ledger: Ledger, taskId: string, procRoot: string | undefined): number | null {
	const isHeld = [...readDecisions(ledger.reader).values()].some(decision => {
		if (decision.taskId !== taskId || !holdsHeadlessRun(decision)) return false;
		const state = decisionState(decision, Date.now());
		return state === 'open' || state === 'answered';
	});
	if (!isHeld) return null;
	// The wrapper's own start of its latest child: the agent's hooks record a `task.started` of their own
	// (the Claude PID, no wrapper) on the same task, which must not hide it.
	const started = ledger.reader
		.latestEventsOf(taskId, [EventType.started], 50)
		.find(event => typeof event.data.wrapperPid === 'number')?.data;
	const pid = started?.wrapperPid ?? null;
	if (pid === null) return null;
	const now = processStartTime(pid, procRoot);
	return now !== null && (started?.wrapperStartTime ?? null) === now ? pid : null;
}

/** Ends a held run's wait: SIGTERM to its wrapper, which records `stopped` itself (docs/headless-holds.md). */
async function stopWaitingWrapper(ledger: Ledger, taskId: string, wrapperPid: number, source: string): Promise<StopResult> {
	ledger.writer.append([
		{taskId, type: EventType.stopRequested, at: Date.now(), source, data: {signal: 'SIGTERM', graceMs: 0, pids: [wrapperPid]}},
	]);
	try {
		process.kill(wrapperPid, 'SIGTERM');
	} catch {
		// Gone meanwhile: the reconciler keeps the held task waiting for `run --resume`.
	}
	for (let waited = 0; waited < KILL_WAIT_MS; waited += CHECK_EVERY_MS) {
		if (isEnded(ledger.reader.task(taskId)?.status ?? 'running')) break;
		await sleep(CHECK_EVERY_MS);
	}
	return {
		outcome: 'stopped',
		taskId,
		pids: [wrapperPid],
		signal: 'SIGTERM',
		escalated: false,
		message: `stopped ${taskId}: it was waiting for a person; its wrapper (pid ${wrapperPid}) ended by SIGTERM`,
	};
}

/** Why no recorded process may be signalled, in words. */
function refusalOf(taskId: string, refused: readonly RefusedStamp[]): {reason: StopRefusal; message: string} {
	const reused = refused.find(stamp => stamp.fate === 'reused' || stamp.fate === 'not-an-agent' || stamp.fate === 'unverified');
	if (!reused)
		return {reason: 'gone', message: `task ${taskId}: its processes are already gone; the reconciler will record how it ended`};
	const why =
		reused.fate === 'reused'
			? 'now belongs to another process (start time differs)'
			: reused.fate === 'not-an-agent'
				? 'now belongs to a process that is not the agent'
				: 'was recorded without its start time, so it cannot be told from another process';
	return {reason: 'pid-reused', message: `task ${taskId}: PID ${reused.pid} (${reused.from}) ${why}; not signalling it`};
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 'es'}`;

/**
 * Stops a task (by id, unique id prefix or session id): ends its whole process tree (endTree): the
 * processes its producers recorded, each only with its recorded start time (and its agent's name,
 * where a hook or the process table named it), and everything below them, whatever group or session
 * they moved to. It records the request, and `stopped` with the signal that ended the tree once every
 * process of it is confirmed gone (a task that ended meanwhile keeps its end); when some outlive
 * SIGKILL it records nothing more and names them. A live wrapper that sees the request leaves the
 * record to the stop. The board's `s`, `controlroom stop` and a fleet stop all call this.
 */
export async function stopTask(ledger: Ledger, ref: string, options: StopOptions = {}): Promise<StopResult> {
	const source = options.source ?? 'cli';
	let task: Task | undefined;
	try {
		task = ledger.reader.resolveTask(ref);
	} catch (error) {
		const reason = error instanceof AmbiguousTaskError ? 'ambiguous' : 'not-found';
		return {outcome: 'refused', taskId: null, reason, message: (error as Error).message};
	}
	if (!task) return {outcome: 'refused', taskId: null, reason: 'not-found', message: `no task matches '${ref}'`};
	const taskId = task.id;
	const refuse = (reason: StopRefusal, message: string): StopResult => ({outcome: 'refused', taskId, reason, message});
	if (isEnded(task.status)) return refuse('ended', `task ${task.id} has already ended (${task.status})`);
	const tree = agentTreeOf(ledger, task, options.procRoot);
	// A held run waits for a person with no agent process: its wrapper is what is left to end.
	const waiting = tree.processes.length === 0 ? waitingWrapperOf(ledger, task.id, options.procRoot) : null;
	if (waiting !== null) return stopWaitingWrapper(ledger, task.id, waiting, source);
	if (tree.processes.length === 0) {
		if (task.pid === null && tree.refused.length === 0) {
			return refuse(
				'pid-unknown',
				`task ${task.id} cannot be stopped: no producer reported its PID, so there is no process to signal`,
			);
		}
		const refusal = refusalOf(task.id, tree.refused);
		return refuse(refusal.reason, refusal.message);
	}
	const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
	const pids = tree.processes.map(process => process.pid);
	ledger.writer.append([
		{
			taskId: task.id,
			type: EventType.stopRequested,
			at: Date.now(),
			source,
			data: {signal: 'SIGTERM', graceMs, pgid: task.pgid, pids},
		},
	]);
	const ended = await endTree(tree, graceMs);
	const count = plural(ended.pids.length, 'process');
	if (ended.survivors.length > 0) {
		const named = ended.survivors.map(survivor => `${survivor.pid} (${survivor.name}: ${survivor.why})`).join(', ');
		return {
			outcome: 'partial',
			taskId,
			pids: ended.pids,
			survivors: ended.survivors,
			message: `task ${task.id}: ${ended.survivors.length} of ${count} still alive: ${named}`,
		};
	}
	const reason = ended.escalated ? `stop requested; still alive after ${graceMs} ms, killed` : 'stop requested';
	ledger.writer.transaction(() => {
		const now = ledger.reader.task(taskId);
		if (now && !isEnded(now.status)) {
			ledger.writer.append([
				{
					taskId,
					type: EventType.stopped,
					at: Date.now(),
					source,
					data: {signal: ended.signal, reason, exitCode: null, escalated: ended.escalated, pids: [...ended.pids]},
				},
			]);
		}
	});
	return {
		outcome: 'stopped',
		taskId,
		signal: ended.signal,
		escalated: ended.escalated,
		pids: ended.pids,
		message: `stopped ${task.id}: ${count} (${ended.pids.join(', ')}) ended by ${ended.signal}${ended.escalated ? ` after ${graceMs} ms grace` : ''}`,
	};
}
