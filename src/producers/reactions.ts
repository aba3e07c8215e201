import {EventType, type EventOfType, type NewEvent} from '../core/events.ts';
import {
	firingKey,
	nextDelivery,
	planReactions,
	type Firing,
	type Liveness,
	type PastFiring,
	type SendState,
	type Trigger,
} from '../core/reactions/plan.ts';
import type {ReactionRule} from '../core/reactions/rules.ts';
import {isEnded} from '../core/status.ts';
import {isWaitingForPerson, type Task} from '../core/task.ts';
import type {Ledger} from '../ledger/open-ledger.ts';

/**
 * The reactions step (docs/reactions.md, "When rules are evaluated"): run after each reconciler
 * pass (`controlroom reconcile`, the board's pass) and by `ci report` at once. It reads what
 * happened from the ledger, lets the rules decide (src/core/reactions/plan.ts), writes each firing
 * as a `reaction.fired` event, and makes the deliveries of sends.
 */

/** Triggers older than this are not looked at again (a pass that was not running for a day does not replay the day). */
export const TRIGGER_HORIZON_MS = 24 * 3_600_000;
/** Firings counted for the retry window and escalate-after. */
const PAST_HORIZON_MS = 7 * 24 * 3_600_000;

/** What a delivery did: delivered to the session, queued for it (its next turn boundary delivers it), or failed. */
export type DeliveryResult = {readonly outcome: 'delivered' | 'queued' | 'failed'; readonly detail: string | null};

/** Delivers a send's message to a task's session. */
export type Deliver = (
	task: Task,
	message: string,
	from: {readonly rule: string; readonly firedSeq: number},
) => Promise<DeliveryResult>;

/** What one step did (and, in a dry run, would do). */
export type ReactionsResult = {
	readonly firings: readonly Firing[];
	readonly deliveries: readonly {
		readonly taskId: string;
		readonly rule: string;
		readonly attempt: number;
		readonly result: DeliveryResult;
	}[];
};

function fixesText(fixes: readonly string[]): string {
	return [
		`controlroom: the review asks for ${fixes.length} fix${fixes.length === 1 ? '' : 'es'}:`,
		...fixes.map(fix => `- ${fix}`),
	].join('\n');
}

function liveness(ledger: Ledger): Liveness {
	return taskId => {
		const task = ledger.reader.task(taskId);
		if (task === undefined) return {isLive: false, status: 'unknown'};
		return {isLive: !isEnded(task.status), status: task.status};
	};
}

/** A failed CI report as a trigger (null for any other status). */
export function ciTrigger(event: Pick<EventOfType<'ci.reported'>, 'seq' | 'taskId' | 'at' | 'data'>): Trigger | null {
	if (event.data.status !== 'failed') return null;
	const lines = event.data.logLines ?? [];
	return {
		key: `ci:${event.seq}`,
		event: 'ci-failed',
		taskId: event.taskId,
		at: event.at,
		seq: event.seq,
		text: 'CI failed',
		log: {lines, total: event.data.logTotalLines ?? lines.length, url: event.data.url ?? null},
		chain: [],
	};
}

/** One line per firing, for a person: what fired, on what, and what came of it. */
export function firingLine(firing: Firing, isDryRun: boolean): string {
	const verb = isDryRun ? 'would fire' : 'fired';
	return `${verb} ${firing.rule.name} on ${firing.trigger.event} (task ${firing.trigger.taskId}): ${firing.outcome}, ${firing.reason}`;
}

/** One line per delivery attempt, for a person. */
export function deliveryLine(delivery: ReactionsResult['deliveries'][number]): string {
	const {result} = delivery;
	return `send ${delivery.rule} to ${delivery.taskId}, attempt ${delivery.attempt}: ${result.outcome}${result.detail ? ` (${result.detail})` : ''}`;
}

