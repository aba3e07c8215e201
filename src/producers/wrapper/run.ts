import {randomBytes} from 'node:crypto';
import {EventType} from '../../core/events.ts';
import {signalExitCode, wrapperOutcome} from '../../core/wrapper-outcome.ts';
import type {SlotLease} from '../admission.ts';
import {childTreeOf} from '../agent-tree.ts';
import {endTree, KILL_WAIT_MS} from '../stop.ts';
import {awaitRecordedEnd, latestStopRequest} from '../wrapper-queries.ts';
import {admit} from './admit.ts';
import {resumeArgs} from '../../core/claude-args.ts';
import {awaitHeldAnswer, CARRIED_ANSWER_ENV} from './held.ts';
import {attach, outputReaderFor} from './attach.ts';
import {childExit, leftRunning, releaseOutput} from './child-exit.ts';
import {awaitEscapedAgents} from './escaped.ts';
import {watchLedgerFile} from './ledger-watch.ts';
import {titleOf, type WrapperOptions} from './options.ts';
import {createWorktree, removeWorktree} from '../worktree.ts';
import {
	recordOutcome,
	recordRegistered,
	recordSpawnFailure,
	recordStarted,
	recordStoppedBeforeSpawn,
	taskLog,
	type TaskLog,
} from './record.ts';
import {relaySignals, type SignalRelay} from './signals.ts';
import {openLogFile} from './log-file.ts';
import {isOutputPiped, spawnAgent, spawnError, unstartable} from './spawn.ts';
import {runTrace, traceFactsOf} from '../../ledger/trace-facts.ts';
import {traceOfTask} from '../../core/otel/trace-chain.ts';
import {keepOutput, outputFileOf, prepareOutputDir, pruneOutputFiles, type OutputKeeper} from './output-file.ts';

/** A wrapped run's task id, when none is given (`w-` and ten hex digits). */
export function newTaskId(): string {
	return `w-${randomBytes(5).toString('hex')}`;
}

/** Beyond the stop's own grace and SIGKILL wait, how long the wrapper waits for the stopper to record the end. */
const STOP_RECORD_MARGIN_MS = 2000;

/**
 * Runs one command under the wrapper, in the order docs/wrapper.md gives ("`controlroom run`"):
 * admission slot → `registered` row → signal forwarding → spawn in its own process group →
 * `running` with PID, process group and start time → heartbeats and output parsing → exit code or
 * signal recorded → slot released. Returns the wrapper's exit code.
 */
export async function runWrapped(options: WrapperOptions): Promise<number> {
	// Signals are listened for from the start: one that comes while waiting for a slot ends the run.
	const relay = relaySignals(options.graceMs);
	let lease: SlotLease | null = null;
	try {
		const admission = await admit(options, relay);
		if (admission.kind === 'refused') return admission.exitCode;
		lease = admission.lease;
		return await runAdmitted(options, lease, relay);
	} finally {
		relay.dispose();
		lease?.release();
	}
}

/** Registers the task, spawns the agent, attaches to it until it exits, and records how it ended. */
async function runAdmitted(given: WrapperOptions, lease: SlotLease | null, relay: SignalRelay): Promise<number> {
	const log = taskLog(given, given.taskId ?? newTaskId());
	// The run's trace is known before it is registered: the registration records it, the agent gets it in TRACEPARENT.
	const traced: WrapperOptions = {...given, trace: given.trace ?? runTrace(given.ledger, log.taskId, given)};
	const worktree = traced.worktree ?? null;
	// A run of its own worktree: made once admitted, and the child runs (and its diff is read) there.
	if (worktree) createWorktree(worktree);
	const options: WrapperOptions = worktree ? {...traced, cwd: worktree.path} : traced;
	const isPiped = isOutputPiped(options);
	const outputPath = isPiped ? outputFileOf(options.home, log.taskId) : null;
	try {
		recordRegistered(options, log, lease?.slot ?? null, outputPath);
	} catch (error) {
		// No worktree without its task: one the ledger could not record is taken back.
		if (worktree) removeWorktree(worktree.repository, worktree.path, worktree.branch);
		throw error;
	}
	lease?.label({taskId: log.taskId, title: titleOf(options)});
	return runChildren(options, log, lease, relay, outputPath, null);
}

