import type {HeldEffectRef} from '../../core/board/effects-view.ts';
import {planApproval} from '../../core/effects/approval.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {readOrders} from '../../ledger/orders.ts';
import {approveEffects, recordSettled, sendBackEffects} from './approve.ts';
import {isApproverAlive} from './liveness.ts';

/**
 * The board's `a`: approves the chosen held effects, order by order, through the same function as
 * `controlroom effects approve`; returns one line saying how it went.
 */
export async function approveFromBoard(
	ledger: Ledger,
	refs: readonly HeldEffectRef[],
): Promise<{readonly isSuccess: boolean; readonly message: string}> {
	const byOrder = new Map<string, string[]>();
	for (const ref of refs) byOrder.set(ref.orderId, [...(byOrder.get(ref.orderId) ?? []), ref.id]);
	const parts: string[] = [];
	let isSuccess = true;
	for (const [orderId, ids] of byOrder) {
		const result = await approveEffects(ledger, orderId, {only: ids, source: 'board'});
		if (result.problems.length > 0) {
			isSuccess = false;
			parts.push(`${orderId}: nothing ran: ${result.problems.join('; ')}`);
			continue;
		}
		isSuccess &&= result.isSuccess;
		const outcomes = result.outcomes.map(
			outcome => `${outcome.id} ${outcome.outcome}${outcome.detail ? ` (${outcome.detail})` : ''}`,
		);
		parts.push(`${orderId}: ${[...outcomes, ...result.notes].join(', ') || 'nothing held'}`);
	}
	return {isSuccess, message: parts.join(' · ')};
}

/** The board's `x` on a held order: sends its held effects back with the reason. */
export function sendBackFromBoard(ledger: Ledger, orderId: string, reason: string): {readonly message: string} {
	const result = sendBackEffects(ledger, orderId, reason, 'board');
	return {message: result.ids.length === 0 ? `nothing held in ${orderId}` : `sent back ${result.ids.join(', ')}: ${reason}`};
}

/** A reconciler pass over orders: records held effects past expiry, and started ones whose approver died. */
export function settleEffects(ledger: Ledger, now = Date.now()): void {
	for (const order of readOrders(ledger.reader).values()) {
		const plan = planApproval(order, [], now, isApproverAlive);
		if (plan.expired.length > 0 || plan.unknown.length > 0) recordSettled(ledger, order.id, 'reconciler', now);
	}
}
