import {randomBytes} from 'node:crypto';
import {createWriteStream} from 'node:fs';
import {StringDecoder} from 'node:string_decoder';
import type {Readable, Writable} from 'node:stream';
import {execa} from 'execa';
import {EventType, eventBody, type EventBody, type EventDataOf, type EventTypeName} from '../core/events.ts';
import {addTokens, isOverBudget, UNKNOWN_TOKENS, type Tokens} from '../core/tokens.ts';
import {NO_SLOT_EXIT, signalExitCode, wrapperOutcome, type WrapperOutcome} from '../core/wrapper-outcome.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {acquireSlot, checkoutRoot, NoSlotError, type SlotLease} from './admission.ts';
import {readProgressLine, type AgentKind, type OutputFinding} from './agent-kind.ts';
import {processStartTime} from './proc-table.ts';
import {terminate, type StopTarget} from './stop.ts';
import {latestStopRequest, previousThreadUsage} from './wrapper-queries.ts';

/** Default token budget of a wrapped run (PRODUCT.md §4.1). */
export const DEFAULT_BUDGET = 40_000_000;
/** Default heartbeat interval while the child lives. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** Time the child gets after a forwarded SIGTERM/SIGHUP/SIGQUIT (or a budget stop) before SIGKILL. */
export const DEFAULT_WRAPPER_GRACE_MS = 10_000;

/** Signals the wrapper forwards to the child's process group. */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
type Forwarded = (typeof FORWARDED)[number];
/** Signals that mean "end this run": forwarded, then escalated to SIGKILL after the grace period. SIGINT is only forwarded (an interactive agent uses it to interrupt a turn). */
const TERMINATING = new Set<Forwarded>(['SIGTERM', 'SIGHUP', 'SIGQUIT']);

export type WrapperOptions = {
	readonly ledger: Ledger;
	readonly command: string;
	readonly args: readonly string[];
	readonly title: string | null;
	readonly steps: number | null;
	readonly budget: number;
	readonly agent: AgentKind;
	readonly role: 'worker' | 'reviewer';
	readonly cwd: string;
	readonly wait: boolean;
	readonly slots: number;
	readonly home: string;
	readonly heartbeatMs: number;
	readonly graceMs: number;
	/** Child output goes here instead of the terminal. */
	readonly logFile: string | null;
	/** The wrapper's own one-line notices (never the child's output). */
	readonly notice: (line: string) => void;
};

/** Splits a byte stream into lines (UTF-8 safe across chunk boundaries). */
function lineSplitter(onLine: (line: string) => void): {push(chunk: Buffer): void; end(): void} {
	const decoder = new StringDecoder('utf8');
	let pending = '';
	return {
		push(chunk) {
			pending += decoder.write(chunk);
			let newline = pending.indexOf('\n');
			while (newline >= 0) {
				onLine(pending.slice(0, newline).replace(/\r$/, ''));
				pending = pending.slice(newline + 1);
				newline = pending.indexOf('\n');
			}
			// A line longer than the parse limit is passed through but never parsed.
			if (pending.length > 2 * 1024 * 1024) pending = '';
		},
		end() {
			pending += decoder.end();
			if (pending.length > 0) onLine(pending);
			pending = '';
		},
	};
}

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
	const abort = new AbortController();
	let received: Forwarded | null = null;
	let target: StopTarget | null = null;
	let escalation: NodeJS.Timeout | null = null;
	const onSignal = (signal: Forwarded): void => {
		// A terminating signal is remembered over an earlier SIGINT.
		if (TERMINATING.has(signal) || received === null) received = signal;
		const victim = target;
		if (!victim) {
			// Still waiting for a slot (or about to spawn): end the run before anything starts.
			abort.abort();
			return;
		}
		forward(victim, signal);
		if (TERMINATING.has(signal) && !escalation) escalation = setTimeout(() => forward(victim, 'SIGKILL'), options.graceMs);
	};
	const handlers = FORWARDED.map(signal => {
		const handler = (): void => onSignal(signal);
		process.on(signal, handler);
		return () => process.off(signal, handler);
	});
	let lease: SlotLease | null = null;
	try {
		if (options.role === 'worker') {
			const checkout = checkoutRoot(options.cwd);
			try {
				lease = await acquireSlot({
					checkout,
					home: options.home,
					slots: options.slots,
					wait: options.wait,
					abort: abort.signal,
					onWait: holders =>
						options.notice(
							holders === null
								? `waiting for a slot in ${checkout} (queued behind another waiting run)`
								: `waiting for a slot in ${checkout} (held by ${holders.map(h => h.taskId ?? `pid ${h.pid ?? 'unknown'}`).join(', ')})`,
						),
				});
			} catch (error) {
				if (error instanceof NoSlotError) {
					options.notice(error.message);
					return NO_SLOT_EXIT;
				}
				if (abort.signal.aborted && received) return signalExitCode(received);
				throw error;
			}
		}
		return await runRegistered(options, lease, {
			received: () => received,
			setTarget: value => {
				target = value;
				if (received) onSignal(received);
			},
		});
	} finally {
		if (escalation) clearTimeout(escalation);
		for (const off of handlers) off();
		lease?.release();
	}
}

