import Database from 'better-sqlite3';

/**
 * Opens the ledger file as SQLite itself sees it, bypassing the store, for tests that check
 * what the store guarantees below its interface (triggers, cursors, pragmas) or that break it
 * on purpose. Production code never does this: all SQL lives in src/ledger.
 */
export function withRawDb<T>(file: string, fn: (db: Database.Database) => T): T {
	const db = new Database(file);
	try {
		return fn(db);
	} finally {
		db.close();
	}
}
