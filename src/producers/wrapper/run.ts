import {randomBytes} from 'node:crypto';
import {wrapperOutcome} from '../../core/wrapper-outcome.ts';
import type {SlotLease} from '../admission.ts';
import {latestStopRequest} from '../wrapper-queries.ts';
import {admit} from './admit.ts';
import {attach, outputReaderFor} from './attach.ts';
import {titleOf, type WrapperOptions} from './options.ts';
import {recordOutcome, recordRegistered, recordSpawnFailure, recordStarted, recordStoppedBeforeSpawn, taskLog} from './record.ts';
import {relaySignals, type SignalRelay} from './signals.ts';
import {openLogFile} from './log-file.ts';
import {isOutputPiped, spawnAgent, spawnError} from './spawn.ts';

function newTaskId(): string {
	return `w-${randomBytes(5).toString('hex')}`;
}

/**
 * Runs one command under the wrapper, in PRODUCT.md §4.1 order: admission slot → `registered` row
 * → signal forwarding → spawn in its own process group → `running` with PID, process group and
 * start time → heartbeats and output parsing → exit code or signal recorded → slot released.
 * Returns the wrapper's exit code.
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
async function runAdmitted(options: WrapperOptions, lease: SlotLease | null, relay: SignalRelay): Promise<number> {
	const log = taskLog(options, newTaskId());
	recordRegistered(options, log, lease?.slot ?? null);
	lease?.label({taskId: log.taskId, title: titleOf(options)});
	const read = await outputReaderFor(options);
	const early = relay.received();
	if (early) return recordStoppedBeforeSpawn(log, early);
	const logFile = options.logFile === null ? null : openLogFile(options.logFile);
	if (logFile !== null && 'error' in logFile) return recordSpawnFailure(options, log, logFile.error);
	const sink = logFile?.sink ?? null;
	const isPiped = isOutputPiped(options);
	const child = spawnAgent(options, log.taskId, isPiped);
	if (child.pid === undefined) {
		sink?.destroy();
		return recordSpawnFailure(options, log, await spawnError(child));
	}
	log.markSpawned();
	// From the spawn to the listeners, all in this tick: no early output is missed.
	const target = recordStarted(log, child.pid);
	relay.setTarget(target);
	const attachment = attach(options, log, {stdout: child.stdout, stderr: child.stderr, target, isPiped, sink}, read);
	const result = await child;
	const {tokens, overBudget} = await attachment.finish();
	const received = relay.received();
	const outcome = wrapperOutcome({
		spawnError: null,
		exitCode: result.exitCode ?? null,
		signal: result.signal ?? null,
		receivedSignal: received === 'SIGINT' ? null : received,
		stopRequested: latestStopRequest(options.ledger, log.taskId),
		overBudget,
	});
	return recordOutcome(options, log, outcome, tokens);
}
