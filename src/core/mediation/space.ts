/** An item's chosen option, for every contested item: one way the disagreement could be settled. */
export type Settlement = Readonly<Record<string, string>>;

/** The contested items and their options, in a fixed order (code-unit order, whatever the files said). */
export type SettlementSpace = {
	readonly items: readonly {readonly item: string; readonly options: readonly string[]}[];
};

/** Most settlements the engine enumerates; larger spaces are refused rather than searched blindly. */
export const MAX_SETTLEMENTS = 200_000;

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The space from the items and options the positions contest, in canonical order. */
export function spaceOf(items: Readonly<Record<string, readonly string[]>>): SettlementSpace {
	return {
		items: Object.keys(items)
			.sort(byCodeUnit)
			.map(item => ({item, options: [...(items[item] ?? [])].sort(byCodeUnit)})),
	};
}

/** How many settlements the space holds. */
export function sizeOf(space: SettlementSpace): number {
	return space.items.reduce((size, entry) => size * entry.options.length, 1);
}

/** Every settlement, in canonical order (the first item varies slowest). */
export function enumerateSettlements(space: SettlementSpace): Settlement[] {
	let settlements: Record<string, string>[] = [{}];
	for (const {item, options} of space.items) {
		const next: Record<string, string>[] = [];
		for (const settlement of settlements) for (const option of options) next.push({...settlement, [item]: option});
		settlements = next;
	}
	return settlements;
}
