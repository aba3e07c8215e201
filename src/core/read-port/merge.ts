import {STATUSES, type Status} from '../status.ts';

/**
 * Merges lists that are each in order already (one a host) into one: at each step the first
 * remaining entry of the list whose head comes first by `compare` (the earlier list on a tie).
 * Entries of one list keep their order, so one list comes back as it was: a fleet of one host
 * shows what the host itself shows.
 */
export function mergeOrdered<T>(lists: readonly (readonly T[])[], compare: (a: T, b: T) => number): T[] {
	if (lists.length === 1) return [...(lists[0] ?? [])];
	const heads = lists.map(() => 0);
	const merged: T[] = [];
	for (;;) {
		let best = -1;
		for (let index = 0; index < lists.length; index += 1) {
			const head = lists[index]![heads[index]!];
			if (head === undefined) continue;
			if (best === -1 || compare(head, lists[best]![heads[best]!]!) < 0) best = index;
		}
		if (best === -1) return merged;
		merged.push(lists[best]![heads[best]!]!);
		heads[best]! += 1;
	}
}

/** Tasks per status summed over hosts. */
export function sumStatusCounts(counts: readonly Readonly<Record<Status, number>>[]): Record<Status, number> {
	const total = Object.fromEntries(STATUSES.map(status => [status, 0])) as Record<Status, number>;
	for (const each of counts) for (const status of STATUSES) total[status] += each[status] ?? 0;
	return total;
}
