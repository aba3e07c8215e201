import {withoutTelemetry} from '../../core/task.ts';
import {worktreeWatch} from './worktree-watch.ts';
import {StringDecoder} from 'node:string_decoder';
import type {Readable, Writable} from 'node:stream';
import {EventType} from '../../core/events.ts';
import {addTokens, isOverBudget, UNKNOWN_TOKENS, type Tokens} from '../../core/tokens.ts';
import {formatCost, type Cost} from '../../core/cost.ts';
import {familyOf} from '../../core/family.ts';
import {shippedPriceTable} from '../../core/price-table.ts';
import type {OutputFinding} from '../agent-kind.ts';
import {claudeOutputReader} from '../claude-result.ts';
import {resumesSession} from '../../core/claude-args.ts';
import {childTreeOf} from '../agent-tree.ts';
import {endTree, type StopTarget, type TreeEnd} from '../stop.ts';
import {followTranscripts, type TranscriptFollow} from '../transcript-follow.ts';
import {previousThreadUsage} from '../wrapper-queries.ts';
import type {WrapperOptions} from './options.ts';
import {foldSpoolQuietly, watchLedger} from './hook-watch.ts';
import type {OutputKeeper} from './output-file.ts';
import {outputTail} from './output-tail.ts';
import type {TaskLog} from './record.ts';

/** Reads one line of the child's output into findings. */
type OutputReader = (line: string) => OutputFinding[];

/**
 * How to read this agent's output. The Codex reader (and zod with it) loads only for Codex runs,
 * and is loaded before the spawn: the output listeners must be attached in the same tick as the
 * spawn, or early output could be missed.
 */
export async function outputReaderFor(
	options: Pick<WrapperOptions, 'agent' | 'ledger' | 'args' | 'argv'>,
): Promise<OutputReader> {
	// Every non-Codex run is read for Claude's output: a launcher script's name says nothing of what it runs.
	// The command as given decides whether the session is older than the run (a held run's own resume is not).
	if (options.agent !== 'codex')
		return claudeOutputReader({isResumedSession: resumesSession(options.argv?.slice(1) ?? options.args)});
	const {createOutputReader} = await import('../agent-output.ts');
	return createOutputReader({agent: 'codex', previousThreadUsage: threadId => previousThreadUsage(options.ledger, threadId)});
}

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

/** Passes one output stream on unchanged and reads it line by line. */
function readStream(
	stream: Readable | null,
	out: Writable,
	name: string,
	read: OutputReader,
	onFinding: (finding: OutputFinding, stream: string, line: number) => void,
	keep: OutputKeeper | null,
): {end(): void} {
	let lineNumber = 0;
	const splitter = lineSplitter(line => {
		lineNumber += 1;
		for (const finding of read(line)) onFinding(finding, name, lineNumber);
	});
	if (!stream) return splitter;
	// pipe() keeps backpressure: a slow terminal slows the child, and the bytes arrive unchanged.
	stream.pipe(out, {end: false});
	stream.on('data', (chunk: Buffer) => {
		keep?.write(chunk);
		splitter.push(chunk);
	});
	return splitter;
}

/** The wrapper's watch over a running child; `finish` once the child has exited. */
export type Attachment = {
	/** Stops the heartbeats, reads the last partial lines, waits for a budget stop and the log file. */
	finish(): Promise<{
		readonly tokens: Tokens;
		readonly overBudget: boolean;
		/** Which budget the tree crossed, as the stop's reason says it (`over budget: ...`). */
		readonly budgetReason: string | null;
		readonly budgetStop: TreeEnd | null;
		/** The end of stdout, kept as the task's report (null when stdout went straight to the terminal). */
		readonly kept: {readonly text: string; readonly bytes: number; readonly isCut: boolean} | null;
	}>;
};

/** The child as the wrapper watches it: its output streams (null when they go straight to the terminal) and its group. */
export type Watched = {
	readonly stdout: Readable | null;
	readonly stderr: Readable | null;
	readonly target: StopTarget;
	readonly isPiped: boolean;
	/** Where the output goes instead of the terminal: `--log`, opened before the spawn. */
	readonly sink: Writable | null;
	/** The bounded copy of the output kept for the board's log view, when there is one. */
	readonly output: OutputKeeper | null;
};