function forward(target: StopTarget, signal: NodeJS.Signals): void {
	try {
		process.kill(-(target.pgid ?? target.pid), signal);
	} catch {
		// The group is already gone: the exit is on its way.
	}
}

/** Records one event of the run's task, typed by its event type. */
type Append = <T extends EventTypeName>(type: T, data: EventDataOf<T>) => void;

type SignalState = {received(): Forwarded | null; setTarget(target: StopTarget): void};

async function runRegistered(options: WrapperOptions, lease: SlotLease | null, signals: SignalState): Promise<number> {
	const {ledger} = options;
	const taskId = newTaskId();
	const commandLine = [options.command, ...options.args].join(' ');
	let isSpawned = false;
	let hasWarned = false;
	const append: Append = (type, data) => write(eventBody(type, data));
	const write = (body: EventBody): void => {
		try {
			ledger.writer.append([{...body, taskId, at: Date.now(), source: 'wrapper'}]);
		} catch (error) {
			// Before the spawn a failed write stops the run (nothing runs unrecorded); after it, the
			// agent is never taken down by its instrumentation: say so once and carry on.
			if (!isSpawned) throw error;
			if (!hasWarned) options.notice(`cannot write to the ledger (${(error as Error).message}); the run goes on`);
			hasWarned = true;
		}
	};
	append(EventType.registered, {
		title: options.title ?? commandLine.slice(0, 80),
		source: 'wrapper',
		role: options.role,
		cwd: options.cwd,
		budget: options.budget,
		steps: options.steps,
		command: commandLine,
		agent: options.agent,
		wrapperPid: process.pid,
		wrapperStartTime: processStartTime(process.pid),
		slot: lease?.slot ?? null,
	});
	lease?.label({taskId, title: options.title ?? commandLine.slice(0, 80)});
	// The Codex reader (and zod with it) loads only for Codex runs, and before the spawn: the output
	// listeners must be attached in the same tick as the spawn, or early output could be missed.
	const read =
		options.agent === 'codex'
			? (await import('./agent-output.ts')).createOutputReader({
					agent: 'codex',
					previousThreadUsage: threadId => previousThreadUsage(ledger, threadId),
				})
			: readProgressLine;
	const early = signals.received();
	if (early) {
		append(EventType.stopped, {signal: early, reason: `wrapper received ${early} before the spawn`, exitCode: null});
		return signalExitCode(early);
	}
	const isPiped = options.agent !== 'claude' || options.logFile !== null;
	const subprocess = execa(options.command, [...options.args], {
		cwd: options.cwd,
		stdin: 'inherit',
		stdout: isPiped ? 'pipe' : 'inherit',
		stderr: isPiped ? 'pipe' : 'inherit',
		// Its own process group (node's detached = setsid), so a stop can signal the whole group.
		detached: true,
		cleanup: false,
		reject: false,
		buffer: false,
		env: {CONTROLROOM_TASK_ID: taskId},
	});
	const pid = subprocess.pid;
	isSpawned = pid !== undefined;
	if (pid === undefined) {
		const result = await subprocess;
		const error = result.originalMessage || result.shortMessage || 'spawn failed';
		return record(options, append, wrapperOutcome({...noEnding, spawnError: error}));
	}
	const startTime = processStartTime(pid);
	append(EventType.started, {
		pid,
		pgid: pid,
		startTime,
		wrapperPid: process.pid,
		wrapperStartTime: processStartTime(process.pid),
	});
	const target: StopTarget = {pid, pgid: pid, startTime};
	signals.setTarget(target);

	const heartbeat = setInterval(() => append(EventType.heartbeat, {}), options.heartbeatMs);
	let tokens: Tokens = UNKNOWN_TOKENS;
	let budgetStop: Promise<unknown> | null = null;
	const onFinding = (finding: OutputFinding, stream: string, lineNumber: number): void => {
		if (finding.kind === 'reject') {
			try {
				ledger.writer.reject({origin: `run:${taskId}:${stream}`, line: lineNumber, reason: finding.reason, raw: finding.raw});
			} catch {
				ledger.writer.bump('wrapper.rejects_dropped');
			}
			return;
		}
		if (finding.kind === 'event') return write(finding.event);
		append(EventType.tokensReported, finding.data);
		tokens = addTokens(tokens, finding);
		if (!budgetStop && isOverBudget(tokens, options.budget)) {
			options.notice(`task ${taskId} is over its budget (${tokens.total} > ${options.budget} tokens): stopping it`);
			budgetStop = terminate(target, options.graceMs);
		}
	};
	const sink: Writable | null = options.logFile ? createWriteStream(options.logFile, {flags: 'a'}) : null;
	const splitters = isPiped
		? [
				attach(subprocess.stdout, sink ?? process.stdout, 'stdout', read, onFinding),
				attach(subprocess.stderr, sink ?? process.stderr, 'stderr', read, onFinding),
			]
		: [];
	const result = await subprocess;
	clearInterval(heartbeat);
	for (const splitter of splitters) splitter.end();
	if (budgetStop) await budgetStop;
	if (sink) await new Promise(done => sink.end(done));
	const outcome = wrapperOutcome({
		spawnError: null,
		exitCode: result.exitCode ?? null,
		signal: result.signal ?? null,
		receivedSignal: signals.received() === 'SIGINT' ? null : signals.received(),
		stopRequested: latestStopRequest(ledger, taskId),
		overBudget: budgetStop !== null,
	});
	return record(options, append, outcome, tokens);
}

