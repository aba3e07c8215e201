import type {Tokens} from '../tokens.ts';
import {callsUsed, effectState, stagedEffects, type ApproverCheck, type OrderRecord} from './fold.ts';

/** A worker's track record over its orders (docs/effects.md, "Track record"). */
export type TrackRecord = {
	worker: string;
	orders: number;
	/** Orders approved without having been sent back first. */
	firstTimeApprovals: number;
	/** Times the worker's held effects were sent back. */
	rework: number;
	/** Effects that ran and failed, or whose outcome is unknown. */
	failures: number;
	expiries: number;
	/** Calls refused (outside the order, over the budget, staged in a derived order). */
	refusals: number;
	callsUsed: number;
	/** The sum of the orders' budgets. */
	callsBudget: number;
	/** Tokens the worker's tasks reported; null when none of its tasks is known or none reported. */
	tokens: number | null;
	lastAt: string;
};

/** Builds every worker's record from the orders and the tokens of the tasks they ran in. */
export function trackRecords(
	orders: Iterable<OrderRecord>,
	tokensOf: (taskId: string) => Tokens | undefined,
	now: number,
	isAlive?: ApproverCheck,
): TrackRecord[] {
	const byWorker = new Map<string, {record: TrackRecord; tasks: Set<string>}>();
	for (const order of orders) {
		const worker = order.worker ?? 'unknown';
		const entry = byWorker.get(worker) ?? {
			record: {
				worker,
				orders: 0,
				firstTimeApprovals: 0,
				rework: 0,
				failures: 0,
				expiries: 0,
				refusals: 0,
				callsUsed: 0,
				callsBudget: 0,
				tokens: null,
				lastAt: new Date(order.lastAt).toISOString(),
			},
			tasks: new Set<string>(),
		};
		const record = entry.record;
		record.orders += 1;
		const firstApproval = order.approvals.find(approval => approval.ids.length > 0);
		if (firstApproval && !order.sendBacks.some(sendBack => sendBack.at <= firstApproval.at)) record.firstTimeApprovals += 1;
		record.rework += order.sendBacks.filter(sendBack => sendBack.ids.length > 0).length;
		for (const effect of stagedEffects(order)) {
			const state = effectState(effect, now, isAlive);
			if (state === 'outcome unknown' || (state === 'finished' && effect.isError)) record.failures += 1;
			if (state === 'expired') record.expiries += 1;
		}
		record.refusals += order.refusals;
		record.callsUsed += callsUsed(order);
		record.callsBudget += order.budgetCalls ?? 0;
		const lastAt = new Date(order.lastAt).toISOString();
		if (lastAt > record.lastAt) record.lastAt = lastAt;
		for (const task of order.workerTasks) entry.tasks.add(task);
		byWorker.set(worker, entry);
	}
	for (const {record, tasks} of byWorker.values()) {
		const reported = [...tasks].map(task => tokensOf(task)?.total ?? null).filter((total): total is number => total !== null);
		record.tokens = reported.length === 0 ? null : reported.reduce((sum, total) => sum + total, 0);
	}
	return [...byWorker.values()].map(entry => entry.record).sort((a, b) => a.worker.localeCompare(b.worker));
}

/** One line for the drill-down and `workers`: `3 orders · 2 first-time approvals · 1 rework · ...`. */
export function describeTrackRecord(record: TrackRecord): string {
	return [
		`${record.orders} order${record.orders === 1 ? '' : 's'}`,
		`${record.firstTimeApprovals} approved first time`,
		`${record.rework} sent back`,
		`${record.failures} failed`,
		`${record.expiries} expired`,
		`${record.callsUsed}/${record.callsBudget} calls`,
		`tokens ${record.tokens === null ? 'unknown' : record.tokens}`,
	].join(' · ');
}
