/** The narrowest the id column gets. */
const MIN_ID_COLUMN = 8;

function commonPrefixLength(a: string, b: string): number {
	let length = 0;
	while (length < a.length && length < b.length && a[length] === b[length]) length += 1;
	return length;
}

/** The shortest prefix of `id` no other id starts with (the whole id when another id extends it). */
export function uniquePrefixLength(id: string, others: Iterable<string>): number {
	let longest = 0;
	for (const other of others) if (other !== id) longest = Math.max(longest, commonPrefixLength(id, other));
	return Math.min(id.length, longest + 1);
}

/** How each id is written in a column, and the column's width. */
export type IdColumn = {readonly width: number; readonly shown: ReadonlyMap<string, string>};

/**
 * Sizes the id column to the ids shown: an id up to `cap` is written whole; a longer one is cut to
 * `cap` characters with `…`, or to its unique prefix among `known` (what `controlroom timeline` and
 * `stop` accept) where that is longer. Only ids longer than the cap are compared, so a board of
 * short ids pays nothing for it.
 */
export function layoutIds(ids: readonly string[], known: Iterable<string>, cap: number): IdColumn {
	const shown = new Map<string, string>();
	let width = MIN_ID_COLUMN;
	const long = ids.filter(id => id.length > cap);
	const knownIds = long.length > 0 ? [...known] : [];
	for (const id of ids) {
		if (id.length <= cap) {
			shown.set(id, id);
			width = Math.max(width, id.length);
			continue;
		}
		// As much as fits, and never less than what tells it apart.
		const prefix = Math.max(uniquePrefixLength(id, knownIds), cap - 1);
		const text = prefix >= id.length ? id : `${id.slice(0, prefix)}…`;
		shown.set(id, text);
		width = Math.max(width, text.length);
	}
	return {width, shown};
}
