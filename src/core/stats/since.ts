import {parseDuration} from '../duration.ts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * `--since DATE|DURATION` at `now` (docs/stats.md): a date is its midnight UTC, a time needs its
 * zone (`Z` or `+01:00`: a time without one would mean another moment on another machine), a
 * duration counts back from now. A string explaining what was expected when it is none of them,
 * or a moment after now.
 */
export function parseSince(text: string, now: number): number | string {
	const given = text.trim();
	const date = DATE.exec(given);
	let at: number | null = null;
	if (date) {
		const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
		const midnight = Date.UTC(year, month - 1, day);
		// Date.UTC rolls 2026-02-30 over to March: a date that does not exist is refused.
		const back = new Date(midnight);
		if (back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day) at = midnight;
	} else if (TIME.test(given)) {
		const parsed = Date.parse(given);
		at = Number.isNaN(parsed) ? null : parsed;
	} else {
		const ms = parseDuration(given);
		at = ms === null ? null : now - ms;
	}
	if (at === null) return 'expected a date (2026-11-30), a time with its zone (2026-11-30T09:00Z) or a duration (7d, 36h, 2w)';
	if (at > now) return 'it is after now';
	return at;
}
