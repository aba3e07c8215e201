// "Did you mean": the nearest known name to a mistyped one, as git and npm suggest. Edit distance
// (Damerau: a swap of two letters is one edit), and only a near one: a suggestion two edits away in
// a four-letter word would be a guess, not a correction.

function editDistance(a: string, b: string): number {
	const rows = Array.from({length: a.length + 1}, (_, i) =>
		Array.from({length: b.length + 1}, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
	);
	for (let i = 1; i <= a.length; i += 1) {
		for (let j = 1; j <= b.length; j += 1) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			const row = rows[i] as number[];
			const above = rows[i - 1] as number[];
			row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
				row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
			}
		}
	}
	return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The known name nearest to `typed`, or null when none is near enough: within one edit for names of
 * up to four letters, two up to eight, three beyond; a name `typed` starts (`snap` → `snapshot`) counts too.
 */
export function nearestName(typed: string, known: Iterable<string>): string | null {
	const wanted = typed.toLowerCase();
	if (wanted === '') return null;
	let best: {name: string; distance: number} | null = null;
	for (const name of known) {
		const distance = name.startsWith(wanted) && wanted.length >= 3 ? 0.5 : editDistance(wanted, name.toLowerCase());
		if (best === null || distance < best.distance) best = {name, distance};
	}
	if (best === null) return null;
	const allowed = wanted.length <= 4 ? 1 : wanted.length <= 8 ? 2 : 3;
	return best.distance <= allowed ? best.name : null;
}
