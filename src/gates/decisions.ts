import {randomBytes} from 'node:crypto';
import {argsHash as hashOf} from '../core/decisions/args-hash.ts';
import {
	decisionState,
	openDecisionsOf,
	usableAnswer,
	type DecisionAnswer,
	type DecisionBudget,
	type DecisionCollision,
	type DecisionKind,
	type DecisionRecord,
	type DecisionWaiter,
} from '../core/decisions/fold.ts';
import {EventType} from '../core/events.ts';
import {REASON_MAX_CHARS, overTextLimit} from '../core/text-limits.ts';
import {readDecisions} from '../ledger/decisions.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {NotAPersonError, type Door} from '../core/actor.ts';
import {isApproverAlive} from './effects/liveness.ts';
import {requirePerson} from './person-gate.ts';
import type {PasskeyProof} from './passkey/answer.ts';
import {recordPasskeyAnswer} from './passkey/record.ts';
import {ReviewGateError} from './gate-error.ts';

// The questions agents ask and the answers people give (docs/decisions.md). Asking is anyone's
// (an agent's hook asks); answering goes through the person gate; carrying an answer out is one
// write transaction, so two callers never both get it.

/** A question as its asker knows it; the id and the hash are made here. */
export type DecisionQuestion = {
	/** The agent's task the question is about. */
	readonly taskId: string;
	readonly kind: DecisionKind;
	readonly agent: string | null;
	readonly tool: string;
	readonly args: unknown;
	readonly cwd: string | null;
	readonly expiresAt: number | null;
	readonly toolUseId: string | null;
	readonly session: string | null;
	readonly waiter: DecisionWaiter | null;
	readonly budget: DecisionBudget | null;
	/** A collision question's other writer. */
	readonly collision?: DecisionCollision | null;
	/** Who writes the event: claude, wrapper, cli. */
	readonly source: string;
	readonly at?: number;
};

/** A new question's id: `d-` and 12 hex digits, short enough to type. */
function newDecisionId(): string {
	return `d-${randomBytes(6).toString('hex')}`;
}

/** Records a question (`decision.asked`) and returns its id and the hash an answer will be bound to. */
export function askDecision(
	ledger: Ledger,
	question: DecisionQuestion,
): {readonly decisionId: string; readonly argsHash: string} {
	const decisionId = newDecisionId();
	const argsHash = hashOf(question.args);
	ledger.writer.append([
		{
			taskId: question.taskId,
			type: EventType.decisionAsked,
			at: question.at ?? Date.now(),
			source: question.source,
			data: {
				decisionId,
				kind: question.kind,
				agent: question.agent,
				tool: question.tool,
				args: question.args,
				argsHash,
				cwd: question.cwd,
				expiresAt: question.expiresAt,
				toolUseId: question.toolUseId,
				session: question.session,
				waiter: question.waiter,
				budget: question.budget,
				...(question.collision ? {collision: question.collision} : {}),
			},
		},
	]);
	return {decisionId, argsHash};
}

/** One question by its id or a unique prefix of it (`d-3f2a` is enough when only one starts so). */
export function findDecision(ledger: Ledger, ref: string): DecisionRecord {
	const decisions = readDecisions(ledger.reader);
	const exact = decisions.get(ref);
	if (exact) return exact;
	const matches = [...decisions.values()].filter(decision => ref.length >= 3 && decision.id.startsWith(ref));
	const [match] = matches;
	if (!match) throw new ReviewGateError(`no question '${ref}' in ${ledger.path} (controlroom snapshot lists decisions[])`);
	if (matches.length > 1) {
		throw new ReviewGateError(`'${ref}' is ambiguous: it matches ${matches.map(decision => decision.id).join(', ')}`);
	}
	return match;
}

