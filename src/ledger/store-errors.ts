/**
 * SQLite errors a line's own content can cause (a value too big, a constraint it breaks); every
 * other SQLite error is about the store (busy, full disk, I/O, corruption, read-only) and says
 * nothing about the input, so input is never set aside for it.
 */
const INPUT_CODES = /^SQLITE_(TOOBIG|MISMATCH|RANGE|CONSTRAINT)/;

/** The error code of a better-sqlite3 error (`SQLITE_BUSY`, `SQLITE_FULL`, …), or null for any other error. */
export function sqliteCode(error: unknown): string | null {
	const code = (error as {code?: unknown} | null)?.code;
	return typeof code === 'string' && code.startsWith('SQLITE_') ? code : null;
}

/** True when the store failed (not the input): the input must stay where it is, to be read again. */
export function isStoreFault(error: unknown): boolean {
	const code = sqliteCode(error);
	return code !== null && !INPUT_CODES.test(code);
}