/** The children of one run: the first (unless it resumes), then a resume of its session after each answer. */
async function runChildren(
	options: WrapperOptions,
	log: TaskLog,
	lease: SlotLease | null,
	relay: SignalRelay,
	outputPath: string | null,
	resume: {readonly session: string; readonly carried: string | null} | null,
): Promise<number> {
	let next = resume;
	for (;;) {
		// A held headless Claude: the same task resumes its session, carrying the person's answer.
		const run: WrapperOptions =
			next === null
				? options
				: {
						...options,
						args: resumeArgs(options.args, next.session, options.hold?.isClaude ?? false),
						stdinFile: '/dev/null',
						env: {...options.env, ...(next.carried === null ? {} : {[CARRIED_ANSWER_ENV]: next.carried})},
					};
		const ran = await runChild(run, log, lease, relay, outputPath);
		if (ran.kind === 'ended') return ran.exitCode;
		next = ran;
	}
}

/**
 * `controlroom run --resume TASK`: a new wrapper for a held task whose wrapper is gone (killed, the
 * machine restarted): it takes the task's slot, waits for the answer as the first wrapper did, and
 * resumes the session as the same task (docs/headless-holds.md, "Crash safety").
 */
export async function resumeHeldTask(given: WrapperOptions & {readonly taskId: string}): Promise<number> {
	const relay = relaySignals(given.graceMs);
	let lease: SlotLease | null = null;
	try {
		const admission = await admit(given, relay);
		if (admission.kind === 'refused') return admission.exitCode;
		lease = admission.lease;
		const log = taskLog(given, given.taskId);
		// The resumed session stays in the trace its registration recorded.
		const options = {...given, trace: traceOfTask(given.taskId, id => traceFactsOf(given.ledger, id))};
		lease?.label({taskId: log.taskId, title: titleOf(options)});
		const hold = options.hold;
		if (!hold) throw new Error(`task ${options.taskId} is not a held run`);
		const next = await awaitHeldAnswer(options, hold, log, relay);
		if (next.kind === 'end') return next.exitCode;
		if (next.kind === 'none') {
			options.notice(`task ${options.taskId}: no question holds it now; nothing resumed`);
			return 1;
		}
		const outputPath = isOutputPiped(options) ? outputFileOf(options.home, log.taskId) : null;
		return await runChildren(options, log, lease, relay, outputPath, next);
	} finally {
		relay.dispose();
		lease?.release();
	}
}

/** One child of the run (the first, or a resume of a held session): spawned, attached, its end recorded or its resume said. */
async function runChild(
	options: WrapperOptions,
	log: TaskLog,
	lease: SlotLease | null,
	relay: SignalRelay,
	outputPath: string | null,
): Promise<
	| {readonly kind: 'ended'; readonly exitCode: number}
	| {readonly kind: 'resume'; readonly session: string; readonly carried: string | null}
