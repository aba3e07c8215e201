import {effectState, stagedEffects, type ApproverCheck, type EffectRecord, type OrderRecord} from './fold.ts';
import {parseEffectId} from './plan.ts';
import {referencedIds} from './refs.ts';

/** What an approval will do, decided before anything is sent. */
export type ApprovalPlan = {
	/** Held effects to run, in the gateway's order. */
	readonly toRun: readonly EffectRecord[];
	/** Why an effect named with --only will not be sent (already finished, rejected, ...). */
	readonly notes: readonly string[];
	/** Anything here means nothing runs. */
	readonly problems: readonly string[];
	/** Held effects past the expiry, to record as expired. */
	readonly expired: readonly string[];
	/** Effects started whose approver is gone and whose end was never recorded: to record as outcome unknown. */
	readonly unknown: readonly string[];
};

function stateWords(effect: EffectRecord, now: number, isAlive: ApproverCheck): string {
	const state = effectState(effect, now, isAlive);
	if (state === 'finished') return effect.isError ? 'finished with an error' : 'finished';
	return state;
}

/**
 * Plans an approval of `only` (effect ids or placeholders; all held effects when empty): held
 * effects run in sequence; one that is not held is never sent again; a reference must point to an
 * effect that finished well or runs earlier in this approval.
 */
export function planApproval(
	order: OrderRecord,
	only: readonly string[],
	now: number,
	isAlive: ApproverCheck = () => true,
): ApprovalPlan {
	const staged = stagedEffects(order);
	const problems: string[] = [];
	const notes: string[] = [];
	const expired = staged
		.filter(effect => effect.expiredAt === null && effectState(effect, now, isAlive) === 'expired')
		.map(effect => effect.id);
	const unknown = staged
		.filter(effect => effect.unknownAt === null && effectState(effect, now, isAlive) === 'outcome unknown')
		.map(effect => effect.id);
	let chosen: EffectRecord[];
	if (only.length === 0) {
		chosen = staged.filter(effect => effectState(effect, now, isAlive) === 'held');
	} else {
		const ids = new Set<string>();
		for (const text of only) {
			const parsed = parseEffectId(text);
			const effect = parsed ? order.effects.find(candidate => candidate.id === parsed.id) : undefined;
			if (!parsed) problems.push(`${text}: not an effect id (UPSTREAM/TOOL#N)`);
			else if (!effect) problems.push(`${parsed.id}: ${order.id} has no such effect`);
			else if (effect.kind === 'read') problems.push(`${parsed.id}: a read, which is never held`);
			else if (effectState(effect, now, isAlive) !== 'held')
				notes.push(`${parsed.id}: ${stateWords(effect, now, isAlive)}, not sent again`);
			else ids.add(parsed.id);
		}
		chosen = staged.filter(effect => ids.has(effect.id));
	}
	const toRun = [...chosen].sort((a, b) => a.seq - b.seq);
	const running = new Set(toRun.map(effect => effect.id));
	for (const effect of toRun) {
		// A held effect the gateway could not have held (a row written into the ledger by hand) never runs.
		if (order.stagedTools !== null && !order.stagedTools.includes(`${effect.upstream}/${effect.tool}`)) {
			problems.push(
				`${effect.id}: ${effect.upstream}/${effect.tool} is not a tool ${order.id} holds for approval (the order as its gateway opened it): refused, nothing runs`,
			);
		}
		for (const id of referencedIds(effect.args)) {
			const target = order.effects.find(candidate => candidate.id === id);
			if (!target) {
				problems.push(`${effect.id} refers to ${id}, which ${order.id} does not have`);
			} else if (running.has(id)) {
				if (target.seq >= effect.seq) problems.push(`${effect.id} refers to ${id}, which comes after it`);
			} else if (target.finishedAt === null || target.isError) {
				problems.push(`${effect.id} refers to ${id}, which is ${stateWords(target, now, isAlive)}: approve it first or with it`);
			}
		}
	}
	return {toRun: problems.length > 0 ? [] : toRun, notes, problems, expired, unknown};
}

/** The effects whose outcome is unknown now: what a person asking for an approval could know of. */
export function unknownIds(order: OrderRecord | null, now: number, isAlive: ApproverCheck = () => true): ReadonlySet<string> {
	return new Set(
		(order?.effects ?? []).filter(effect => effectState(effect, now, isAlive) === 'outcome unknown').map(effect => effect.id),
	);
}

/**
 * The effect that halts an approval that waited for the order's lock: the earliest effect whose
 * outcome became unknown after the person asked (`askedUnknown`: those unknown then), when an
 * effect of this approval comes after it. The approval that held the lock died in that call, so
 * the later effects were approved on an order that no longer holds (docs/effects.md, "Approving,
 * rejecting"); null when nothing changed so.
 */
export function haltingUnknown(
	askedUnknown: ReadonlySet<string>,
	current: OrderRecord,
	toRun: readonly EffectRecord[],
	now: number,
	isAlive: ApproverCheck = () => true,
): EffectRecord | null {
	const last = toRun.reduce((highest, effect) => Math.max(highest, effect.seq), -Infinity);
	const halting = current.effects
		.filter(
			effect => effect.seq < last && !askedUnknown.has(effect.id) && effectState(effect, now, isAlive) === 'outcome unknown',
		)
		.sort((a, b) => a.seq - b.seq);
	return halting[0] ?? null;
}
