import {acceptanceLines} from '../../core/contract/model.ts';
import {randomBytes} from 'node:crypto';
import {join} from 'node:path';
import type {Writable} from 'node:stream';
import {eventBody, EventType, type EventDataOf, type EventTypeName} from '../../core/events.ts';
import {decideRound, MAX_ROUNDS, renderFixes, REVIEW_EXIT, type RoundVerdict} from '../../core/review/chain.ts';
import {filesOutsideScope, hasScopeGlobs, scopeGlobsOf} from '../../core/contract/scope.ts';
import {buildPacket, type Packet, type PacketInput} from '../../core/review/packet.ts';
import type {Verdict} from '../../core/review/verdict.ts';
import {isEnded} from '../../core/status.ts';
import {replaceOwnFile} from '../../ledger/agent-files.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {requirePerson} from '../person-gate.ts';
import {collectDiff, collectReport, collectTests} from './packet-sources.ts';
import {prepareRerun, reviewFolder, runRerun} from './rerun.ts';
import {readOnlyReviewer} from './read-only-reviewer.ts';
import {DEFAULT_FAILED_RUN_LIMIT, failedRunsRefusal} from './failed-runs.ts';
import {ReviewGateError, reviewSubject, type ReviewSubject} from './subject.ts';

/** What `controlroom review` was asked to do. */
export type ReviewRequest = {
	readonly ledger: Ledger;
	/** The task: id, unique prefix, or session id. */
	readonly ref: string;
	/** Shell command lines, one per reviewer; every one must approve. */
	readonly reviewers: readonly string[];
	/** `--test CMD`: run for each packet, its output in it. */
	readonly testCommand: string | null;
	/** `--report FILE`: the worker's report. */
	readonly reportFile: string | null;
	readonly home: string;
	/** Who writes the events (`cli`). */
	readonly source: string;
	/** Where the reviewers' stderr and the fix run's output go. */
	readonly output: Writable;
	readonly notice: (line: string) => void;
	readonly maxRounds?: number;
	readonly limitBytes?: number;
	/** Failed runs of the worker after which it is not run again (docs/config.md, `failedRunLimit`). */
	readonly failedRunLimit?: number;
};

/** One reviewer's verdict in a round. */
export type ReviewerOutcome = {
	readonly reviewer: number;
	readonly command: string;
	readonly taskId: string;
	readonly verdict: Verdict;
};

/** One round: its packet, the verdicts, and the worker's fix run when one followed. */
export type RoundOutcome = {
	readonly round: number;
	readonly packet: {
		readonly path: string;
		readonly bytes: number;
		readonly trimmed: Packet['trimmed'];
		readonly listed: Packet['listed'];
	};
	readonly verdicts: readonly ReviewerOutcome[];
	readonly fixRun: {readonly taskId: string; readonly status: string; readonly exitCode: number | null} | null;
};

/** How a review ended, and the exit code `controlroom review` returns for it. */
export type ReviewResult = {
	readonly reviewId: string;
	readonly taskId: string;
	readonly outcome: 'approved' | 'needs-person' | 'error';
	readonly exitCode: number;
	readonly reason: string | null;
	readonly isDisagreement: boolean;
	readonly rounds: readonly RoundOutcome[];
};

type Recorder = <T extends EventTypeName>(type: T, data: EventDataOf<T>) => void;

function recorder(request: ReviewRequest, taskId: string): Recorder {
	return (type, data) =>
		request.ledger.writer.append([{...eventBody(type, data), taskId, at: Date.now(), source: request.source}]);
}

/** Finds the task and refuses what cannot be reviewed: one line saying why. */
function reviewable(request: ReviewRequest): ReviewSubject {
	if (request.reviewers.length === 0) throw new ReviewGateError('review: give at least one --reviewer CMD');
	if (request.reviewers.some(command => command.trim() === '')) throw new ReviewGateError('--reviewer: empty command');
	const task = request.ledger.reader.resolveTask(request.ref);
	if (!task) throw new ReviewGateError(`no task '${request.ref}' in ${request.ledger.path}`);
	if (task.role === 'reviewer') throw new ReviewGateError(`${task.id} is a reviewer's run: review the task it reviewed`);
	if (!isEnded(task.status)) {
		throw new ReviewGateError(`${task.id} is ${task.status}: review it once it has ended (its diff is still changing)`);
	}
	return reviewSubject(request.ledger, task);
}

