import Database from 'better-sqlite3';
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {LedgerFromFutureError, migrate, SCHEMA_VERSION} from './migrations.ts';
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
	/**
	 * Open for reading only, never creating, migrating or writing the file (a ledger the user may
	 * not write, e.g. in a read-only folder). Its writer refuses every write.
	 */
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

function ledgerOn(file: string, db: Database.Database, onClose: () => void = () => undefined): Ledger {
	return {
		path: file,
		reader: createLedgerReader(db),
		writer: createLedgerWriter(db),
		close: () => {
			db.close();
			onClose();
		},
	};
}

/** What a read-only open cannot do by itself: SQLite needs to create `-shm` beside a WAL ledger. */
const NEEDS_A_WRITABLE_FOLDER = new Set(['SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN', 'SQLITE_READONLY_CANTINIT']);

/**
 * Opens a ledger read-only in place when a writer's `-shm` is already beside it (a writer is at
 * work, or left it), so SQLite needs to create nothing there. Without one, a reader would create
 * `-shm` and `-wal` files as itself in someone else's folder, which can lock its owner out: null.
 * Null too when SQLite cannot read it in place, or the schema is older (it would need a migration).
 */
function openReadonlyInPlace(file: string, timeoutMs: number): Ledger | null {
	if (!existsSync(`${file}-shm`)) return null;
	const db = new Database(file, {readonly: true, fileMustExist: true, timeout: timeoutMs});
	try {
		const version = db.pragma('user_version', {simple: true}) as number;
		if (version > SCHEMA_VERSION) throw new LedgerFromFutureError(version);
		if (version === SCHEMA_VERSION) return ledgerOn(file, db);
	} catch (error) {
		db.close();
		if (NEEDS_A_WRITABLE_FOLDER.has((error as {code?: string}).code ?? '')) return null;
		throw error;
	}
	db.close();
	return null;
}

/**
 * Reads a ledger the user cannot write through a private copy (with its `-wal`, so nothing
 * committed is missed) in a temporary folder, migrated there if it is older; removed on close.
 * The copy is never written back: writes to it are refused like any read-only ledger's.
 */
function openReadonlyCopy(file: string, timeoutMs: number): Ledger {
	const folder = mkdtempSync(join(tmpdir(), 'controlroom-readonly-'));
	const remove = () => rmSync(folder, {recursive: true, force: true});
	try {
		const copy = join(folder, 'ledger.db');
		copyFileSync(file, copy);
		if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
		const db = new Database(copy, {fileMustExist: true, timeout: timeoutMs});
		try {
			migrate(db);
			db.pragma('query_only = ON');
		} catch (error) {
			db.close();
			throw error;
		}
		return ledgerOn(file, db, remove);
	} catch (error) {
		remove();
		throw error;
	}
}

/** Opens (creating if needed) the ledger at `file`: WAL, migrations, prepared statements. */
export function openLedger(file: string, options: OpenOptions = {}): Ledger {
	const timeoutMs = options.busyTimeoutMs ?? 5000;
	if (options.isReadonly) return openReadonlyInPlace(file, timeoutMs) ?? openReadonlyCopy(file, timeoutMs);
	mkdirSync(dirname(file), {recursive: true});
	const db = new Database(file, {timeout: timeoutMs});
	try {
		enableWal(db, timeoutMs);
		db.pragma('synchronous = NORMAL');
		migrate(db);
	} catch (error) {
		db.close();
		throw error;
	}
	return ledgerOn(file, db);
}
