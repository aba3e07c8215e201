import {randomBytes} from 'node:crypto';
import {Writable} from 'node:stream';
import {parseVerdict, type Verdict} from '../../core/review/verdict.ts';
import {signalOfShellStatus} from '../../core/wrapper-outcome.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {DEFAULT_BUDGET, DEFAULT_HEARTBEAT_MS, DEFAULT_WRAPPER_GRACE_MS} from '../../producers/wrapper/options.ts';
import {runWrapped} from '../../producers/wrapper/run.ts';
import {ReviewGateError} from './subject.ts';

/** A reviewer's answer longer than this is not read further (it would be INVALID anyway). */
const ANSWER_LIMIT = 1024 * 1024;

/** One reviewer command to run on one packet. */
export type ReviewerRun = {
	readonly ledger: Ledger;
	/** A shell command line (`sh -c`): `claude -p`, `codex exec -`, a script, ... */
	readonly command: string;
	/** The packet file: the reviewer's stdin, and named in CONTROLROOM_REVIEW_PACKET. */
	readonly packetPath: string;
	readonly cwd: string;
	/** The task under review: the reviewer's task records it as its parent. */
	readonly parentId: string | null;
	readonly title: string;
	/** More environment for the reviewer (CONTROLROOM_REVIEW_ROUND, ...). */
	readonly env?: Readonly<Record<string, string>>;
	/** controlroom's home (the admission lock root; a reviewer takes no slot, but the wrapper wants it). */
	readonly home: string;
	/** Where the reviewer's stderr goes (default: this process's stderr). */
	readonly stderr?: Writable;
	readonly notice?: (line: string) => void;
	readonly graceMs?: number;
};

/** What one reviewer came to. */
export type ReviewerResult = {
	/** The reviewer's own task (role `reviewer`), on the board while it runs. */
	readonly taskId: string;
	readonly verdict: Verdict;
	/** The wrapper's exit code for the reviewer. */
	readonly exitCode: number;
	/** The reviewer's stdout, as read. */
	readonly answer: string;
};

/** Collects a stream into a string, up to a limit. */
function collector(limit: number): {readonly stream: Writable; text(): string} {
	const chunks: Buffer[] = [];
	let size = 0;
	const stream = new Writable({
		write(chunk: Buffer, _encoding, done) {
			if (size < limit) chunks.push(chunk.subarray(0, limit - size));
			size += chunk.length;
			done();
		},
	});
	return {stream, text: () => Buffer.concat(chunks).toString('utf8')};
}

/**
 * Runs one reviewer through the wrapper (role `reviewer`: no admission slot, a task on the board)
 * with the packet on its stdin and its path in CONTROLROOM_REVIEW_PACKET, and reads its verdict:
 * ended by a signal (the shell's 128+N too) → STOPPED; exited non-zero → INVALID (naming the
 * code); exited 0 → its stdout
 * read by the strict grammar (`parseVerdict`). Reusable by any gate that asks a reviewer for a
 * verdict on a packet (the plan review builds on it).
 */
export async function runReviewer(run: ReviewerRun): Promise<ReviewerResult> {
	const taskId = `w-${randomBytes(5).toString('hex')}`;
	const answer = collector(ANSWER_LIMIT);
	const exitCode = await runWrapped({
		ledger: run.ledger,
		command: 'sh',
		args: ['-c', run.command],
		argv: ['sh', '-c', run.command],
		title: run.title,
		steps: null,
		budget: DEFAULT_BUDGET,
		agent: 'generic',
		role: 'reviewer',
		cwd: run.cwd,
		wait: true,
		slots: 1,
		home: run.home,
		heartbeatMs: DEFAULT_HEARTBEAT_MS,
		graceMs: run.graceMs ?? DEFAULT_WRAPPER_GRACE_MS,
		logFile: null,
		notice: run.notice ?? (() => undefined),
		taskId,
		parentId: run.parentId,
		env: {...run.env, CONTROLROOM_REVIEW_PACKET: run.packetPath},
		stdinFile: run.packetPath,
		stdout: answer.stream,
		stderr: run.stderr ?? process.stderr,
	});
	const task = run.ledger.reader.task(taskId);
	if (!task) throw new ReviewGateError(`reviewer \`${run.command}\` left no task in the ledger`);
	const text = answer.text();
	if (task.status === 'failed' && task.error !== null && task.exitCode === 127 && task.pid === null) {
		throw new ReviewGateError(`cannot start reviewer \`${run.command}\`: ${task.error}`);
	}
	if (task.status === 'stopped') return {taskId, verdict: {kind: 'STOPPED', signal: task.signal}, exitCode, answer: text};
	// The reviewer runs under `sh -c`: a command in it ended by a signal (its own, the OOM killer's,
	// a kill) leaves the shell's 128+N, and a reviewer ended by any signal gave no answer.
	const signal = signalOfShellStatus(task.exitCode);
	if (signal !== null) return {taskId, verdict: {kind: 'STOPPED', signal}, exitCode, answer: text};
	if (task.exitCode !== 0) {
		const verdict: Verdict = {kind: 'INVALID', reason: `the reviewer exited ${task.exitCode ?? 'with an unknown code'}`};
		return {taskId, verdict, exitCode, answer: text};
	}
	return {taskId, verdict: parseVerdict(text), exitCode, answer: text};
}
