import type {QueueSignal} from '../human-queue.ts';
import {summarizeArgs} from '../effects/view.ts';
import {decisionState, type DecisionRecord, type DecisionState, type DecisionWaiter} from './fold.ts';

/** Whether a question's waiting process still runs (its PID alive with the same start time). */
export type WaiterCheck = (waiter: DecisionWaiter) => boolean;

/**
 * Whether anyone still waits for the question's answer: true or false for a question a process
 * waits on (an interactive hook), null where none does (a deferred call is answered at resume) or
 * where this machine cannot tell (a fleet read, no check).
 */
export function isWaiting(decision: DecisionRecord, isWaiterAlive: WaiterCheck | undefined): boolean | null {
	if (decision.waiter === null || isWaiterAlive === undefined) return null;
	return isWaiterAlive(decision.waiter);
}

/**
 * Whether a person can still answer it: open, and its waiter (if any) alive. A question whose hook
 * died (kill -9) is no longer waiting: the agent's own dialog answers it (docs/decisions.md).
 */
export function isAnswerable(decision: DecisionRecord, now: number, isWaiterAlive: WaiterCheck | undefined): boolean {
	return decisionState(decision, now) === 'open' && isWaiting(decision, isWaiterAlive) !== false;
}

/** One line for a question: who asks what (arguments summarised; drill in for them whole). */
export function decisionLine(decision: DecisionRecord): string {
	const who = decision.agent ?? 'an agent';
	const what =
		decision.kind === 'budget' && decision.budget
			? `budget: ${decision.budget.spent ?? '?'} of ${decision.budget.budget ?? '?'} tokens spent (${decision.budget.perTurn ?? '?'} a turn)`
			: `${decision.tool} ${summarizeArgs(decision.args)}`;
	return `${who} asks (${decision.kind}): ${what}`;
}

/** The Decisions lane of Needs you: every answerable question, as of when it was asked (the lane sorts oldest first). */
export function decisionSignals(decisions: Iterable<DecisionRecord>, now: number, isWaiterAlive?: WaiterCheck): QueueSignal[] {
	const signals: QueueSignal[] = [];
	for (const decision of decisions) {
		if (!isAnswerable(decision, now, isWaiterAlive)) continue;
		signals.push({
			taskId: decision.id,
			lane: 'decisions',
			reason: `${decisionLine(decision)} (${decision.taskId})`,
			at: decision.askedAt,
			seq: decision.askedSeq,
			about: decision.taskId,
		});
	}
	return signals;
}

/** A question in snapshot JSON v1, `decisions[]` (docs/snapshot.md). */
export type SnapshotDecision = {
	id: string;
	host?: string;
	kind: string;
	/** open, answered, used, withdrawn, expired. */
	state: DecisionState;
	/** Whether someone still waits for the answer (null: none does, or this read cannot tell). */
	isWaiting: boolean | null;
	/** The process that waits (an interactive hook), or null. */
	waiter: {pid: number; startTime: number | null} | null;
	task: string;
	agent: string | null;
	tool: string;
	args: unknown;
	argsHash: string;
	cwd: string | null;
	askedAt: string;
	waitingSeconds: number;
	expiresAt: string | null;
	toolUseId: string | null;
	session: string | null;
	budget: {spent: number | null; budget: number | null; perTurn: number | null} | null;
	answer: {answer: string; reason: string | null; by: string | null; at: string; headroom: number | null} | null;
	withdrawn: {why: string; at: string} | null;
};

function settledAt(decision: DecisionRecord): number | null {
	return decision.usedAt ?? decision.withdrawn?.at ?? null;
}

/**
 * `decisions[]`: every question not settled (open, answered and not yet carried out, past its
 * window unrecorded), and those settled (used, withdrawn) at or after `since` (all when null),
 * oldest asked first.
 */
export function snapshotDecisions(
	decisions: Iterable<DecisionRecord>,
	now: number,
	since: number | null,
	isWaiterAlive?: WaiterCheck,
): SnapshotDecision[] {
	const iso = (ms: number) => new Date(ms).toISOString();
	return [...decisions]
		.filter(decision => {
			const at = settledAt(decision);
			return at === null || since === null || at >= since;
		})
		.sort((a, b) => a.askedSeq - b.askedSeq)
		.map(decision => {
			const state = decisionState(decision, now);
			const end = settledAt(decision) ?? decision.answer?.at ?? (state === 'expired' ? decision.expiresAt : null) ?? now;
			return {
				id: decision.id,
				kind: decision.kind,
				state,
				isWaiting: state === 'open' || state === 'answered' ? isWaiting(decision, isWaiterAlive) : false,
				waiter: decision.waiter ? {...decision.waiter} : null,
				task: decision.taskId,
				agent: decision.agent,
				tool: decision.tool,
				args: decision.args,
				argsHash: decision.argsHash,
				cwd: decision.cwd,
				askedAt: iso(decision.askedAt),
				waitingSeconds: Math.max(0, Math.floor((end - decision.askedAt) / 1000)),
				expiresAt: decision.expiresAt === null ? null : iso(decision.expiresAt),
				toolUseId: decision.toolUseId,
				session: decision.session,
				budget: decision.budget ? {...decision.budget} : null,
				answer: decision.answer
					? {
							answer: decision.answer.answer,
							reason: decision.answer.reason,
							by: decision.answer.by,
							at: iso(decision.answer.at),
							headroom: decision.answer.headroom,
						}
					: null,
				withdrawn: decision.withdrawn ? {why: decision.withdrawn.why, at: iso(decision.withdrawn.at)} : null,
			};
		});
}
