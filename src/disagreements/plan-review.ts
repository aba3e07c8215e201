import {randomBytes} from 'node:crypto';
import {dirname, join} from 'node:path';
import {EventType, newEvent, type NewEvent} from '../core/events.ts';
import {planReviewPacket} from '../core/plan-review/packet.ts';
import {decidePlanRound, PLAN_REVIEW_ROUNDS} from '../core/plan-review/rounds.ts';
import type {Verdict} from '../core/review/verdict.ts';
import {runReviewer} from '../gates/review/run-reviewer.ts';
import {replaceOwnFile} from '../ledger/agent-files.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {makePrivateDir} from '../ledger/private-files.ts';
import {gatherEvidence, readPlan} from './plan-evidence.ts';
import {workTreeFingerprint} from '../gates/review/work-tree-state.ts';

const SOURCE = 'controlroom';

export type PlanReviewRequest = {
	readonly ledger: Ledger;
	/** The plan, and the plan it is reviewed against (`--against`). */
	readonly plans: readonly string[];
	/** A shell command line for the reviewer: reads the packet on stdin, answers on stdout. */
	readonly reviewer: string;
	readonly cwd: string;
	readonly home: string;
	readonly notice?: (line: string) => void;
};

/** One round as it went. */
export type PlanReviewRound = {
	readonly round: number;
	readonly reviewerTaskId: string;
	readonly verdict: Verdict;
	readonly packetPath: string;
};

export type PlanReviewResult = {
	/** The plan review's own task: its timeline holds each round. */
	readonly taskId: string;
	readonly outcome: 'approved' | 'disagreement';
	readonly rounds: readonly PlanReviewRound[];
	/** What is left for a person (empty when approved). */
	readonly openPoints: readonly string[];
	readonly reason: string;
};

function verdictData(verdict: Verdict): {fixes?: string[]; reason?: string | null} {
	switch (verdict.kind) {
		case 'FIX':
			return {fixes: [...verdict.fixes]};
		case 'INVALID':
			return {reason: verdict.reason};
		case 'STOPPED':
			return {reason: `stopped by ${verdict.signal ?? 'a signal'}`};
		case 'APPROVE':
			return {};
	}
}

/**
 * `controlroom plan review`: an independent read-only reviewer judges the plan (and the plan it
 * is reviewed against) from the plans and the evidence they cite, the same packet for both sides.
 * At most two rounds; each round re-reads the plans (their authors may revise them between rounds)
 * and tells the reviewer what it left open. Still open after that, it becomes a disagreement about
 * what will happen, in the queue's disagreements lane. A reviewer that changes the work tree is not
 * read-only: its answer counts as INVALID.
 */
export async function reviewPlans(request: PlanReviewRequest): Promise<PlanReviewResult> {
	const {ledger} = request;
	const first = request.plans.map(readPlan);
	const names = first.map(plan => plan.name);
	const taskId = `p-${randomBytes(5).toString('hex')}`;
	const folder = join(dirname(ledger.path), 'plan-reviews', taskId);
	makePrivateDir(folder);
	const envelope = (): {taskId: string; at: number; source: string} => ({taskId, at: Date.now(), source: SOURCE});
	ledger.writer.append([
		newEvent(
			EventType.registered,
			{title: `plan review: ${names.join(' vs ')}`, role: 'plan-review', cwd: request.cwd, command: request.reviewer},
			envelope(),
		),
	]);
	const rounds: PlanReviewRound[] = [];
	let openPoints: readonly string[] = [];
	for (let round = 1; ; round += 1) {
		const plans = round === 1 ? first : request.plans.map(readPlan);
		const packet = planReviewPacket({plans, evidence: gatherEvidence(plans), round, maxRounds: PLAN_REVIEW_ROUNDS, openPoints});
		const packetPath = join(folder, `round-${round}.md`);
		replaceOwnFile(packetPath, packet);
		const before = workTreeFingerprint(request.cwd);
		const reviewed = await runReviewer({
			ledger,
			command: request.reviewer,
			packetPath,
			cwd: request.cwd,
			parentId: taskId,
			title: `plan reviewer, round ${round}: ${names.join(' vs ')}`,
			env: {CONTROLROOM_REVIEW_ROUND: String(round), CONTROLROOM_PLAN_REVIEW: taskId},
			home: request.home,
			...(request.notice ? {notice: request.notice} : {}),
		});
		const wrote = before !== null && workTreeFingerprint(request.cwd) !== before;
		const verdict: Verdict = wrote
			? {kind: 'INVALID', reason: `the reviewer changed files in ${request.cwd}: a plan reviewer must only read`}
			: reviewed.verdict;
		rounds.push({round, reviewerTaskId: reviewed.taskId, verdict, packetPath});
		ledger.writer.append([
			newEvent(
				EventType.planReviewRound,
				{
					round,
					reviewerTaskId: reviewed.taskId,
					command: request.reviewer,
					verdict: verdict.kind,
					packetPath,
					...verdictData(verdict),
				},
				envelope(),
			),
		]);
		const decision = decidePlanRound(verdict, round, openPoints);
		if (decision.next === 'another-round') {
			openPoints = decision.openPoints;
			continue;
		}
		return conclude(request, taskId, rounds, decision.next === 'approved' ? null : decision, names);
	}
}

function conclude(
	request: PlanReviewRequest,
	taskId: string,
	rounds: readonly PlanReviewRound[],
	escalation: {readonly openPoints: readonly string[]; readonly reason: string} | null,
	names: readonly string[],
): PlanReviewResult {
	const at = Date.now();
	const envelope = {taskId, at, source: SOURCE};
	const reason = escalation?.reason ?? `approved in round ${rounds.length}`;
	const events: NewEvent[] = [
		newEvent(
			EventType.planReviewConcluded,
			{outcome: escalation ? 'disagreement' : 'approved', rounds: rounds.length, reason},
			envelope,
		),
	];
	if (escalation) {
		events.push(
			newEvent(
				EventType.disagreementOpened,
				{kind: 'evidence', items: [...escalation.openPoints], agents: [...names], summary: `plan review: ${reason}`},
				envelope,
			),
		);
	}
	events.push(newEvent(EventType.exited, {exitCode: 0, reason: escalation ? 'left to a person' : 'approved'}, envelope));
	request.ledger.writer.append(events);
	return {
		taskId,
		outcome: escalation ? 'disagreement' : 'approved',
		rounds,
		openPoints: escalation?.openPoints ?? [],
		reason,
	};
}
