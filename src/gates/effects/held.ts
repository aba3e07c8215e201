import {planApproval} from '../../core/effects/approval.ts';
import {effectState, type ApproverCheck} from '../../core/effects/fold.ts';
import type {Door} from '../../core/actor.ts';
import {EventType} from '../../core/events.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {readOrders} from '../../ledger/orders.ts';
import {requirePerson} from '../person-gate.ts';
import {isApproverAlive} from './liveness.ts';
import {currentOrder, orderEvent, type EffectSource} from './record.ts';

// What happens to held effects without any of them running: expiry, approvals whose approver died,
// send-back. Apart from approve.ts on purpose: the board's reconciler pass and `x` need these at
// once, and approve.ts loads the MCP client, which the board loads only when `a` is pressed.

/** An approval that cannot start: no such order, its file is gone or changed. Nothing ran. */
export class ApprovalError extends Error {}

/** Records held effects past expiry and dead approvals as such; returns what it recorded. */
export function recordSettled(
	ledger: Ledger,
	orderId: string,
	source: EffectSource,
	now: number,
	isAlive: ApproverCheck = isApproverAlive,
): {expired: string[]; unknown: string[]} {
	return ledger.writer.transaction(() => {
		const order = currentOrder(ledger, orderId);
		if (!order) return {expired: [], unknown: []};
		const plan = planApproval(order, [], now, isAlive);
		const events = [
			...plan.expired.map(id => orderEvent(EventType.effectExpired, {id}, orderId, source, now)),
			...plan.unknown.map(id =>
				orderEvent(
					EventType.effectOutcomeUnknown,
					{id, reason: 'started, and its approver ended before recording the end'},
					orderId,
					source,
					now,
				),
			),
		];
		if (events.length > 0) ledger.writer.append(events);
		return {expired: [...plan.expired], unknown: [...plan.unknown]};
	});
}

/** What a send-back did. */
export type SendBackResult = {readonly ids: readonly string[]; readonly expired: readonly string[]};

/** Sends an order's held effects back with a reason (docs/effects.md, "Approving, rejecting"): they are dropped, nothing ran. */
export function sendBackEffects(
	ledger: Ledger,
	orderId: string,
	reason: string,
	source: EffectSource,
	door?: Door,
): SendBackResult {
	const person = requirePerson(ledger, {verb: 'effects reject', target: orderId, source, ...(door ? {door} : {})});
	const now = Date.now();
	const found = currentOrder(ledger, orderId);
	if (!found || found.openedAt === null)
		throw new ApprovalError(`no order ${orderId} in the ledger (a gateway records it when it opens)`);
	const settled = recordSettled(ledger, orderId, source, now);
	return ledger.writer.transaction(() => {
		const order = currentOrder(ledger, orderId) ?? found;
		const ids = order.effects
			.filter(effect => effect.kind === 'staged' && effectState(effect, now) === 'held')
			.map(effect => effect.id);
		if (ids.length > 0)
			ledger.writer.append([orderEvent(EventType.orderSentBack, {ids, reason, by: person.user}, orderId, source, now)]);
		return {ids, expired: settled.expired};
	});
}

/** What sending an order's held effects back did, in one line for a person. */
export type HeldSentBack = SendBackResult & {readonly message: string};

/** `x` on a held order (the board's own, or asked through the fleet): sends its held effects back with the reason. */
export function sendBackHeld(ledger: Ledger, orderId: string, reason: string, source: EffectSource, door?: Door): HeldSentBack {
	const result = sendBackEffects(ledger, orderId, reason, source, door);
	const message = result.ids.length === 0 ? `nothing held in ${orderId}` : `sent back ${result.ids.join(', ')}: ${reason}`;
	return {...result, message};
}

/** A reconciler pass over orders: records held effects past expiry, and started ones whose approver died. */
export function settleEffects(ledger: Ledger, now = Date.now()): void {
	for (const order of readOrders(ledger.reader).values()) {
		const plan = planApproval(order, [], now, isApproverAlive);
		if (plan.expired.length > 0 || plan.unknown.length > 0) recordSettled(ledger, order.id, 'reconciler', now);
	}
}