/** Everything a rule may react to now, read from the ledger. */
function readTriggers(
	ledger: Ledger,
	rules: readonly ReactionRule[],
	fired: readonly EventOfType<'reaction.fired'>[],
	now: number,
): Trigger[] {
	const since = now - TRIGGER_HORIZON_MS;
	const wanted = new Set(rules.map(rule => rule.on));
	const triggers: Trigger[] = [];
	const alive = liveness(ledger);
	if (wanted.has('ci-failed'))
		for (const event of ledger.reader.eventsOfType([EventType.ciReported], since)) {
			const trigger = ciTrigger(event);
			if (trigger !== null) triggers.push(trigger);
		}
	if (wanted.has('review-fix'))
		for (const event of ledger.reader.eventsOfType([EventType.reviewFixRound], since)) {
			const fixes = event.data.fixes ?? [];
			if (fixes.length === 0) continue;
			const isLive = alive(event.taskId).isLive;
			const worker = event.data.workerTaskId ?? null;
			triggers.push({
				key: `review-fix:${event.seq}`,
				event: 'review-fix',
				taskId: event.taskId,
				at: event.at,
				seq: event.seq,
				text: fixesText(fixes),
				skipReason: !isLive && worker !== null ? `the review gate ran the fixes as ${worker}` : null,
				chain: [],
			});
		}
	if (wanted.has('collision')) {
		for (const event of ledger.reader.eventsOfType([EventType.decisionAsked], since)) {
			if (event.data.kind !== 'collision') continue;
			const collision = event.data.collision;
			triggers.push({
				key: `collision:${event.seq}`,
				event: 'collision',
				taskId: event.taskId,
				at: event.at,
				seq: event.seq,
				text: `held as ${event.data.decisionId ?? '?'}: ${collision?.file ?? '?'} edited by ${collision?.otherTask ?? '?'} (collision policy hold)`,
				chain: [],
			});
		}
		for (const event of ledger.reader.eventsOfType([EventType.needRaised], since)) {
			if (event.data.kind !== 'collision') continue;
			triggers.push({
				key: `collision:${event.seq}`,
				event: 'collision',
				taskId: event.taskId,
				at: event.at,
				seq: event.seq,
				text: 'a Needs-you entry, the call ran (collision policy warn)',
				chain: [],
			});
		}
	}
	if (wanted.has('stalled'))
		for (const task of ledger.reader.tasksWithStatus(['running', 'untracked'])) {
			if (isWaitingForPerson(task, now)) continue;
			triggers.push({
				key: `stalled:${task.id}:${task.lastSeenAt}`,
				event: 'stalled',
				taskId: task.id,
				at: now,
				seq: null,
				text: `task ${task.id} has been silent since ${new Date(task.lastSeenAt).toISOString()}`,
				silentMs: now - task.lastSeenAt,
				chain: [],
			});
		}
	// What firings said happened: a rule may react to those too (the check refuses loops).
	const follows = new Set(['sent', 'escalated', 'notified']);
	if ([...wanted].some(event => follows.has(event))) {
		const bySeq = new Map(fired.map(event => [event.seq, event]));
		const follow = (event: EventOfType<'reaction.fired'>, name: 'sent' | 'escalated' | 'notified', at: number, key: string) =>
			triggers.push({
				key,
				event: name,
				taskId: event.taskId,
				at,
				seq: event.seq,
				text: event.data.message ?? event.data.reason ?? '',
				chain: [...(event.data.chain ?? []), event.data.rule ?? '?'],
			});
		for (const event of fired) {
			if (event.at < since) continue;
			if (event.data.outcome === 'escalate') follow(event, 'escalated', event.at, `escalated:${event.seq}`);
			if (event.data.outcome === 'notify') follow(event, 'notified', event.at, `notified:${event.seq}`);
		}
		if (wanted.has('sent'))
			for (const delivery of ledger.reader.eventsOfType([EventType.reactionDelivery], since)) {
				if (delivery.data.outcome !== 'delivered' && delivery.data.outcome !== 'queued') continue;
				const source = bySeq.get(delivery.data.firedSeq ?? -1);
				if (source !== undefined) follow(source, 'sent', delivery.at, `sent:${delivery.seq}`);
			}
	}
	return triggers;
}

/** A firing as the ledger stores it, with the need it raises (escalate, notify). */
function firingEvents(firing: Firing, now: number): NewEvent[] {
	const fired: NewEvent = {
		taskId: firing.trigger.taskId,
		type: EventType.reactionFired,
		at: now,
		source: 'reactions',
		dedupKey: firing.dedupKey,
		data: {
			rule: firing.rule.name,
			on: firing.rule.on,
			action: firing.rule.action,
			outcome: firing.outcome,
			reason: firing.reason,
			trigger: firing.trigger.key,
			triggerSeq: firing.trigger.seq,
			triggerAt: firing.trigger.at,
			message: firing.message,
			chain: [...firing.trigger.chain],
			retries: firing.rule.retries,
		},
	};
	if (firing.outcome !== 'escalate' && firing.outcome !== 'notify') return [fired];
	const need: NewEvent = {
		taskId: firing.trigger.taskId,
		type: EventType.needRaised,
		at: now,
		source: 'reactions',
		dedupKey: `${firing.dedupKey}:need`,
		data: {lane: 'needs', kind: 'reaction', message: firing.message ?? firing.reason, actor: null},
	};
	return [fired, need];
}

