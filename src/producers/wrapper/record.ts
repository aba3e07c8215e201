import {EventType, eventBody, type EventBody, type EventDataOf, type EventTypeName} from '../../core/events.ts';
import {isEnded} from '../../core/status.ts';
import {tmuxPaneFromEnv, type TmuxPane} from '../../core/tmux.ts';
import {UNKNOWN_TOKENS, type Tokens} from '../../core/tokens.ts';
import {signalExitCode, wrapperOutcome, type WrapperOutcome} from '../../core/wrapper-outcome.ts';
import {headRevision} from '../git-revision.ts';
import {processStartTime} from '../proc-table.ts';
import type {StopTarget} from '../stop.ts';
import type {EscapedAgent} from './escaped.ts';
import {commandLineOf, titleOf, type WrapperOptions} from './options.ts';

/** What the wrapper writes about its task, with source `wrapper`. */
export type TaskLog = {
	readonly taskId: string;
	append<T extends EventTypeName>(type: T, data: EventDataOf<T>): void;
	/** Records an event the child's output described. */
	write(body: EventBody): void;
	/**
	 * Records the task's end unless it has ended already (a stop recorded how the group ended):
	 * a task ends once. A `lost` row is the exception: the wrapper's own account of the exit wins.
	 */
	end<T extends EventTypeName>(type: T, data: EventDataOf<T>): void;
	/** The child exists: from now on a failed write is reported once and the run goes on. */
	markSpawned(): void;
};

/**
 * The wrapper's writes for one task. Before the spawn a failed write stops the run (nothing runs
 * unrecorded); after it, the agent is never taken down by its instrumentation: the wrapper says so
 * once and carries on.
 */
export function taskLog(options: Pick<WrapperOptions, 'ledger' | 'notice'>, taskId: string): TaskLog {
	let isSpawned = false;
	let hasWarned = false;
	const write = (body: EventBody): void => {
		try {
			options.ledger.writer.append([{...body, taskId, at: Date.now(), source: 'wrapper'}]);
		} catch (error) {
			if (!isSpawned) throw error;
			if (!hasWarned) options.notice(`cannot write to the ledger (${(error as Error).message}); the run goes on`);
			hasWarned = true;
		}
	};
	return {
		taskId,
		append: (type, data) => write(eventBody(type, data)),
		write,
		end(type, data) {
			try {
				options.ledger.writer.transaction(() => {
					const task = options.ledger.reader.task(taskId);
					if (task && isEnded(task.status) && task.status !== 'lost') return;
					options.ledger.writer.append([{...eventBody(type, data), taskId, at: Date.now(), source: 'wrapper'}]);
				});
			} catch (error) {
				if (!isSpawned) throw error;
				if (!hasWarned) options.notice(`cannot write to the ledger (${(error as Error).message}); the run goes on`);
				hasWarned = true;
			}
		},
		markSpawned() {
			isSpawned = true;
		},
	};
}

/**
 * The `registered` row: what will run, where, on which budget, and which wrapper speaks for it;
 * the command as given and its brief, so the review gate can run it again; the revision the
 * work starts from, so its diff is its own; and where its output is kept.
 */
export function recordRegistered(options: WrapperOptions, log: TaskLog, slot: number | null, output: string | null = null): void {
	log.append(EventType.registered, {
		title: titleOf(options),
		source: 'wrapper',
		role: options.role,
		cwd: options.cwd,
		parentId: options.parentId ?? null,
		budget: options.budget,
		budgetCovers: options.budgetCovers ?? 'run',
		steps: options.steps,
		command: commandLineOf(options),
		argv: [...(options.argv ?? [options.command, ...options.args])],
		contract: options.contract ?? null,
		contractDigest: options.contractSnapshot?.digest ?? null,
		contractText: options.contractSnapshot?.text ?? null,
		brief: options.brief ?? null,
		rerunOf: options.rerunOf ?? null,
		traceId: options.trace?.traceId ?? null,
		parentSpanId: options.trace?.parentSpanId ?? null,
		...(options.runAs ? {runAsUser: options.runAs.name, runAsUid: options.runAs.uid} : {}),
		baseRevision: headRevision(options.cwd),
		agent: options.agent,
		wrapperPid: process.pid,
		wrapperStartTime: processStartTime(process.pid),
		slot,
		output,
		// The agent inherits the wrapper's TMUX and TMUX_PANE: its pane is the wrapper's (docs/tmux.md).
		...tmuxField(tmuxPaneFromEnv(process.env['TMUX'], process.env['TMUX_PANE'])),
		...(options.worktree
			? {
					worktree: {
						path: options.worktree.path,
						branch: options.worktree.branch,
						base: options.worktree.base,
						repository: options.worktree.repository,
						from: options.worktree.from,
					},
				}
			: {}),
		// What `run --resume` needs to carry on a held run whose wrapper is gone: its own words and hold.
		...(options.hold
			? {
					hold: {
						args: [...options.args],
						onDeny: options.hold.onDeny,
						onBudget: options.hold.onBudget,
						isHeadless: options.hold.isHeadless,
						isClaude: options.hold.isClaude,
					},
				}
			: {}),
	});
}

