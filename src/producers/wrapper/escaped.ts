import {setTimeout as sleep} from 'node:timers/promises';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {answersTo, recordedStampsOf} from '../agent-tree.ts';
import {processesWithEnv, readProcess} from '../proc-table.ts';
import {DEFAULT_AGENT_NAMES} from '../reconcile-options.ts';
import {TASK_ID_ENV} from '../task-id-env.ts';
import {latestStopRequest} from '../wrapper-queries.ts';

/** How often the wrapper looks whether an agent that left its child's session still runs (it is not the wrapper's child). */
const LOOK_EVERY_MS = 250;

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

/**
 * Waits while an agent of the run lives on outside the child: the run is the agent's, not its
 * launcher's. Returns the agents that did (empty when none), once they are gone, a stop was asked
 * for (the stop ends them and records it), or `isInterrupted` says a signal came.
 */
export async function awaitEscapedAgents(ledger: Ledger, taskId: string, isInterrupted: () => boolean): Promise<EscapedAgent[]> {
	const seen = new Map<number, EscapedAgent>();
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
		if (alive.length === 0 || isStopAsked || isInterrupted()) return [...seen.values()];
		await sleep(LOOK_EVERY_MS);
	}
}