/**
 * The change against the contract's scope, for the packet: a claim's as its hand-in compared it
 * (base revision to review.commit), a run's from the diff the packet carries; null when the
 * contract names no paths.
 */
function scopeOfChange(ledger: Ledger, subject: ReviewSubject, files: readonly string[]): PacketInput['scope'] {
	const globs = subject.contract?.value ? scopeGlobsOf(subject.contract.value) : null;
	if (globs === null || !hasScopeGlobs(globs)) return null;
	const [handedIn] = ledger.reader.latestEventsOf(subject.task.id, [EventType.claimHandedIn], 1);
	const recorded = handedIn?.data.outsideScope;
	if (Array.isArray(recorded)) return {outside: recorded as {file: string; reason: string}[]};
	return {outside: filesOutsideScope(files, globs)};
}

async function reviewRound(
	request: ReviewRequest,
	subject: ReviewSubject,
	state: {readonly reviewId: string; readonly round: number; readonly maxRounds: number; runTaskId: string; fixesAsked: string[]},
	record: Recorder,
): Promise<{packet: RoundOutcome['packet']; verdicts: ReviewerOutcome[]}> {
	const {reviewId, round} = state;
	const report = collectReport(request.ledger, subject, state.runTaskId, request.reportFile);
	const tests = collectTests(subject, request.testCommand);
	const diff = collectDiff(subject.cwd, subject.baseRevision);
	const scope = scopeOfChange(
		request.ledger,
		subject,
		diff.files.map(file => file.path),
	);
	const packet = buildPacket({
		taskId: subject.task.id,
		title: subject.task.title,
		reviewId,
		round,
		maxRounds: state.maxRounds,
		brief: subject.brief,
		report,
		tests,
		diff,
		scope,
		fixesAsked: state.fixesAsked,
		acceptance: subject.contract?.value ? acceptanceLines(subject.contract.value) : [],
		...(request.limitBytes === undefined ? {} : {limitBytes: request.limitBytes}),
	});
	const path = join(reviewFolder(request.ledger, subject.task.id), `${reviewId}-round${round}.md`);
	replaceOwnFile(path, packet.text);
	record(EventType.reviewPacketBuilt, {
		reviewId,
		round,
		path,
		bytes: packet.bytes,
		trimmed: [...packet.trimmed],
		listed: [...packet.listed],
		reportFrom: report?.from ?? null,
		testsFrom: tests?.from ?? null,
		workerTaskId: state.runTaskId,
	});
	const verdicts = await Promise.all(
		request.reviewers.map(async (command, index): Promise<ReviewerOutcome> => {
			const reviewer = index + 1;
			const result = await readOnlyReviewer(subject.cwd ?? process.cwd(), cwd => ({
				ledger: request.ledger,
				command,
				packetPath: path,
				cwd,
				parentId: subject.task.id,
				title: `review ${subject.task.id} round ${round} (reviewer ${reviewer})`,
				env: {
					CONTROLROOM_REVIEW_ROUND: String(round),
					CONTROLROOM_REVIEW_ID: reviewId,
					CONTROLROOM_REVIEWED_TASK: subject.task.id,
				},
				home: request.home,
				stderr: request.output,
				notice: request.notice,
			}));
			const verdict = result.verdict;
			// Each verdict is on the ledger as soon as its reviewer ends: the board shows it at once.
			record(EventType.reviewVerdict, {
				reviewId,
				round,
				reviewer,
				command,
				reviewerTaskId: result.taskId,
				verdict: verdict.kind,
				fixes: verdict.kind === 'FIX' ? [...verdict.fixes] : [],
				reason: verdict.kind === 'INVALID' ? verdict.reason : null,
				signal: verdict.kind === 'STOPPED' ? verdict.signal : null,
				exitCode: result.exitCode,
			});
			return {reviewer, command, taskId: result.taskId, verdict};
		}),
	);
	return {packet: {path, bytes: packet.bytes, trimmed: packet.trimmed, listed: packet.listed}, verdicts};
}

/**
 * The review gate (docs/review.md): builds a packet, runs every reviewer on it through the
 * wrapper, and decides (src/core/review/chain.ts). Fixes go back to the worker once: it runs again
 * through the wrapper with them in its brief, and a second round follows. Still not approved →
 * exit 2 and an entry in the queue's reviews lane. Every step is an event on the reviewed task.
 */
