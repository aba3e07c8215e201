import Database from 'better-sqlite3';
import {closeSync, copyFileSync, existsSync, mkdtempSync, openSync, rmSync, statSync, unlinkSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {LedgerFromFutureError, migrate, SCHEMA_VERSION} from './migrations.ts';
import {makePrivateDir, PRIVATE_FILE_MODE} from './private-files.ts';
import {createLedgerReader, type LedgerReader} from './reader.ts';
import {createLedgerWriter, type LedgerWriter} from './writer.ts';

/** The ledger file was deleted, or another file now has its name (it was replaced). */
export type LedgerFileChange = {readonly kind: 'deleted' | 'replaced'; readonly at: number; readonly path: string};

/**
 * An open ledger: the store's whole interface. Everything outside src/ledger reads and writes
 * through these named calls (docs/ledger.md, "The store interface"); no one else sees SQL.
 */
export type Ledger = {
	/** The file, for messages and for the spool beside it. */
	readonly path: string;
	/** The reads; after a reopen, those of the new file. */
	readonly reader: LedgerReader;
	/** The writes; after a reopen, those of the new file. */
	readonly writer: LedgerWriter;
	/** How many times the file was reopened: a reader that tails by `seq` starts over when it changes. */
	readonly generation: number;
	/** The last time the file was found deleted or replaced (and reopened), or null. */
	readonly lastChange: LedgerFileChange | null;
	/**
	 * Checks that the path still names the file this ledger holds open. When that file was deleted
	 * or replaced, reopens the path now (a new, empty ledger if nothing is there) so later writes
	 * land where every other process looks, and says what happened; null when nothing changed.
	 */
	verifyFile(): LedgerFileChange | null;
	/** SQLite's `PRAGMA quick_check`: an empty list when the file is sound, else the problems (the first ten). */
	quickCheck(): string[];
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
	/** Open for writing, but never create the file (the hook: no ledger means spool). */
	readonly mustExist?: boolean;
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

function unlinkIfThere(file: string): void {
	try {
		unlinkSync(file);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
	}
}

/**
 * Creates the ledger file when there is none, owner-only: SQLite would make it 0644 less the
 * umask, and it gives the WAL and shared-memory files the database file's own mode, so all three
 * are 0600. Creation happens under an exclusive lock (a SQLite lock on `ledger.db.lock`, which the
 * kernel drops if its holder dies) so that the WAL and shared-memory files a deleted ledger left
 * behind (other processes may still hold that ledger open) are removed before the new file exists,
 * and never by a second creator after the first has made its own: a new ledger must never join
 * the old one's WAL.
 */
function createIfMissing(file: string, busyTimeoutMs: number): void {
	if (existsSync(file)) return;
	makePrivateDir(dirname(file));
	const lockFile = `${file}.lock`;
	try {
		closeSync(openSync(lockFile, 'wx', PRIVATE_FILE_MODE));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
	}
	const lock = new Database(lockFile, {timeout: Math.max(busyTimeoutMs, 1000)});
	try {
		lock.exec('BEGIN EXCLUSIVE');
		if (existsSync(file)) return; // another process made it while we waited
		unlinkIfThere(`${file}-wal`);
		unlinkIfThere(`${file}-shm`);
		closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
	} finally {
		if (lock.inTransaction) lock.exec('COMMIT');
		lock.close();
	}
}

/** The identity of the file at a path (device and inode), or null when nothing is there. */
function identityOf(file: string): string | null {
	try {
		const stat = statSync(file);
		return `${stat.dev}:${stat.ino}`;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
		throw error;
	}
}

type Opened = {
	readonly db: Database.Database;
	readonly reader: LedgerReader;
	readonly writer: LedgerWriter;
	/** The identity of the file at the path when it was opened: a change means it was deleted or replaced. */
	readonly identity: string | null;
	readonly onClose: () => void;
};

function opened(file: string, db: Database.Database, onClose: () => void = () => undefined): Opened {
	// Taken after the open: the file SQLite opened is the one whose identity is watched.
	return {db, reader: createLedgerReader(db), writer: createLedgerWriter(db), identity: identityOf(file), onClose};
}

/** What a read-only open cannot do by itself: SQLite needs to create `-shm` beside a WAL ledger. */
const NEEDS_A_WRITABLE_FOLDER = new Set(['SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN', 'SQLITE_READONLY_CANTINIT']);

/**
 * Opens a ledger read-only in place when a writer's `-shm` is already beside it (a writer is at
 * work, or left it), so SQLite needs to create nothing there. Without one, a reader would create
 * `-shm` and `-wal` files as itself in someone else's folder, which can lock its owner out: null.
 * Null too when SQLite cannot read it in place, or the schema is older (it would need a migration).
 */
function openReadonlyInPlace(file: string, timeoutMs: number): Opened | null {
	if (!existsSync(`${file}-shm`)) return null;
	const db = new Database(file, {readonly: true, fileMustExist: true, timeout: timeoutMs});
	try {
		const version = db.pragma('user_version', {simple: true}) as number;
		if (version > SCHEMA_VERSION) throw new LedgerFromFutureError(version);
		if (version === SCHEMA_VERSION) return opened(file, db);
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
function openReadonlyCopy(file: string, timeoutMs: number): Opened {
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
		return opened(file, db, remove);
	} catch (error) {
		remove();
		throw error;
	}
}

function openDatabase(file: string, options: OpenOptions): Opened {
	const timeoutMs = options.busyTimeoutMs ?? 5000;
	if (options.isReadonly) return openReadonlyInPlace(file, timeoutMs) ?? openReadonlyCopy(file, timeoutMs);
	const isCreating = !options.mustExist;
	if (isCreating) createIfMissing(file, timeoutMs);
	const db = new Database(file, {timeout: timeoutMs, fileMustExist: !isCreating});
	try {
		enableWal(db, timeoutMs);
		db.pragma('synchronous = NORMAL');
		migrate(db);
	} catch (error) {
		db.close();
		throw error;
	}
	return opened(file, db);
}

/** Opens (creating if needed) the ledger at `file`: WAL, migrations, prepared statements. */
export function openLedger(file: string, options: OpenOptions = {}): Ledger {
	let current = openDatabase(file, options);
	let generation = 0;
	let lastChange: LedgerFileChange | null = null;
	return {
		path: file,
		get reader() {
			return current.reader;
		},
		get writer() {
			return current.writer;
		},
		get generation() {
			return generation;
		},
		get lastChange() {
			return lastChange;
		},
		verifyFile() {
			const now = identityOf(file);
			if (now !== null && now === current.identity) return null;
			const kind = now === null ? 'deleted' : 'replaced';
			try {
				current.db.close();
				current.onClose();
			} catch {
				// A connection to a file that is gone: nothing left to save in it.
			}
			current = openDatabase(file, options);
			generation += 1;
			lastChange = {kind, at: Date.now(), path: file};
			return lastChange;
		},
		quickCheck() {
			const rows = current.db.pragma('quick_check(10)', {simple: false}) as {quick_check: string}[];
			if (rows.length === 1 && rows[0]?.quick_check === 'ok') return [];
			// A row may hold several lines, the first naming the database ("*** in database main ***"):
			// one problem a line, without that header, so each prints as one line.
			return rows
				.flatMap(row => row.quick_check.split('\n'))
				.filter(line => line.trim() !== '' && !/^\*\*\* in database \S+ \*\*\*$/.test(line));
		},
		close: () => {
			current.db.close();
			current.onClose();
		},
	};
}