const noEnding = {spawnError: null, exitCode: null, signal: null, receivedSignal: null, stopRequested: null, overBudget: false};

function attach(
	stream: Readable | null,
	out: Writable,
	name: string,
	read: (line: string) => OutputFinding[],
	onFinding: (finding: OutputFinding, stream: string, line: number) => void,
): {end(): void} {
	let lineNumber = 0;
	const splitter = lineSplitter(line => {
		lineNumber += 1;
		for (const finding of read(line)) onFinding(finding, name, lineNumber);
	});
	if (!stream) return splitter;
	// pipe() keeps backpressure: a slow terminal slows the child, and the bytes arrive unchanged.
	stream.pipe(out, {end: false});
	stream.on('data', (chunk: Buffer) => splitter.push(chunk));
	return splitter;
}

function record(options: WrapperOptions, append: Append, outcome: WrapperOutcome, tokens: Tokens = UNKNOWN_TOKENS): number {
	switch (outcome.kind) {
		case 'failed-to-spawn':
			append(EventType.failed, {error: outcome.error, exitCode: outcome.exitCode});
			options.notice(`cannot start ${options.command}: ${outcome.error}`);
			break;
		case 'over-budget':
			append(EventType.stopped, {
				signal: outcome.signal,
				reason: `over budget: ${tokens.total} tokens > budget ${options.budget}`,
				exitCode: null,
				wrapperExit: outcome.exitCode,
			});
			break;
		case 'stopped':
			append(EventType.stopped, {signal: outcome.signal, reason: outcome.reason, exitCode: null, wrapperExit: outcome.exitCode});
			break;
		case 'exited':
			append(EventType.exited, {exitCode: outcome.exitCode});
			break;
	}
	return outcome.exitCode;
}
