import {resolve} from 'node:path';
import {REVIEW_EXIT} from '../../core/review/chain.ts';
import {verdictLabel} from '../../core/review/verdict.ts';
import {reviewTask, type ReviewResult} from '../../gates/review/gate.ts';
import {controlroomHome} from '../../ledger/paths.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {gateCall} from '../gate-call.ts';
import {commandSettings} from '../config-file.ts';

export const help: CommandHelp = {
	synopsis: ['review TASK --reviewer CMD [--reviewer CMD2] [--test CMD] [--report FILE]'],
	description: `Reviews an ended task: builds a packet (the task's own diff, at most 200 lines of test output,
the worker's report, the brief's path; at most 256 KB), runs each reviewer through the wrapper
(role reviewer) with the packet on stdin and in CONTROLROOM_REVIEW_PACKET, and reads each answer
strictly: exactly APPROVE, or a numbered list of fixes; anything else is INVALID; a reviewer ended
by a signal is STOPPED. Fixes go back to the worker once (it runs again through the wrapper with
them in its brief), then a second round; every reviewer must approve. See docs/review.md.`,
	options: [
		['--reviewer CMD', 'a shell command line that reads the packet and answers; repeat for a second reviewer'],
		[
			'--test CMD',
			"run CMD in the task's folder for each packet (default: the hand-in's evidence, else the contract's test command)",
		],
		[
			'--report FILE',
			"the worker's report (default: the hand-in's evidence, the agent's last answer, or the end of the worker's stdout)",
		],
		['--json', "the result as JSON on stdout (reviewers' and the fix run's output go to stderr)"],
	],
	exits: [
		['0', 'approved'],
		[
			'2',
			"needs a person: fixes left after round 2, an INVALID or STOPPED verdict, or a failed fix run (an entry in the queue's reviews lane)",
		],
		['1', 'error: no such task, a worker that cannot be run again, an unreadable --report'],
		['77', 'refused: an agent asked (only a person at a terminal says yes; recorded, and shown on the board; docs/security.md)'],
		[
			'64',
			'bad command line (a TASK that matches several tasks, no TASK, no --reviewer, an empty one), or no ledger at --ledger PATH',
		],
	],
	examples: [
		["controlroom review w-3f2a --reviewer 'cat >/dev/null; echo APPROVE'", 'a shell reviewer that approves'],
		['controlroom review w-3f2a --reviewer "claude -p \'Answer APPROVE or numbered fixes.\'"', 'Claude Code as the reviewer'],
	],
};

function printResult(result: ReviewResult): string {
	const lines: string[] = [];
	for (const round of result.rounds) {
		const trimmed = round.packet.trimmed.length > 0 ? `, trimmed: ${round.packet.trimmed.join(', ')}` : '';
		lines.push(`round ${round.round}: packet ${round.packet.bytes} bytes${trimmed} (${round.packet.path})`);
		for (const entry of round.verdicts) {
			const detail =
				entry.verdict.kind === 'FIX'
					? entry.verdict.fixes.map((fix, index) => `\n      ${index + 1}. ${fix}`).join('')
					: entry.verdict.kind === 'INVALID'
						? `: ${entry.verdict.reason}`
						: '';
			lines.push(`  reviewer ${entry.reviewer} ${verdictLabel(entry.verdict)} (${entry.taskId})${detail}`);
		}
		if (round.fixRun) {
			const exit = round.fixRun.exitCode === null ? '' : ` (exit ${round.fixRun.exitCode})`;
			lines.push(`  fixes went back to the worker: ${round.fixRun.taskId} ${round.fixRun.status}${exit}`);
		}
	}
	const summary =
		result.outcome === 'approved'
			? `approved after ${result.rounds.length} round${result.rounds.length === 1 ? '' : 's'}`
			: `needs a person: ${result.reason ?? ''}`;
	lines.push(`review ${result.reviewId} of ${result.taskId}: ${summary}${result.isDisagreement ? ' [disagreement]' : ''}`);
	return lines.join('\n');
}

function toJson(result: ReviewResult): unknown {
	return {
		version: 1,
		...result,
		rounds: result.rounds.map(round => ({
			...round,
			verdicts: round.verdicts.map(entry => ({
				reviewer: entry.reviewer,
				command: entry.command,
				reviewerTaskId: entry.taskId,
				verdict: entry.verdict.kind,
				fixes: entry.verdict.kind === 'FIX' ? entry.verdict.fixes : [],
				reason: entry.verdict.kind === 'INVALID' ? entry.verdict.reason : null,
				signal: entry.verdict.kind === 'STOPPED' ? entry.verdict.signal : null,
			})),
		})),
	};
}

/** `controlroom review TASK --reviewer CMD`: the review gate (docs/review.md). */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('review', argv, {
		reviewer: {type: 'string', multiple: true},
		test: {type: 'string'},
		report: {type: 'string'},
		json: {type: 'boolean'},
	});
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('review: expected one TASK', USAGE_EXIT);
	const reviewers = values.reviewer ?? [];
	if (reviewers.length === 0) throw new CliError("review: --reviewer 'CMD' is required", USAGE_EXIT);
	if (reviewers.some(command => command.trim() === '')) throw new CliError('--reviewer: empty command', USAGE_EXIT);
	// The reviewers' and the fix run's own output must not mix with the result on stdout.
	process.stdout.on('error', () => undefined);
	process.stderr.on('error', () => undefined);
	const {failedRunLimit} = commandSettings({failedRunLimit: undefined});
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const result = await gateCall(() =>
			reviewTask({
				ledger,
				ref,
				reviewers,
				testCommand: values.test ?? null,
				reportFile: values.report === undefined ? null : resolve(values.report),
				home: controlroomHome(),
				source: 'cli',
				output: process.stderr,
				notice: line => process.stderr.write(`controlroom: ${line}\n`),
				failedRunLimit,
			}),
		);
		out(values.json ? JSON.stringify(toJson(result), null, 2) : printResult(result));
		return result.exitCode;
	} catch (error) {
		if (error instanceof CliError) throw new CliError(`review: ${error.message}`, REVIEW_EXIT.error);
		throw error;
	} finally {
		ledger.close();
	}
}
