import {formatDuration} from '../format.ts';
import {ciFailedMessage} from './log-tail.ts';
import type {ReactionEvent, ReactionRule} from './rules.ts';

/**
 * What the rules do about what happened (docs/reactions.md): pure. The reconciler's reactions step
 * (src/producers/reactions.ts) reads the triggers and the earlier firings from the ledger, asks
 * this plan, writes the firings and makes the deliveries. No model is asked, and no firing
 * approves anything: the actions are send, notify and the collision policy.
 */

/** One thing a rule may react to, read from the ledger. */
export type Trigger = {
	/** Same trigger, same key: a rule fires on it once, however many passes see it. */
	readonly key: string;
	readonly event: ReactionEvent;
	/** The task it is about: the one a send goes to, a need is raised on. */
	readonly taskId: string;
	readonly at: number;
	/** The ledger event it was read from; null for a derived one (a silence). */
	readonly seq: number | null;
	/** What a send carries (a ci-failed send makes its own from `log`). */
	readonly text: string;
	/** ci-failed: the report's kept log lines, how many the log had, where the run is. */
	readonly log?: {readonly lines: readonly string[]; readonly total: number; readonly url: string | null};
	/** stalled: how long the task has been silent. */
	readonly silentMs?: number;
	/** Why a send would not be made (the review gate already ran the fixes). */
	readonly skipReason?: string | null;
	/** The rules whose firings led here (empty for what happened in the world). */
	readonly chain: readonly string[];
};

/** An earlier firing, as the plan counts it. */
export type PastFiring = {
	readonly rule: string;
	readonly taskId: string;
	readonly at: number;
	readonly outcome: string;
	readonly trigger: string;
};

/** What a firing does, as the step writes it. */
export type Firing = {
	readonly rule: ReactionRule;
	readonly trigger: Trigger;
	readonly outcome: 'send' | 'skip' | 'escalate' | 'notify' | 'policy';
	readonly reason: string;
	/** The text sent (send) or put in Needs you (escalate, notify); null otherwise. */
	readonly message: string | null;
	/** Same firing, same key (the ledger keeps one). */
	readonly dedupKey: string;
};

/** The key a rule's firing on a trigger is stored under. */
export function firingKey(rule: string, trigger: string): string {
	return `reaction:${rule}:${trigger}`;
}

/** Whether a task can still be sent to: not ended (registered, running, untracked). */
export type Liveness = (taskId: string) => {readonly isLive: boolean; readonly status: string};

function sendMessage(rule: ReactionRule, trigger: Trigger): string {
	if (trigger.event === 'ci-failed' && trigger.log !== undefined)
		return ciFailedMessage({
			rule: rule.name,
			lines: trigger.log.lines.slice(-rule.lines),
			total: trigger.log.total,
			url: trigger.log.url,
		});
	return trigger.text;
}

function decide(rule: ReactionRule, trigger: Trigger, past: readonly PastFiring[], liveness: Liveness): Omit<Firing, 'dedupKey'> {
	const base = {rule, trigger};
	if (trigger.chain.includes(rule.name))
		return {
			...base,
			outcome: 'skip',
			reason: `rule ${rule.name} already fired in this chain (${trigger.chain.join(' → ')})`,
			message: null,
		};
	switch (rule.action) {
		case 'collision-policy':
			return {...base, outcome: 'policy', reason: trigger.text, message: null};
		case 'notify':
			return {...base, outcome: 'notify', reason: `rule ${rule.name}`, message: `${rule.name}: ${trigger.text}`};
		case 'send': {
			if (trigger.skipReason) return {...base, outcome: 'skip', reason: trigger.skipReason, message: null};
			const live = liveness(trigger.taskId);
			const message = sendMessage(rule, trigger);
			if (!live.isLive)
				return {
					...base,
					outcome: 'escalate',
					reason: `task ${trigger.taskId} is ${live.status}: nobody to send to`,
					message: `${rule.name}: ${trigger.event} on task ${trigger.taskId}, which is ${live.status}; nothing was sent`,
				};
			const sends = past.filter(
				firing => firing.rule === rule.name && firing.taskId === trigger.taskId && firing.outcome === 'send',
			);
			const recent = sends.find(firing => Math.abs(trigger.at - firing.at) < rule.retryWindowMs);
			if (recent !== undefined)
				return {
					...base,
					outcome: 'skip',
					reason: `sent ${formatDuration(Math.abs(trigger.at - recent.at))} before, within the retry window of ${formatDuration(rule.retryWindowMs)} (${recent.trigger})`,
					message: null,
				};
			if (rule.escalateAfter !== null && sends.length >= rule.escalateAfter)
				return {
					...base,
					outcome: 'escalate',
					reason: `sent ${sends.length} times already (escalate-after ${rule.escalateAfter})`,
					message: `${rule.name}: ${trigger.event} again on task ${trigger.taskId} after ${sends.length} sends; a person decides`,
				};
			return {...base, outcome: 'send', reason: `to task ${trigger.taskId}`, message};
		}
	}
}

