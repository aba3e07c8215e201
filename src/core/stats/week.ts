const DAY_MS = 24 * 60 * 60 * 1000;

/** The Monday 00:00 UTC that starts the ISO week holding `at` (docs/stats.md: weeks are UTC). */
export function weekStart(at: number): number {
	const day = Math.floor(at / DAY_MS) * DAY_MS;
	// getUTCDay: Sunday 0 … Saturday 6; the ISO week starts on Monday.
	const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
	return day - sinceMonday * DAY_MS;
}

/** The ISO 8601 week label of the week starting at `start` (a Monday, UTC): `2026-W49`. */
export function weekLabel(start: number): string {
	// The ISO week-numbering year is the year of the week's Thursday.
	const thursday = new Date(start + 3 * DAY_MS);
	const year = thursday.getUTCFullYear();
	const firstThursday = weekStart(Date.UTC(year, 0, 4)) + 3 * DAY_MS;
	const week = 1 + Math.round((thursday.getTime() - firstThursday) / (7 * DAY_MS));
	return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The starts of every week from the one holding `from` to the one holding `to`, oldest first. */
export function weeksBetween(from: number, to: number): number[] {
	const weeks: number[] = [];
	for (let start = weekStart(from); start <= to; start += 7 * DAY_MS) weeks.push(start);
	return weeks;
}