function tmuxField(pane: TmuxPane | null): {tmux?: TmuxPane} {
	return pane ? {tmux: pane} : {};
}

/** Processes the child left running in its group when it exited. */
export type LeftRunning = {readonly processes: readonly {pid: number; name: string}[]; readonly count: number};

/** A signal came before the spawn: the run is recorded as stopped and nothing starts. */
export function recordStoppedBeforeSpawn(log: TaskLog, signal: string): number {
	log.end(EventType.stopped, {signal, reason: `wrapper received ${signal} before the spawn`, exitCode: null});
	return signalExitCode(signal);
}

/** `running`: the child's PID, its process group (it leads its own) and the start times that guard against PID reuse. */
export function recordStarted(log: TaskLog, pid: number): StopTarget {
	const startTime = processStartTime(pid);
	log.append(EventType.started, {
		pid,
		pgid: pid,
		startTime,
		wrapperPid: process.pid,
		wrapperStartTime: processStartTime(process.pid),
	});
	return {pid, pgid: pid, startTime};
}

/** The spawn itself failed: recorded as failed with exit 127. */
export function recordSpawnFailure(options: WrapperOptions, log: TaskLog, error: string): number {
	const outcome = wrapperOutcome({
		spawnError: error,
		exitCode: null,
		signal: null,
		receivedSignal: null,
		stopRequested: null,
		overBudget: false,
	});
	return recordOutcome(options, log, outcome);
}

/** Records how the run ended and returns the wrapper's exit code. */
export function recordOutcome(
	options: WrapperOptions,
	log: TaskLog,
	outcome: WrapperOutcome,
	tokens: Tokens = UNKNOWN_TOKENS,
	left: LeftRunning = {processes: [], count: 0},
	escaped: readonly EscapedAgent[] = [],
	budgetReason: string | null = null,
): number {
	switch (outcome.kind) {
		case 'failed-to-spawn':
			log.end(EventType.failed, {error: outcome.error, exitCode: outcome.exitCode});
			options.notice(`cannot start ${options.command}: ${outcome.error}`);
			break;
		case 'over-budget':
			log.end(EventType.stopped, {
				signal: outcome.signal,
				reason: `over budget: ${budgetReason ?? `${tokens.total} tokens > budget ${options.budget}`}`,
				exitCode: null,
				wrapperExit: outcome.exitCode,
			});
			break;
		case 'stopped':
			log.end(EventType.stopped, {
				signal: outcome.signal,
				reason: outcome.reason,
				exitCode: null,
				wrapperExit: outcome.exitCode,
			});
			break;
		case 'exited':
			if (escaped.length > 0) {
				// The child only launched the agent: how the agent itself exited, no one can say.
				const agents = escaped.map(agent => `${agent.name} (pid ${agent.pid})`).join(', ');
				log.end(EventType.exited, {
					exitCode: null,
					reason: `the launcher exited ${outcome.exitCode}; its agent ${agents} ran on outside its session and ended later, exit code unknown`,
				});
				break;
			}
			log.end(EventType.exited, {
				exitCode: outcome.exitCode,
				// Background processes the child started and did not wait for: the task is over, they are not.
				...(left.count > 0 ? {leftRunning: [...left.processes], leftRunningCount: left.count} : {}),
			});
			if (left.count > 0) {
				const names = left.processes.map(process => `${process.name} (pid ${process.pid})`).join(', ');
				options.notice(
					`${options.command} exited and left ${left.count} process${left.count === 1 ? '' : 'es'} running: ${names}`,
				);
			}
			break;
	}
	return outcome.exitCode;
}
