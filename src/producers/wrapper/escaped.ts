import {setTimeout as sleep} from 'node:timers/promises';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {answersTo, recordedStampsOf} from '../agent-tree.ts';
import {processesWithEnv, readProcess} from '../proc-table.ts';
import {DEFAULT_AGENT_NAMES} from '../reconcile-options.ts';
import {TASK_ID_ENV} from '../task-id-env.ts';
import {latestStopRequest} from '../wrapper-queries.ts';

/** How often the wrapper looks whether an agent that left its child's session still runs (it is not the wrapper's child). */
const LOOK_EVERY_MS = 250;

/**
 * How long, after the child exited, a process of the run that left the child's process group is
 * given to become an agent: `setsid claude-launcher.sh` exits before its script has exec'd Claude.
 */
export const LAUNCHER_SETTLE_MS = 5000;

/** An agent process of the run that is not the wrapper's child. */
export type EscapedAgent = {readonly pid: number; readonly startTime: number; readonly name: string};

/**
 * The run's agent processes still alive once its child exited: processes carrying the run's task
 * id that answer to an agent's name, and the agent PIDs its hooks reported on the task (with their
 * start time). A launcher that moves the agent into a session of its own (`setsid claude ...`,
 * which forks and exits at once) leaves exactly this.
 */
export function escapedAgents(ledger: Ledger, taskId: string): EscapedAgent[] {
	const found = new Map<number, EscapedAgent>();
	for (const process of processesWithEnv(TASK_ID_ENV, taskId)) {
		if (DEFAULT_AGENT_NAMES.some(agent => answersTo(agent, process))) {
			found.set(process.pid, {pid: process.pid, startTime: process.startTime, name: process.name});
		}
	}
	for (const stamp of recordedStampsOf(ledger, {id: taskId, source: 'wrapper'})) {
		if (stamp.agent === null || stamp.startTime === null || found.has(stamp.pid)) continue;
		const current = readProcess(stamp.pid);
		if (current && current.state !== 'Z' && current.startTime === stamp.startTime && answersTo(stamp.agent, current)) {
			found.set(current.pid, {pid: current.pid, startTime: current.startTime, name: current.name});
		}
	}
	return [...found.values()];
}

/** Whether a live process of the run (its task id in its environment) is outside the child's process group. */
function hasLeftGroup(taskId: string, childGroup: number): boolean {
	return processesWithEnv(TASK_ID_ENV, taskId).some(process => process.state !== 'Z' && process.pgid !== childGroup);
}

/**
 * Waits while an agent of the run lives on outside the child: the run is the agent's, not its
 * launcher's. A process of the run that left the child's group but is no agent yet (a launcher
 * script between fork and exec) is given LAUNCHER_SETTLE_MS to become one. Returns the agents that
 * did (empty when none), once they are gone, a stop was asked for (the stop ends them and records
 * it), or `isInterrupted` says a signal came.
 */
export async function awaitEscapedAgents(
	ledger: Ledger,
	taskId: string,
	childGroup: number,
	isInterrupted: () => boolean,
): Promise<EscapedAgent[]> {
	const seen = new Map<number, EscapedAgent>();
	const settleUntil = Date.now() + LAUNCHER_SETTLE_MS;
	for (;;) {
		let alive: EscapedAgent[];
		try {
			alive = escapedAgents(ledger, taskId);
		} catch {
			// The ledger cannot be read now (busy, replaced): what the environment shows still counts.
			alive = [];
		}
		for (const agent of alive) seen.set(agent.pid, agent);
		const isStopAsked = (() => {
			try {
				return latestStopRequest(ledger, taskId) !== null;
			} catch {
				return false;
			}
		})();
		if (isStopAsked || isInterrupted()) return [...seen.values()];
		if (alive.length === 0) {
			const mayBecomeAgent = seen.size === 0 && Date.now() < settleUntil && hasLeftGroup(taskId, childGroup);
			if (!mayBecomeAgent) return [...seen.values()];
		}
		await sleep(LOOK_EVERY_MS);
	}
}
