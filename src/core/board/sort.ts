import {assertNever} from '../assert-never.ts';
import type {Task} from '../task.ts';

/** How rows are ordered inside each lane; `o` cycles through them in this order. */
export const SORT_ORDERS = ['newest', 'idle', 'tokens', 'title'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** The header's words for each order. */
export const SORT_LABELS: Readonly<Record<SortOrder, string>> = {
	newest: 'newest',
	idle: 'longest idle',
	tokens: 'most tokens',
	title: 'title',
};

/** The order after `order`, wrapping around. */
export function nextSortOrder(order: SortOrder): SortOrder {
	return SORT_ORDERS[(SORT_ORDERS.indexOf(order) + 1) % SORT_ORDERS.length] ?? 'newest';
}

/** Unknown sorts last in either direction: a missing value is never taken for 0 (or for "most"). */
function byKnown(a: number | null, b: number | null, descending: boolean): number {
	if (a === null || b === null) return (a === null ? 1 : 0) - (b === null ? 1 : 0);
	return descending ? b - a : a - b;
}

/**
 * Compares two tasks of one lane. Newest: started (or, in recently ended, ended) most recently
 * first. Longest idle: the oldest last sign of life first. Most tokens: the largest known total
 * first, unknown last. Title: alphabetical, untitled last. Ties go by id, so the order is stable.
 */
export function compareTasks(order: SortOrder, isEndedLane: boolean): (a: Task, b: Task) => number {
	const byId = (a: Task, b: Task) => a.id.localeCompare(b.id);
	switch (order) {
		case 'newest':
			return isEndedLane
				? (a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0) || byId(a, b)
				: (a, b) => b.createdAt - a.createdAt || byId(a, b);
		case 'idle':
			return (a, b) => a.lastSeenAt - b.lastSeenAt || byId(a, b);
		case 'tokens':
			return (a, b) => byKnown(a.tokens.total, b.tokens.total, true) || byId(a, b);
		case 'title':
			return (a, b) =>
				(a.title === null ? 1 : 0) - (b.title === null ? 1 : 0) ||
				(a.title ?? '').localeCompare(b.title ?? '', undefined, {sensitivity: 'base'}) ||
				byId(a, b);
		default:
			return assertNever(order);
	}
}
