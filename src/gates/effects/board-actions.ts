import type {HeldEffectRef} from '../../core/board/effects-view.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {approveEffects} from './approve.ts';

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