/** The larger of two known totals: the task's row (output and hooks) or the output alone (if a write failed). */
function larger(a: Tokens, b: Tokens): Tokens {
	return (a.total ?? -1) >= (b.total ?? -1) ? a : b;
}

/**
 * Attaches to a running child: heartbeats while it lives; its output passed on unchanged (to the
 * terminal or `--log`), kept in its bounded output file, and read for progress, token and agent
 * events, unreadable lines kept as rejects; and, once its known token total passes the budget, a
 * stop of its group. The total is the task's: what the output reported plus what the agent's own
 * hooks wrote onto this task (a wrapped Claude reports its tokens only through its hooks), watched
 * as the ledger changes.
 */
export function attach(options: WrapperOptions, log: TaskLog, child: Watched, read: OutputReader): Attachment {
	const {ledger, budget} = options;
	const budgetUsd = options.budgetUsd ?? null;
	let tokens: Tokens = UNKNOWN_TOKENS;
	let budgetStop: Promise<TreeEnd> | null = null;
	let budgetReason: string | null = null;
	let isCostUnknownSaid = false;
	/** The run's tree now: its own task and every helper under it (docs/tree-and-cost.md), tokens and cost. */
	const treeSpend = (): {tokens: Tokens; cost: Cost | null} => {
		try {
			const own = ledger.reader.task(log.taskId);
			if (!own) return {tokens, cost: null};
			// Telemetry moves no task's status: what only the telemetry told is not counted here (docs/otel.md).
			const facts = familyOf([own, ...ledger.reader.helpersOf(log.taskId)].map(withoutTelemetry), {
				now: Date.now(),
				prices: options.prices ?? shippedPriceTable(),
			}).get(own.id);
			return {tokens: larger(facts?.treeTokens ?? own.tokens, tokens), cost: facts?.treeCost ?? null};
		} catch {
			return {tokens, cost: null};
		}
	};
	/** The session's earlier runs, when the budget covers the session and the run resumed one (its first read says what they spent). */
	const sessionBefore = (): {tokens: number; costUsd: number | null} => {
		if (options.budgetCovers !== 'session') return {tokens: 0, costUsd: 0};
		try {
			const before = ledger.reader.task(log.taskId)?.sessionBefore ?? null;
			return {tokens: (before?.input ?? 0) + (before?.output ?? 0), costUsd: before === null ? 0 : before.costUsd};
		} catch {
			return {tokens: 0, costUsd: 0};
		}
	};
	const taskTokens = (): Tokens => treeSpend().tokens;
	// The run's own transcripts (a wrapped Claude's), watched: its tokens land as each answer is written.
	let transcripts: TranscriptFollow | null = null;
	/** The task's tokens now: what its transcripts hold read first, so a budget never decides on a stale count. */
	const freshTokens = (): Tokens => {
		try {
			transcripts?.catchUp();
		} catch {
			// A busy ledger: the count as it stands.
		}
		return taskTokens();
	};
	/** Why the tree is over a budget (tokens, or money with --budget-usd), or null. */
	const crossing = (): {readonly reason: string; readonly isMoney: boolean} | null => {
		const run = freshTokens();
		const earlier = sessionBefore();
		const total = earlier.tokens === 0 ? run : addTokens(run, {input: earlier.tokens, output: 0});
		const scope = earlier.tokens === 0 ? '' : ' (the session, its earlier runs included)';
		if (isOverBudget(total, budget)) return {reason: `${total.total} tokens > budget ${budget}${scope}`, isMoney: false};
		if (budgetUsd === null) return null;
		const spent = treeSpend().cost;
		const cost =
			spent === null || spent.amount === null || earlier.costUsd === 0
				? spent
				: {...spent, amount: earlier.costUsd === null ? null : spent.amount + earlier.costUsd};
		if (cost === null || cost.amount === null) {
			// Unknown is never over (as unknown tokens): said once, so a person knows the money budget cannot act.
			if (!isCostUnknownSaid && (total.total ?? 0) > 0) {
				isCostUnknownSaid = true;
				const models = cost?.unpriced?.length ? ` (${cost.unpriced.join(', ')} not in the price table)` : '';
				options.notice(`task ${log.taskId}: its cost is unknown${models}; --budget-usd cannot stop it`);
			}
			return null;
		}
		if (cost.amount <= budgetUsd) return null;
		return {reason: `${formatCost(cost)} > budget ${formatCost({...cost, amount: budgetUsd})}`, isMoney: true};
	};
	const stopIfOverBudget = (): void => {
		if (budgetStop) return;
		const over = crossing();
		if (over === null) return;
		// `--on-budget ask`: the hold hook pauses the next tool call and asks (tokens); the run is not killed.
		// Its question is about tokens, so a money budget crossed stops the run (docs/tree-and-cost.md).
		if (options.hold?.onBudget === 'ask' && !over.isMoney) return;
		options.notice(`task ${log.taskId} is over its budget (${over.reason}, its helpers included): stopping it`);
		budgetReason = over.reason;
		budgetStop = endTree(childTreeOf(child.target, log.taskId), options.graceMs);
	};
	// The run's own transcripts and its helpers' (a helper's task appears once it starts): a budget counts the tree.
	const treeIds = (): string[] => {
		try {
			return [log.taskId, ...ledger.reader.helpersOf(log.taskId).map(task => task.id)];
		} catch {
			return [log.taskId];
		}
	};
	transcripts = followTranscripts(ledger, {taskIds: treeIds, onRecorded: stopIfOverBudget});
	const watch = watchLedger(ledger, stopIfOverBudget);
	// The child's last output is the agent's own sign of life; the heartbeat itself proves only that it lives.
	let outputAt: number | null = null;
	const beat = (): void => log.append(EventType.heartbeat, outputAt === null ? {} : {outputAt});
	const worktree = worktreeWatch(options, log);
	const heartbeat = setInterval(() => {
		beat();
		worktree.measure();
		watch.look();
	}, options.heartbeatMs);
	const onOutput = (): void => {
		const now = Date.now();
		const wasQuiet = outputAt === null || now - outputAt > options.heartbeatMs;
		outputAt = now;
		// Output after a quiet spell is said at once, so a task shown stalled is active again now, not at the next beat.
		if (wasQuiet) beat();
	};
	child.stdout?.on('data', onOutput);
	child.stderr?.on('data', onOutput);
	const onFinding = (finding: OutputFinding, stream: string, lineNumber: number): void => {
		if (finding.kind === 'reject') {
			try {
				ledger.writer.reject({origin: `run:${log.taskId}:${stream}`, line: lineNumber, reason: finding.reason, raw: finding.raw});
			} catch {
				ledger.writer.bump('wrapper.rejects_dropped');
			}
			return;
		}
		if (finding.kind === 'event') return log.write(finding.event);
		log.append(EventType.tokensReported, finding.data);
		tokens = addTokens(tokens, finding);
		stopIfOverBudget();
	};
	const {sink} = child;
	// A log that fails later (a full disk) must not crash the wrapper while its child runs: said once.
	sink?.once('error', error =>
		options.notice(`the log ${options.logFile ?? ''} failed (${error.message}); output is no longer kept there`),
	);
	const splitters = child.isPiped
		? [
				readStream(child.stdout, sink ?? options.stdout ?? process.stdout, 'stdout', read, onFinding, child.output),
				readStream(child.stderr, sink ?? options.stderr ?? process.stderr, 'stderr', read, onFinding, child.output),
			]
		: [];
	const tail = child.isPiped && child.stdout ? outputTail() : null;
	child.stdout?.on('data', (chunk: Buffer) => tail?.push(chunk));
	return {
		async finish() {
			clearInterval(heartbeat);
			// What the run leaves on its branch, recorded before its end.
			worktree.measure();
			for (const splitter of splitters) splitter.end();
			// The child has exited: a total that passes the budget now stops nothing (it finished on its own).
			watch.close();
			foldSpoolQuietly(ledger);
			// The last answers its transcripts hold count on the run's total.
			const finalTokens = freshTokens();
			transcripts?.close();
			const ended = budgetStop ? await budgetStop : null;
			if (sink) await new Promise(done => sink.end(done));
			return {
				tokens: larger(taskTokens(), finalTokens),
				overBudget: budgetStop !== null,
				budgetReason,
				budgetStop: ended,
				kept: tail ? tail.result() : null,
			};
		},
	};
}
