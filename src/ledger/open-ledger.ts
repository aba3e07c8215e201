import Database from 'better-sqlite3';
import {closeSync, openSync} from 'node:fs';
import {dirname} from 'node:path';
import {migrate} from './migrations.ts';
import {makePrivateDir, PRIVATE_FILE_MODE} from './private-files.ts';
import {createLedgerReader, type LedgerReader} from './reader.ts';
import {createLedgerWriter, type LedgerWriter} from './writer.ts';

/**
 * An open ledger: the store's whole interface. Everything outside src/ledger reads and writes
 * through these named calls (docs/ledger.md, "The store interface"); no one else sees SQL.
 */
export type Ledger = {
	/** The file, for messages and for the spool beside it. */
	readonly path: string;
	readonly reader: LedgerReader;
	readonly writer: LedgerWriter;
	close(): void;
};

export type OpenOptions = {
	/** How long to wait for another writer's lock, in ms (the hook waits 25). */
	readonly busyTimeoutMs?: number;
	/** Open without creating or migrating; fails if the file is absent. */
	readonly isReadonly?: boolean;
};

/**
 * Switches a new file to WAL. The switch needs an exclusive lock, and SQLite answers SQLITE_BUSY
 * at once instead of waiting through the busy handler when another process opens the same new
 * file at that moment (two wrappers started together on a fresh install): retry within the
 * caller's busy timeout.
 */
function enableWal(db: Database.Database, timeoutMs: number): void {
	const deadline = Date.now() + timeoutMs;
	const pause = new Int32Array(new SharedArrayBuffer(4));
	for (;;) {
		try {
			if (db.pragma('journal_mode', {simple: true}) !== 'wal') db.pragma('journal_mode = WAL');
			return;
		} catch (error) {
			if ((error as {code?: unknown}).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
			Atomics.wait(pause, 0, 0, 5);
		}
	}
}

/**
 * Creates the ledger file owner-only before SQLite does: SQLite would make it 0644 less the umask,
 * and it gives the WAL and shared-memory files the database file's own mode, so all three are 0600.
 */
function createPrivately(file: string): void {
	makePrivateDir(dirname(file));
	try {
		closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
	}
}

/** Opens (creating if needed) the ledger at `file`: WAL, migrations, prepared statements. */
export function openLedger(file: string, options: OpenOptions = {}): Ledger {
	if (!options.isReadonly) createPrivately(file);
	const db = new Database(file, {
		timeout: options.busyTimeoutMs ?? 5000,
		readonly: options.isReadonly ?? false,
		fileMustExist: options.isReadonly ?? false,
	});
	try {
		if (!options.isReadonly) {
			enableWal(db, options.busyTimeoutMs ?? 5000);
			db.pragma('synchronous = NORMAL');
			migrate(db);
		}
	} catch (error) {
		db.close();
		throw error;
	}
	return {
		path: file,
		reader: createLedgerReader(db),
		writer: createLedgerWriter(db),
		close: () => db.close(),
	};
}
