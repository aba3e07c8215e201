import {foldOrders, ORDER_EVENT_TYPES, type OrderEvent, type OrderRecord} from '../../core/effects/fold.ts';
import {effectId} from '../../core/effects/plan.ts';
import {REFUSAL_BUDGET, refusalBudgetSpent, refusedArgsRecord} from '../../core/effects/refusal-bounds.ts';
import {EventType, newEvent, type LedgerEvent, type NewEvent} from '../../core/events.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import type {ToolCaller} from './caller.ts';

/** Who writes an order's events: the gateway, or an approval from the CLI or the board. */
export type EffectSource = 'gateway' | 'cli' | 'board' | 'reconciler' | 'fleet';

/** Results larger than this are kept in the ledger only in part (their structured content if it fits). */
export const MAX_RECORDED_RESULT_CHARS = 64 * 1024;

const isOrderEvent = (event: LedgerEvent): event is OrderEvent => (ORDER_EVENT_TYPES as readonly string[]).includes(event.type);

/** One order as the ledger holds it right now (read inside a transaction for a check-then-write). */
export function currentOrder(ledger: Ledger, orderId: string): OrderRecord | undefined {
	return foldOrders(ledger.reader.eventsOf(orderId).filter(isOrderEvent)).get(orderId);
}

/** An order event to append, stamped now. */
export function orderEvent<T extends OrderEvent['type']>(
	type: T,
	data: Parameters<typeof newEvent<T>>[1],
	orderId: string,
	source: EffectSource,
	at = Date.now(),
): NewEvent {
	return newEvent(type, data, {taskId: orderId, at, source});
}

/** A result as recorded: whole when small, else its structured content (if that fits) and its size. */
export function recordedResult(result: unknown): unknown {
	const text = JSON.stringify(result) ?? 'null';
	if (text.length <= MAX_RECORDED_RESULT_CHARS) return result;
	const structured = (result as {structuredContent?: unknown} | null)?.structuredContent;
	const structuredText = structured === undefined ? undefined : JSON.stringify(structured);
	return {
		truncated: true,
		chars: text.length,
		...(structuredText !== undefined && structuredText.length <= MAX_RECORDED_RESULT_CHARS
			? {structuredContent: structured}
			: {}),
	};
}

/** A call the gateway accepted (numbered within the order), or why it refused it. */
export type Admission = {readonly id: string; readonly seq: number} | {readonly refused: string};

/**
 * Admits one call against the order's budget and numbers it, in one transaction with the event
 * that records it, so two gateways serving the same order never reuse a number or overspend.
 */
export function admitCall(
	ledger: Ledger,
	orderId: string,
	budgetCalls: number,
	call: {
		readonly upstream: string;
		readonly tool: string;
		readonly args: unknown;
		readonly isStaged: boolean;
		readonly expiresMs: number;
		/** Who made the call, where the agent's hook said (recorded on a held effect). */
		readonly caller?: ToolCaller | null;
	},
): Admission {
	return ledger.writer.transaction((): Admission => {
		const order = currentOrder(ledger, orderId);
		const used = order?.effects.length ?? 0;
		const now = Date.now();
		const refusals = order?.refusals ?? 0;
		if (refusals >= REFUSAL_BUDGET) return {refused: recordRefusalIn(ledger, orderId, refusals, call, null)};
		if (used >= budgetCalls)
			return {refused: recordRefusalIn(ledger, orderId, refusals, call, `the order's budget of ${budgetCalls} calls is spent`)};
		const seq = Math.max(0, ...(order?.effects ?? []).map(effect => effect.seq)) + 1;
		const id = effectId(call.upstream, call.tool, seq);
		const base = {id, seq, upstream: call.upstream, tool: call.tool, args: call.args};
		ledger.writer.append([
			call.isStaged
				? orderEvent(
						EventType.effectHeld,
						{
							...base,
							expiresAt: now + call.expiresMs,
							toolUseId: call.caller?.toolUseId ?? null,
							session: call.caller?.session ?? null,
						},
						orderId,
						'gateway',
						now,
					)
				: orderEvent(EventType.effectRead, base, orderId, 'gateway', now),
		]);
		return {id, seq};
	});
}

/** A call to refuse, as the worker sent it. */
export type RefusedCall = {readonly upstream: string | null; readonly tool: string; readonly args: unknown};

/**
 * Records a refused call with a bounded excerpt of its arguments, counted against the order's
 * refusal budget (src/core/effects/refusal-bounds.ts), and returns the reason the worker is told.
 * Past the budget the reason is the budget's, and the arguments are not kept at all.
 */
export function refuseCall(ledger: Ledger, orderId: string, call: RefusedCall, reason: string): string {
	return ledger.writer.transaction(() =>
		recordRefusalIn(ledger, orderId, currentOrder(ledger, orderId)?.refusals ?? 0, call, reason),
	);
}

/** Inside a transaction: `reason` null means only the refusal budget refuses the call. */
function recordRefusalIn(ledger: Ledger, orderId: string, refusals: number, call: RefusedCall, reason: string | null): string {
	const isOverBudget = refusals >= REFUSAL_BUDGET;
	const told = isOverBudget ? refusalBudgetSpent(refusals) : (reason ?? refusalBudgetSpent(refusals));
	ledger.writer.append([
		orderEvent(
			EventType.effectRefused,
			{
				upstream: call.upstream,
				tool: call.tool,
				reason: isOverBudget && reason !== null ? `${told} (and: ${reason})` : told,
				args: refusedArgsRecord(call.args, isOverBudget),
			},
			orderId,
			'gateway',
		),
	]);
	return told;
}
