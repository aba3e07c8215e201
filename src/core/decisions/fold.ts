import {assertNever} from '../assert-never.ts';
import {EventType, type EventOfType} from '../events.ts';

/** The decision event types, all folded here (docs/decisions.md). */
export const DECISION_EVENT_TYPES = [
	EventType.decisionAsked,
	EventType.decisionAnswered,
	EventType.decisionUsed,
	EventType.decisionWithdrawn,
] as const;
type DecisionEventType = (typeof DECISION_EVENT_TYPES)[number];
export type DecisionEvent = EventOfType<DecisionEventType>;

export const DECISION_KINDS = ['permission', 'deferred', 'budget', 'effect', 'collision'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];
export type DecisionAnswer = 'allow' | 'deny';

/** The process waiting for an answer (an interactive hook): checked against the process table. */
export type DecisionWaiter = {readonly pid: number; readonly startTime: number | null};

/** A budget question's figures (tokens). */
export type DecisionBudget = {readonly spent: number | null; readonly budget: number | null; readonly perTurn: number | null};

/** A collision question's other writer (src/core/decisions/collision.ts). */
export type DecisionCollision = {
	readonly file: string;
	readonly otherTask: string;
	readonly otherEditAt: number | null;
	/** Asked for a wrapped `claude -p` (deferred: its wrapper waits and resumes), not an interactive session (denied). */
	readonly isHeadless: boolean;
};

/**
 * Whether a question holds a wrapped headless run: its wrapper waits for the answer and resumes
 * the session carrying it (docs/headless-holds.md). A collision asked of an interactive session
 * holds no process: the call was denied and the answer applies to its next try.
 */
export function holdsHeadlessRun(decision: Pick<DecisionRecord, 'kind' | 'collision'>): boolean {
	return (
		decision.kind === 'deferred' ||
		decision.kind === 'budget' ||
		(decision.kind === 'collision' && decision.collision?.isHeadless === true)
	);
}

/**
 * Where a question is: waiting for a person (open), answered and not yet carried out, carried out
 * (used), or no longer waiting unanswered (withdrawn: answered in the agent's pane, its hook gone,
 * its window passed). `expired` is open past its `expiresAt`, before anything recorded it.
 */
export type DecisionState = 'open' | 'answered' | 'used' | 'withdrawn' | 'expired';

/** One question as its events tell it. */
export type DecisionRecord = {
	readonly id: string;
	/** The agent's task the question is about (the events' task id). */
	readonly taskId: string;
	readonly kind: DecisionKind;
	readonly agent: string | null;
	readonly tool: string;
	readonly args: unknown;
	readonly argsHash: string;
	readonly cwd: string | null;
	readonly askedAt: number;
	readonly askedSeq: number;
	readonly expiresAt: number | null;
	readonly toolUseId: string | null;
	readonly session: string | null;
	readonly waiter: DecisionWaiter | null;
	readonly budget: DecisionBudget | null;
	/** A collision question's other writer; absent for every other kind. */
	readonly collision?: DecisionCollision | null;
	readonly answer: {
		readonly answer: DecisionAnswer;
		readonly reason: string | null;
		readonly by: string | null;
		readonly argsHash: string;
		readonly headroom: number | null;
		readonly at: number;
	} | null;
	readonly usedAt: number | null;
	readonly withdrawn: {readonly why: string; readonly at: number} | null;
};

function kindOf(value: string | null | undefined): DecisionKind {
	return (DECISION_KINDS as readonly string[]).includes(value ?? '') ? (value as DecisionKind) : 'permission';
}

function waiterOf(value: EventOfType<'decision.asked'>['data']['waiter']): DecisionWaiter | null {
	if (!value || typeof value.pid !== 'number') return null;
	return {pid: value.pid, startTime: value.startTime ?? null};
}

function collisionOf(value: EventOfType<'decision.asked'>['data']['collision']): DecisionCollision | null {
	if (!value || typeof value.file !== 'string' || typeof value.otherTask !== 'string') return null;
	return {
		file: value.file,
		otherTask: value.otherTask,
		otherEditAt: value.otherEditAt ?? null,
		isHeadless: value.isHeadless === true,
	};
}