/** The sends of the last day with their attempts. */
function sendStates(
	ledger: Ledger,
	fired: readonly EventOfType<'reaction.fired'>[],
	since: number,
): (SendState & {message: string})[] {
	const attempts = new Map<number, SendState['attempts'][number][]>();
	for (const event of ledger.reader.eventsOfType([EventType.reactionDelivery], since)) {
		const seq = event.data.firedSeq;
		if (typeof seq !== 'number') continue;
		const list = attempts.get(seq) ?? [];
		list.push({
			attempt: event.data.attempt ?? 0,
			outcome: event.data.outcome ?? '',
			at: event.at,
			detail: event.data.detail ?? null,
		});
		attempts.set(seq, list);
	}
	return fired
		.filter(event => event.data.outcome === 'send' && event.at >= since)
		.map(event => ({
			firedSeq: event.seq,
			rule: event.data.rule ?? '?',
			retries: event.data.retries ?? 0,
			taskId: event.taskId,
			message: event.data.message ?? '',
			attempts: attempts.get(event.seq) ?? [],
		}));
}

/** One step: fire what is due, then deliver what is due. `dryRun`: decide only; nothing is written or sent. */
export async function runReactions(
	ledger: Ledger,
	options: {
		readonly rules: readonly ReactionRule[];
		readonly deliver: Deliver;
		readonly now?: number;
		readonly dryRun?: boolean;
		/** Triggers not in the ledger (a dry run's report, which is not written). */
		readonly extra?: readonly Trigger[];
	},
): Promise<ReactionsResult> {
	const now = options.now ?? Date.now();
	if (options.rules.length === 0) return {firings: [], deliveries: []};
	const firedEvents = () => ledger.reader.eventsOfType([EventType.reactionFired], now - PAST_HORIZON_MS);
	const before = firedEvents();
	const past: PastFiring[] = before.map(event => ({
		rule: event.data.rule ?? '?',
		taskId: event.taskId,
		at: event.data.triggerAt ?? event.at,
		outcome: event.data.outcome ?? '?',
		trigger: event.data.trigger ?? '?',
	}));
	const fired = new Set(before.map(event => event.dedupKey).filter((key): key is string => typeof key === 'string'));
	const firings = planReactions({
		rules: options.rules,
		triggers: [...readTriggers(ledger, options.rules, before, now), ...(options.extra ?? [])],
		past,
		fired,
		liveness: liveness(ledger),
		now,
	});
	if (options.dryRun === true) return {firings, deliveries: []};
	if (firings.length > 0) ledger.writer.append(firings.flatMap(firing => firingEvents(firing, now)));
	const deliveries: ReactionsResult['deliveries'][number][] = [];
	const after = firings.length > 0 ? firedEvents() : before;
	const rules = new Map(options.rules.map(rule => [rule.name, rule]));
	for (const state of sendStates(ledger, after, now - TRIGGER_HORIZON_MS)) {
		const next = nextDelivery(state, now);
		if (next.kind === 'none') continue;
		if (next.kind === 'escalate') {
			const rule = rules.get(state.rule);
			if (rule === undefined) continue;
			const trigger: Trigger = {
				key: `delivery:${state.firedSeq}`,
				event: rule.on,
				taskId: state.taskId,
				at: now,
				seq: state.firedSeq,
				text: '',
				chain: [],
			};
			const firing: Firing = {
				rule,
				trigger,
				outcome: 'escalate',
				reason: next.reason,
				message: `${rule.name}: the send to task ${state.taskId} was not delivered (${next.reason}); a person decides`,
				dedupKey: firingKey(rule.name, trigger.key),
			};
			ledger.writer.append(firingEvents(firing, now));
			continue;
		}
		const task = ledger.reader.task(state.taskId);
		if (task === undefined) continue;
		const claim = ledger.writer.append([
			{
				taskId: state.taskId,
				type: EventType.reactionDelivery,
				at: now,
				source: 'reactions',
				dedupKey: `reaction-delivery:${state.firedSeq}:${next.attempt}:claim`,
				data: {rule: state.rule, firedSeq: state.firedSeq, attempt: next.attempt, outcome: 'attempting', detail: null},
			},
		]);
		// Another pass claimed this attempt first: it delivers, this one does not (at most once).
		if (claim.appended === 0) continue;
		let result: DeliveryResult;
		try {
			result = await options.deliver(task, state.message, {rule: state.rule, firedSeq: state.firedSeq});
		} catch (error) {
			result = {outcome: 'failed', detail: (error as Error).message.split('\n')[0] ?? 'failed'};
		}
		ledger.writer.append([
			{
				taskId: state.taskId,
				type: EventType.reactionDelivery,
				at: Date.now(),
				source: 'reactions',
				dedupKey: `reaction-delivery:${state.firedSeq}:${next.attempt}:result`,
				data: {rule: state.rule, firedSeq: state.firedSeq, attempt: next.attempt, outcome: result.outcome, detail: result.detail},
			},
		]);
		deliveries.push({taskId: state.taskId, rule: state.rule, attempt: next.attempt, result});
	}
	return {firings, deliveries};
}
