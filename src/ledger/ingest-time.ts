/** The number the 1 to 4 digits at `start` spell, or -1 when one of them is not a digit. */
function digitsAt(text: string, start: number, count: number): number {
	let value = 0;
	for (let index = start; index < start + count; index += 1) {
		const digit = text.charCodeAt(index) - 0x30;
		if (digit < 0 || digit > 9) return -1;
		value = value * 10 + digit;
	}
	return value;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The milliseconds of `YYYY-MM-DDTHH:MM:SS.mmmZ` (toISOString's form, 24 characters) naming a real
 * instant, by hand; null for any other text. Date.parse and a round trip through toISOString cost
 * several microseconds a line.
 */
export function canonicalIsoTime(at: string): number | null {
	const isShaped =
		at.charCodeAt(4) === 0x2d &&
		at.charCodeAt(7) === 0x2d &&
		at.charCodeAt(10) === 0x54 &&
		at.charCodeAt(13) === 0x3a &&
		at.charCodeAt(16) === 0x3a &&
		at.charCodeAt(19) === 0x2e;
	if (!isShaped) return null;
	const year = digitsAt(at, 0, 4);
	const month = digitsAt(at, 5, 2);
	const day = digitsAt(at, 8, 2);
	const hour = digitsAt(at, 11, 2);
	const minute = digitsAt(at, 14, 2);
	const second = digitsAt(at, 17, 2);
	const milli = digitsAt(at, 20, 3);
	// Date.UTC reads years below 100 as 19xx: those (and anything odd) are left to the schema.
	if (year < 100 || month < 1 || month > 12 || day < 1 || milli < 0) return null;
	if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return null;
	const isLeap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
	if (day > (month === 2 && isLeap ? 29 : (DAYS_IN_MONTH[month - 1] as number))) return null;
	return Date.UTC(year, month - 1, day, hour, minute, second, milli);
}