> {
	const ended = (exitCode: number) => ({kind: 'ended' as const, exitCode});
	const isPiped = isOutputPiped(options);
	const output = isPiped ? outputKeeperFor(options, log.taskId) : null;
	const read = await outputReaderFor(options);
	const early = relay.received();
	if (early) return ended((output?.close(), recordStoppedBeforeSpawn(log, early)));
	const logFile = options.logFile === null ? null : openLogFile(options.logFile);
	if (logFile !== null && 'error' in logFile) return ended((output?.close(), recordSpawnFailure(options, log, logFile.error)));
	const sink = logFile?.sink ?? null;
	// The gate shell always starts: a command that cannot is told here, as a failed spawn.
	const cannotStart = unstartable(options.command, options.cwd, options.env?.['PATH'] ?? process.env['PATH']);
	if (cannotStart !== null) return ended((sink?.destroy(), output?.close(), recordSpawnFailure(options, log, cannotStart)));
	const gated = spawnAgent(options, log.taskId, isPiped);
	const child = gated.process;
	if (child.pid === undefined) {
		sink?.destroy();
		output?.close();
		return ended(recordSpawnFailure(options, log, await spawnError(gated)));
	}
	const childPid = child.pid;
	const exited = childExit(child);
	// Recorded before the child becomes the agent (spawn.ts): a wrapper killed from here on leaves
	// either no agent at all, or its PID on the row (docs/wrapper.md, "Recorded before exec").
	let target;
	try {
		target = recordStarted(log, childPid);
	} catch (error) {
		// Nothing runs unrecorded: the held child is ended before it ever execs.
		killQuietly(-childPid);
		await exited;
		throw error;
	}
	log.markSpawned();
	const late = relay.received();
	if (late) {
		killQuietly(-childPid);
		await exited;
		return ended((sink?.destroy(), output?.close(), recordStoppedBeforeSpawn(log, late)));
	}
	relay.setTarget(target);
	// Listeners first, then the word: the agent's first byte of output finds them in place.
	const attachment = attach(options, log, {stdout: child.stdout, stderr: child.stderr, target, isPiped, sink, output}, read);
	gated.release();
	// A ledger deleted or replaced under the run: the task is recorded again in the new file.
	const fileWatch = watchLedgerFile(options, () => {
		recordRegistered(options, log, lease?.slot ?? null, outputPath);
		recordStarted(log, childPid);
	});
	// The run ends when the child does: background processes holding its pipes do not hold the task.
	const exit = await exited;
	await releaseOutput([child.stdout, child.stderr]);
	await child;
	// A launcher that moved the agent out of its session (`setsid claude ...`) exits at once: the
	// run goes on, watched and stoppable, while the agent does.
	const escaped = await awaitEscapedAgents(options.ledger, log.taskId, target.pgid ?? target.pid, () =>
		isTerminating(relay.received()),
	);
	const {tokens, overBudget, budgetReason, budgetStop, kept} = await attachment.finish();
	output?.close();
	pruneOutputFiles(options.home, Date.now());
	if (kept && kept.bytes > 0) log.append(EventType.outputKept, kept);
	fileWatch.stop();
	const received = relay.received();
	const terminating = isTerminating(received) ? received : null;
	const stopRequest = latestStopRequest(options.ledger, log.taskId);
	if (stopRequest && !terminating && !overBudget) {
		// `controlroom stop` is ending the group: it alone knows whether SIGKILL was needed, and records it.
		const deadline = stopRequest.at + stopRequest.graceMs + KILL_WAIT_MS + STOP_RECORD_MARGIN_MS;
		const recorded = await awaitRecordedEnd(options.ledger, log.taskId, deadline);
		if (recorded) return ended(signalExitCode(recorded.signal ?? exit.signal ?? stopRequest.signal));
	}
	// A signal the wrapper received was forwarded to the child's group: the whole tree's end is this run's end.
	const groupEnd = terminating
		? await endTree(childTreeOf(target, log.taskId), groupGraceLeft(relay, options.graceMs))
		: budgetStop;
	const outcome = wrapperOutcome({
		spawnError: null,
		exitCode: exit.exitCode,
		signal: groupEnd?.escalated ? 'SIGKILL' : exit.signal,
		receivedSignal: terminating,
		stopRequested: stopRequest?.signal ?? null,
		overBudget,
	});
	// A headless Claude that deferred a call exits 0: it waits for the person, then resumes or ends.
	if (options.hold?.isHeadless && outcome.kind === 'exited' && outcome.exitCode === 0 && escaped.length === 0) {
		const next = await awaitHeldAnswer(options, options.hold, log, relay);
		if (next.kind === 'resume') return next;
		if (next.kind === 'end') return ended(next.exitCode);
	}
	return ended(
		recordOutcome(
			options,
			log,
			outcome,
			tokens,
			terminating || overBudget ? undefined : leftRunning(target.pgid ?? target.pid, log.taskId),
			escaped,
			budgetReason,
		),
	);
}

/** Signals a process group or process and ignores that it is gone already. */
function killQuietly(pid: number): void {
	try {
		process.kill(pid, 'SIGKILL');
	} catch {
		// Gone already.
	}
}

/** A signal that ends the run (SIGINT only interrupts an interactive agent's turn). */
function isTerminating(signal: string | null): signal is string {
	return signal !== null && signal !== 'SIGINT';
}

/** What is left of the grace a forwarded terminating signal gave the group. */
function groupGraceLeft(relay: SignalRelay, graceMs: number): number {
	const at = relay.receivedAt();
	return at === null ? graceMs : graceMs - (Date.now() - at);
}

/**
 * The bounded copy of a piped run's output the board's log view reads, under
 * `$CONTROLROOM_HOME/output/`; none (and one notice) when that folder cannot be made.
 */
function outputKeeperFor(options: WrapperOptions, taskId: string): OutputKeeper | null {
	try {
		prepareOutputDir(options.home);
	} catch (error) {
		options.notice(`cannot keep the run's output under ${options.home} (${(error as Error).message}); the run goes on`);
		return null;
	}
	return keepOutput(outputFileOf(options.home, taskId), options.notice);
}