export async function reviewTask(request: ReviewRequest): Promise<ReviewResult> {
	// A review whose reviewers approve says yes to the work: only a person starts one.
	requirePerson(request.ledger, {verb: 'review', target: request.ref, source: request.source});
	const subject = reviewable(request);
	const taskId = subject.task.id;
	const record = recorder(request, taskId);
	const reviewId = `r-${randomBytes(4).toString('hex')}`;
	const maxRounds = request.maxRounds ?? MAX_ROUNDS;
	const contractChanged = subject.contract?.changed ?? null;
	// Said before anything runs: the review reads the contract as it was, and nothing the worker wrote into it runs.
	if (contractChanged !== null) request.notice(`review ${reviewId}: ${contractChanged}`);
	record(EventType.reviewStarted, {
		reviewId,
		reviewers: [...request.reviewers],
		maxRounds,
		baseRevision: subject.baseRevision,
		contractChanged,
	});
	const rounds: RoundOutcome[] = [];
	const state = {reviewId, round: 1, maxRounds, runTaskId: taskId, fixesAsked: [] as string[]};
	const conclude = (outcome: ReviewResult['outcome'], reason: string | null, cause: string | null, isDisagreement: boolean) => {
		const exitCode =
			outcome === 'approved' ? REVIEW_EXIT.approved : outcome === 'needs-person' ? REVIEW_EXIT.needsPerson : REVIEW_EXIT.error;
		record(EventType.reviewConcluded, {reviewId, outcome, rounds: rounds.length, cause, reason, isDisagreement, exitCode});
		return {reviewId, taskId, outcome, exitCode, reason, isDisagreement, rounds};
	};
	try {
		for (;;) {
			const {packet, verdicts} = await reviewRound(request, subject, state, record);
			const decision = decideRound(
				state.round,
				verdicts.map((entry): RoundVerdict => ({reviewer: entry.reviewer, verdict: entry.verdict})),
				maxRounds,
			);
			const round: RoundOutcome = {round: state.round, packet, verdicts, fixRun: null};
			rounds.push(round);
			if (decision.kind === 'approved') return conclude('approved', null, null, false);
			if (decision.kind === 'needs-person')
				return conclude('needs-person', decision.reason, decision.cause, decision.isDisagreement);
			if (subject.worker === null) {
				const reason = `${decision.fixes.length} fixes asked for in round ${state.round}, but ${subject.notRerunnable ?? 'the worker cannot be run again'}`;
				return conclude('needs-person', reason, 'fixes-left', decision.isDisagreement);
			}
			// A worker whose runs failed failedRunLimit times is not run a third time: a person decides.
			const failed = failedRunsRefusal(
				request.ledger,
				subject.worker.rootId,
				request.failedRunLimit ?? DEFAULT_FAILED_RUN_LIMIT,
				request.source,
				Date.now(),
			);
			if (failed !== null) return conclude('needs-person', failed, 'failed-runs', decision.isDisagreement);
			const fixesText = renderFixes(decision.fixes, {kind: 'review', round: state.round});
			const rerun = prepareRerun(request.ledger, subject.worker, fixesText, `fixes from review round ${state.round}`);
			request.notice(
				`review ${reviewId}: ${decision.fixes.length} fixes go back to the worker; it runs again as ${rerun.taskId}`,
			);
			await runRerun(request.ledger, rerun, {home: request.home, output: request.output, notice: request.notice});
			const worker = request.ledger.reader.task(rerun.taskId);
			const status = worker?.status ?? 'unknown';
			const exitCode = worker?.exitCode ?? null;
			rounds[rounds.length - 1] = {...round, fixRun: {taskId: rerun.taskId, status, exitCode}};
			record(EventType.reviewFixRound, {
				reviewId,
				round: state.round,
				fixes: [...decision.fixes],
				workerTaskId: rerun.taskId,
				briefPath: rerun.briefPath,
				workerStatus: status,
				workerExit: exitCode,
			});
			if (status !== 'done') {
				const reason = `the worker's fix run ${rerun.taskId} ended ${status}${exitCode === null ? '' : ` (exit ${exitCode})`}: not reviewed again`;
				return conclude('needs-person', reason, 'fix-run-failed', decision.isDisagreement);
			}
			state.round += 1;
			state.runTaskId = rerun.taskId;
			state.fixesAsked = [...decision.fixes];
		}
	} catch (error) {
		// The review is on the ledger as started: it must say how it ended, even when that is an error.
		conclude('error', error instanceof Error ? error.message : String(error), 'error', false);
		throw error;
	}
}