/** Why a question can no longer be answered, in words for the one line a refusal is. */
function notAnswerable(decision: DecisionRecord, now: number): string | null {
	switch (decisionState(decision, now)) {
		case 'open':
			return null;
		case 'answered':
		case 'used':
			return `already answered ${decision.answer?.answer ?? ''} by ${decision.answer?.by ?? 'a person'}`;
		case 'withdrawn':
			return `no longer waiting (${decision.withdrawn?.why ?? 'withdrawn'})`;
		case 'expired':
			return 'its window passed unanswered; the agent asks in its own pane';
	}
}

/** How an answer came: who writes it, and the door it came through (a fleet board's request). */
export type AnswerOptions = {
	readonly source: string;
	readonly door?: Door;
	readonly now?: number;
	/** The arguments' hash the person was shown (the web page's form): refused unless it is the question's. */
	readonly shownArgsHash?: string;
	/** A passkey answer checked by verifyAnswer, for exactly this question, its hash and this answer (docs/passkeys.md). */
	readonly passkey?: PasskeyProof;
};

/** What a passkey signs as a question's answer: `allow`, `deny`, or `allow-N` with N tokens of headroom. */
export function decisionAnswerWord(answer: DecisionAnswer, headroom: number | null): string {
	return headroom === null ? answer : `${answer}-${headroom}`;
}

/**
 * A person answers a question (`controlroom decide`, the board's `a`/`x`): only a person says yes
 * or no (the person gate, docs/security.md); the answer is bound to the hash the question was
 * asked with. Refused (one line) when the question is not open. Returns the answered record.
 */
export function answerDecision(
	ledger: Ledger,
	ref: string,
	answer: DecisionAnswer,
	reason: string | null,
	headroom: number | null = null,
	options: AnswerOptions = {source: 'cli'},
): DecisionRecord {
	const person = requirePerson(ledger, {
		verb: 'decide',
		target: ref,
		source: options.source,
		...(options.door ? {door: options.door} : {}),
		...(options.passkey ? {passkey: options.passkey} : {}),
	});
	const line = reason === null ? null : reason.replace(/\s+/g, ' ').trim();
	const tooLong = line === null ? null : overTextLimit('--reason', line, REASON_MAX_CHARS);
	if (tooLong !== null) throw new ReviewGateError(tooLong);
	if (headroom !== null && (!Number.isSafeInteger(headroom) || headroom <= 0)) {
		throw new ReviewGateError(`headroom: expected a whole number of tokens above 0, got ${String(headroom)}`);
	}
	const now = options.now ?? Date.now();
	return ledger.writer.transaction(() => {
		const decision = findDecision(ledger, ref);
		const why = notAnswerable(decision, now);
		if (why !== null) throw new ReviewGateError(`${decision.id}: ${why}`);
		if (options.shownArgsHash !== undefined && options.shownArgsHash !== decision.argsHash)
			throw new ReviewGateError(
				`${decision.id}: the call shown is not the call asked about (its arguments' hash differs); look again`,
			);
		// A hook killed while it waited (kill -9) takes no answer: the agent's own dialog answers it.
		if (decision.waiter !== null && !isApproverAlive(decision.waiter)) {
			throw new ReviewGateError(`${decision.id}: no longer waiting (its hook is gone); answer it in the agent's own pane`);
		}
		// A passkey answer is recorded first, in this transaction: refused unless it signed this very answer.
		const by = options.passkey
			? recordPasskeyAnswer(ledger, options.passkey, {
					taskId: decision.taskId,
					item: {kind: 'decision', id: decision.id},
					digest: decision.argsHash,
					answer: decisionAnswerWord(answer, headroom),
					source: options.source,
					at: now,
				})
			: person.user;
		ledger.writer.append([
			{
				taskId: decision.taskId,
				type: EventType.decisionAnswered,
				at: now,
				source: options.source,
				data: {
					decisionId: decision.id,
					answer,
					reason: line === '' ? null : line,
					by,
					argsHash: decision.argsHash,
					headroom,
				},
			},
		]);
		return findDecision(ledger, decision.id);
	});
}