/**
 * The firings of `rules` on `triggers` not fired before (`fired`: the keys already in the ledger),
 * oldest trigger first; each counts as past for the next, so two reports in one pass send once.
 */
export function planReactions(input: {
	readonly rules: readonly ReactionRule[];
	readonly triggers: readonly Trigger[];
	readonly past: readonly PastFiring[];
	readonly fired: ReadonlySet<string>;
	readonly liveness: Liveness;
	readonly now: number;
}): Firing[] {
	const past = [...input.past];
	const firings: Firing[] = [];
	const triggers = [...input.triggers].sort((a, b) => a.at - b.at);
	for (const trigger of triggers)
		for (const rule of input.rules) {
			if (rule.on !== trigger.event) continue;
			if (rule.on === 'stalled' && (trigger.silentMs ?? 0) < (rule.minutes ?? 0) * 60_000) continue;
			const dedupKey = firingKey(rule.name, trigger.key);
			if (input.fired.has(dedupKey)) continue;
			const firing = {...decide(rule, trigger, past, input.liveness), dedupKey};
			firings.push(firing);
			past.push({rule: rule.name, taskId: trigger.taskId, at: trigger.at, outcome: firing.outcome, trigger: trigger.key});
		}
	return firings;
}

/** A send firing and its delivery attempts so far, as the plan reads them. */
export type SendState = {
	readonly firedSeq: number;
	readonly rule: string;
	readonly retries: number;
	readonly taskId: string;
	/** Each attempt: `attempting` when claimed, then `delivered`, `failed` or `queued` (the last wins). */
	readonly attempts: readonly {
		readonly attempt: number;
		readonly outcome: string;
		readonly at: number;
		readonly detail: string | null;
	}[];
};

/** An attempt claimed and not finished within this time is taken as failed. */
export const ATTEMPT_UNKNOWN_MS = 120_000;

/** What to do next for one send: attempt N, escalate (why), or nothing. */
export function nextDelivery(
	state: SendState,
	now: number,
):
	| {readonly kind: 'attempt'; readonly attempt: number}
	| {readonly kind: 'escalate'; readonly reason: string}
	| {readonly kind: 'none'} {
	const byAttempt = new Map<number, {outcome: string; at: number; detail: string | null}>();
	for (const attempt of state.attempts) {
		const known = byAttempt.get(attempt.attempt);
		if (known === undefined || known.outcome === 'attempting') byAttempt.set(attempt.attempt, attempt);
	}
	const last = Math.max(0, ...byAttempt.keys());
	if (last === 0) return {kind: 'attempt', attempt: 1};
	const outcome = byAttempt.get(last);
	if (outcome === undefined || outcome.outcome === 'delivered' || outcome.outcome === 'queued') return {kind: 'none'};
	// An attempt that never said how it went (its process died) counts as failed: the message's own
	// key (one per firing) keeps a second attempt from queueing it twice.
	if (outcome.outcome === 'attempting' && now - outcome.at <= ATTEMPT_UNKNOWN_MS) return {kind: 'none'};
	if (last <= state.retries) return {kind: 'attempt', attempt: last + 1};
	return {kind: 'escalate', reason: `not delivered after ${last} attempts: ${outcome.detail ?? 'no answer'}`};
}