function budgetOf(value: EventOfType<'decision.asked'>['data']['budget']): DecisionBudget | null {
	if (!value) return null;
	return {spent: value.spent ?? null, budget: value.budget ?? null, perTurn: value.perTurn ?? null};
}

/** One event applied to the questions known so far (a question's later events without its ask are ignored). */
function applyDecisionEvent(decisions: Map<string, DecisionRecord>, event: DecisionEvent): void {
	const id = event.data.decisionId ?? '';
	if (id === '') return;
	const current = decisions.get(id);
	switch (event.type) {
		case EventType.decisionAsked:
			if (current) return; // an id names one question: a second ask under it changes nothing
			decisions.set(id, {
				id,
				taskId: event.taskId,
				kind: kindOf(event.data.kind),
				agent: event.data.agent ?? null,
				tool: event.data.tool ?? '',
				args: event.data.args ?? null,
				argsHash: event.data.argsHash ?? '',
				cwd: event.data.cwd ?? null,
				askedAt: event.at,
				askedSeq: event.seq,
				expiresAt: event.data.expiresAt ?? null,
				toolUseId: event.data.toolUseId ?? null,
				session: event.data.session ?? null,
				waiter: waiterOf(event.data.waiter),
				budget: budgetOf(event.data.budget),
				collision: collisionOf(event.data.collision),
				answer: null,
				usedAt: null,
				withdrawn: null,
			});
			return;
		case EventType.decisionAnswered: {
			const answer = event.data.answer;
			// The first answer stands; one after a withdrawal came too late.
			if (!current || current.answer || current.withdrawn || (answer !== 'allow' && answer !== 'deny')) return;
			decisions.set(id, {
				...current,
				answer: {
					answer,
					reason: event.data.reason ?? null,
					by: event.data.by ?? null,
					argsHash: event.data.argsHash ?? '',
					headroom: event.data.headroom ?? null,
					at: event.at,
				},
			});
			return;
		}
		case EventType.decisionUsed:
			if (!current || !current.answer || current.usedAt !== null || current.withdrawn) return;
			decisions.set(id, {...current, usedAt: event.at});
			return;
		case EventType.decisionWithdrawn:
			if (!current || current.usedAt !== null || current.withdrawn) return;
			decisions.set(id, {...current, withdrawn: {why: event.data.why ?? '', at: event.at}});
			return;
		default:
			assertNever(event);
	}
}

/** Every question in these events, by id, in the order they were asked. */
export function foldDecisions(events: readonly DecisionEvent[]): Map<string, DecisionRecord> {
	const decisions = new Map<string, DecisionRecord>();
	for (const event of events) applyDecisionEvent(decisions, event);
	return decisions;
}

/** Where a question is at `now`. */
export function decisionState(decision: DecisionRecord, now: number): DecisionState {
	if (decision.usedAt !== null) return 'used';
	if (decision.withdrawn) return 'withdrawn';
	if (decision.answer) return 'answered';
	if (decision.expiresAt !== null && now >= decision.expiresAt) return 'expired';
	return 'open';
}

/** The questions waiting for a person at `now`, oldest first. */
export function openDecisionsOf(decisions: Iterable<DecisionRecord>, now: number): DecisionRecord[] {
	return [...decisions].filter(decision => decisionState(decision, now) === 'open').sort((a, b) => a.askedSeq - b.askedSeq);
}

/**
 * What an answer may be used for: the call of exactly the hash it was given for, once. Returns
 * the answer, or why not (changed arguments are a new question; a second use finds it used).
 */
export function usableAnswer(
	decision: DecisionRecord,
	argsHash: string,
): {readonly ok: true; readonly answer: NonNullable<DecisionRecord['answer']>} | {readonly ok: false; readonly why: string} {
	if (decision.usedAt !== null) return {ok: false, why: 'its answer was already used'};
	if (decision.withdrawn) return {ok: false, why: `it was withdrawn (${decision.withdrawn.why})`};
	if (!decision.answer) return {ok: false, why: 'it has no answer yet'};
	if (decision.answer.argsHash !== argsHash || decision.argsHash !== argsHash) {
		return {ok: false, why: 'the arguments changed since the answer was given (a new question)'};
	}
	return {ok: true, answer: decision.answer};
}