/**
 * Takes a question's answer to carry it out, for the call of `argsHash` only: in one write
 * transaction it reads the answer and records `decision.used`, so a second caller (a second hook,
 * a second resume) gets null. Null too when there is no answer yet or the arguments changed.
 */
export function takeAnswer(
	ledger: Ledger,
	decisionId: string,
	argsHash: string,
	source = 'cli',
): NonNullable<DecisionRecord['answer']> | null {
	return ledger.writer.transaction(() => {
		const decision = readDecisions(ledger.reader).get(decisionId);
		if (!decision) return null;
		const usable = usableAnswer(decision, argsHash);
		if (!usable.ok) return null;
		ledger.writer.append([
			{taskId: decision.taskId, type: EventType.decisionUsed, at: Date.now(), source, data: {decisionId, argsHash}},
		]);
		return usable.answer;
	});
}

/**
 * Closes a question unanswered (answered in the agent's pane, its hook died, its window passed).
 * False when it was already used or withdrawn: then nothing is written.
 */
export function withdrawDecision(ledger: Ledger, decisionId: string, why: string, source = 'cli'): boolean {
	return ledger.writer.transaction(() => {
		const decision = readDecisions(ledger.reader).get(decisionId);
		if (!decision || decision.usedAt !== null || decision.withdrawn) return false;
		ledger.writer.append([
			{taskId: decision.taskId, type: EventType.decisionWithdrawn, at: Date.now(), source, data: {decisionId, why}},
		]);
		return true;
	});
}

/** The questions waiting for a person, oldest first. */
export function openDecisions(ledger: Ledger, now = Date.now()): DecisionRecord[] {
	return openDecisionsOf(readDecisions(ledger.reader).values(), now);
}

/**
 * The board's `a` and `x` on a Decisions entry: the same answer as `controlroom decide`, its
 * refusal (no longer waiting, already answered, an agent asking) one line on the status line.
 */
export function decideFromBoard(
	ledger: Ledger,
	decisionId: string,
	answer: DecisionAnswer,
	reason: string | null,
	headroom: number | null = null,
): Promise<{readonly isAnswered: boolean; readonly message: string}> {
	try {
		const decision = answerDecision(ledger, decisionId, answer, reason, headroom, {source: 'board'});
		const verb = answer === 'allow' ? 'allowed' : 'denied';
		const added = headroom === null ? '' : ` with +${headroom} tokens`;
		return Promise.resolve({
			isAnswered: true,
			message: `${verb} ${decision.id}${added}: ${decision.tool} for ${decision.taskId}`,
		});
	} catch (error) {
		if (error instanceof ReviewGateError || error instanceof NotAPersonError) {
			return Promise.resolve({isAnswered: false, message: error.message});
		}
		return Promise.reject(error instanceof Error ? error : new Error(String(error)));
	}
}

/**
 * The reconciler's part (docs/decisions.md, "Crash safety"): a question whose waiting hook is gone
 * (killed, its machine restarted) is withdrawn, so it leaves the queue and takes no answer; the
 * agent's own dialog answers it. A question nobody waits on (a deferred call, answered at its
 * resume) is left as it is. Returns how many were withdrawn.
 */
export function settleDecisions(ledger: Ledger, now = Date.now()): number {
	let withdrawn = 0;
	for (const decision of readDecisions(ledger.reader).values()) {
		const state = decisionState(decision, now);
		if ((state !== 'open' && state !== 'answered' && state !== 'expired') || decision.waiter === null) continue;
		if (isApproverAlive(decision.waiter)) continue;
		const why =
			state === 'answered' ? 'its hook died before it took the answer' : 'its hook died; the agent asks in its own pane';
		if (withdrawDecision(ledger, decision.id, why, 'reconciler')) withdrawn += 1;
	}
	return withdrawn;
}
