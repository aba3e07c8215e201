import Database from 'better-sqlite3';

/**
 * How far the clock may be behind the ledger's newest arrival (it was stepped back) for a read to
 * wait, holding the write lock, until it has caught up. Beyond that the read does not wait: its
 * now is that arrival, and events written before the clock catches up arrive at it too
 * (docs/flight-recorder.md, "Arrival, and the ledger at a moment").
 */
const MAX_CLOCK_CATCH_UP_MS = 50;

/** Until the clock reads later than `at` (at most a millisecond), unless it is further behind than MAX_CLOCK_CATCH_UP_MS. */
function waitPast(at: number): void {
	if (at - Date.now() > MAX_CLOCK_CATCH_UP_MS) return;
	while (Date.now() <= at) {
		// A spin: the clock moves on within a millisecond, and a sleep could keep the lock longer.
	}
}

/**
 * Reads a view that is exactly the ledger at its now (docs/flight-recorder.md, "Arrival, and the
 * ledger at a moment"): every event that arrived by now is seen, and none after, so `--at now`
 * later selects exactly what was read.
 *
 * The ledger's write lock is held only for an instant, on a connection of its own (`BEGIN
 * IMMEDIATE`: no writer is mid-transaction then). Under it the reading connection opens its read
 * transaction with its first read (so it sees every commit and none to come), now is taken, no
 * earlier than the newest event's arrival, and the clock is let pass now (writers stamp an event's
 * arrival from the clock inside their own transaction, writer.ts, so every later one arrives after
 * now). Then the lock is let go and `read` runs at leisure inside the read transaction, while
 * writers go on.
 *
 * A ledger this process cannot write (opened read-only in place) takes no lock: its read is one
 * read transaction with now taken at its first read, as a writer of the file may still be at work.
 * One read through a private copy (query_only) has no writer beside it.
 */
export function readAtNow<T>(db: Database.Database, file: string, busyTimeoutMs: number, read: (now: number) => T): T {
	// Inside the caller's own transaction the view is already fixed: read it there.
	if (db.inTransaction) return read(Date.now());
	const newestArrival = db.prepare('SELECT arrived_at FROM events ORDER BY seq DESC LIMIT 1').pluck();
	const canWrite = !db.readonly && db.pragma('query_only', {simple: true}) !== 1;
	db.exec('BEGIN');
	try {
		const now = canWrite ? nowUnderTheLock(file, busyTimeoutMs, () => newestArrival.get()) : firstRead(newestArrival);
		const result = read(now);
		db.exec('COMMIT');
		return result;
	} finally {
		if (db.inTransaction) db.exec('ROLLBACK');
	}
}

function firstRead(newestArrival: Database.Statement): number {
	newestArrival.get();
	return Date.now();
}

/**
 * Takes the write lock on a connection of its own, runs the reading connection's first read under
 * it, and returns now once the clock has passed it; the lock is let go before this returns.
 */
function nowUnderTheLock(file: string, busyTimeoutMs: number, firstReadOfTheView: () => unknown): number {
	const lock = new Database(file, {fileMustExist: true, timeout: busyTimeoutMs});
	try {
		lock.exec('BEGIN IMMEDIATE');
		try {
			const newest = firstReadOfTheView();
			const now = Math.max(Date.now(), typeof newest === 'number' ? newest : 0);
			waitPast(now);
			return now;
		} finally {
			lock.exec('ROLLBACK');
		}
	} finally {
		lock.close();
	}
}
