import {resolve} from 'node:path';
import {verdictLabel} from '../../core/review/verdict.ts';
import {PlanFileError} from '../../disagreements/plan-evidence.ts';
import {reviewPlans, type PlanReviewResult} from '../../disagreements/plan-review.ts';
import {controlroomHome} from '../../ledger/paths.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {gateCall} from '../gate-call.ts';

export const help: CommandHelp = {
	synopsis: ["plan review PLAN --reviewer 'CMD' [--against PLAN2] [--json]"],
	description: `An independent, read-only reviewer judges a plan (against another agent's plan with --against)
from the plans and the files they cite as evidence (Markdown links to local files, and
"evidence: PATH" lines), one packet for both sides, on its stdin and in CONTROLROOM_REVIEW_PACKET.
It runs through the wrapper (role reviewer, a task of its own) and must answer exactly APPROVE or a
numbered list of the points still to settle. At most two rounds: round 2 re-reads the plans and
names what round 1 left open. Still open after that, a disagreement about what will happen goes
to the queue's disagreements lane, labelled evidence. A reviewer that changes the git work tree it
runs in counts as INVALID. See docs/mediation.md.`,
	options: [
		['--reviewer CMD', 'a shell command line that reads the packet on stdin and answers on stdout'],
		['--against PLAN2', 'the plan it disagrees with: both go to the reviewer, with the evidence both cite'],
		['--json', "the result as JSON on stdout (the reviewer's own output goes to stderr)"],
	],
	exits: [
		['0', 'approved'],
		['2', "left to a person after two rounds: an entry in the queue's disagreements lane"],
		['1', 'error: a plan that cannot be read, a reviewer that cannot be started'],
		['64', "bad command line (not 'review', no PLAN, no --reviewer), or no ledger at --ledger PATH"],
	],
	examples: [
		[
			`controlroom plan review plan-a.md --against plan-b.md --reviewer 'claude -p "Review the plans."'`,
			'Claude judges two plans',
		],
		["controlroom plan review plan.md --reviewer './my-reviewer.sh'", 'one plan, a reviewer of your own'],
	],
};

function printResult(result: PlanReviewResult): string {
	const lines = result.rounds.map(round => {
		const detail =
			round.verdict.kind === 'FIX'
				? round.verdict.fixes.map((fix, index) => `\n    ${index + 1}. ${fix}`).join('')
				: round.verdict.kind === 'INVALID'
					? `: ${round.verdict.reason}`
					: '';
		return `round ${round.round}: ${verdictLabel(round.verdict)} (${round.reviewerTaskId})${detail}`;
	});
	lines.push(
		result.outcome === 'approved'
			? `plan review ${result.taskId}: approved`
			: `plan review ${result.taskId}: left to a person (${result.reason}): controlroom timeline ${result.taskId}`,
	);
	return lines.join('\n');
}

function toJson(result: PlanReviewResult): unknown {
	return {
		version: 1,
		taskId: result.taskId,
		outcome: result.outcome,
		reason: result.reason,
		openPoints: result.openPoints,
		rounds: result.rounds.map(round => ({
			round: round.round,
			reviewerTaskId: round.reviewerTaskId,
			verdict: round.verdict.kind,
			fixes: round.verdict.kind === 'FIX' ? round.verdict.fixes : [],
			reason: round.verdict.kind === 'INVALID' ? round.verdict.reason : null,
			packetPath: round.packetPath,
		})),
	};
}

/** `controlroom plan review PLAN --reviewer CMD [--against PLAN2]` (docs/mediation.md). */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('plan', argv, {
		reviewer: {type: 'string'},
		against: {type: 'string'},
		json: {type: 'boolean'},
	});
	const [verb, plan, ...extra] = positionals;
	if (verb !== 'review') throw new CliError(`plan: expected 'review', got '${verb ?? ''}'`, USAGE_EXIT);
	if (plan === undefined || extra.length > 0) throw new CliError('plan review: expected one PLAN file', USAGE_EXIT);
	const reviewer = values.reviewer?.trim() ?? '';
	if (reviewer === '') throw new CliError("plan review: --reviewer 'CMD' is required", USAGE_EXIT);
	// The reviewer's own stderr goes to ours; the result alone is on stdout.
	process.stdout.on('error', () => undefined);
	process.stderr.on('error', () => undefined);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const result = await gateCall(() =>
			reviewPlans({
				ledger,
				plans: [plan, ...(values.against === undefined ? [] : [values.against])].map(path => resolve(path)),
				reviewer,
				cwd: process.cwd(),
				home: controlroomHome(),
				notice: line => process.stderr.write(`controlroom: ${line}\n`),
			}),
		);
		out(values.json ? JSON.stringify(toJson(result), null, 2) : printResult(result));
		return result.outcome === 'approved' ? 0 : 2;
	} catch (error) {
		if (error instanceof PlanFileError) throw new CliError(`plan review: ${error.message}`, 1);
		throw error;
	} finally {
		ledger.close();
	}
}
