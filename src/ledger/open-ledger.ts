import Database from 'better-sqlite3';
import {closeSync, copyFileSync, existsSync, mkdtempSync, openSync, renameSync, rmSync, statSync, unlinkSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {holdersOf, identityAt, isHeldHere, isSameFile, whereOpen, type FileIdentity, type Holder} from './file-identity.ts';
import {clearHandover, noteHandover, oldNameHolders} from './ledger-handover.ts';
import {LedgerFromFutureError, migrate, SCHEMA_VERSION} from './migrations.ts';
import {makePrivateDir, PRIVATE_FILE_MODE} from './private-files.ts';
import {readAtNow} from './read-at-now.ts';
import {createLedgerReader, type LedgerReader} from './reader.ts';
import {createLedgerWriter, type LedgerWriter} from './writer.ts';

/**
 * What happened to the ledger file under a running process: `moved` (it still exists, under
 * another name: `movedTo`), `deleted` (it has no name left), or `replaced` (another file now has
 * its name and it is gone). After a move the process reads the file at its path again, or, for a
 * writer that stays with its file (OpenOptions.onMove), goes on in `movedTo`.
 */
export type LedgerFileChange = {
	readonly kind: 'moved' | 'deleted' | 'replaced';
	readonly at: number;
	/** The name the ledger was held open by (its path, or where a writer had followed it). */
	readonly path: string;
	/** Where a moved ledger is now. */
	readonly movedTo?: string;
	/** The file this process reads and writes from now on: its path, or `movedTo` for a writer that stays. */
	readonly nowIn: string;
};

/** A ledger cannot be created: the WAL of a moved or deleted ledger by that name is still open in another process. */
export class LedgerWalHeldError extends Error {
	readonly holders: readonly Holder[];
	constructor(file: string, holders: readonly Holder[]) {
		const named = holders.map(holder => `${holder.name} (pid ${holder.pid})`).join(', ');
		super(
			`cannot create a ledger at ${file}: ${file}-wal belongs to a ledger that was moved or deleted and is still open in ${named}; nothing was removed (end that process first)`,
		);
		this.name = 'LedgerWalHeldError';
		this.holders = holders;
	}
}

/**
 * An open ledger: the store's whole interface. Everything outside src/ledger reads and writes
 * through these named calls (docs/ledger.md, "The store interface"); no one else sees SQL.
 */
export type Ledger = {
	/** The path it was opened at, for messages and for the spool beside it. */
	readonly path: string;
	/** The file open now: `path`, or where a moved ledger went, for a writer that stays with its file. */
	readonly file: string;
	/** Whether this open made the file (there was none at `path`): a command says so when it was not expected. */
	readonly isNewFile: boolean;
	/** The reads; after a reopen, those of the new file. */
	readonly reader: LedgerReader;
	/** The writes; after a reopen, those of the new file. */
	readonly writer: LedgerWriter;
	/** How many times the file was reopened: a reader that tails by `seq` starts over when it changes. */
	readonly generation: number;
	/** The last time the file was found moved, deleted or replaced (and reopened), or null. */
	readonly lastChange: LedgerFileChange | null;
	/**
	 * Checks that the name it holds open still names its file. When the file was moved, its WAL and
	 * shared memory are renamed to follow it (so nothing committed is missing from it) and the old
	 * connection is closed; when it was deleted or replaced, the old connection is closed. Then the
	 * path is opened again (a new, empty ledger if nothing is there) so later writes land where
	 * every other process looks, or, for a writer that stays (`onMove: 'stay'`), the moved file by
	 * its new name. Says what happened; null when nothing changed.
	 */
	verifyFile(): LedgerFileChange | null;
	/**
	 * Reads a view that is exactly the ledger at `now` (read-at-now.ts): every event that arrived by
	 * `now` is seen and none after, so `--at now` later selects exactly these events. The write lock
	 * is held only while the view is opened and `now` taken, never while `read` runs.
	 */
	readAt<T>(read: (now: number) => T): T;
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
	/**
	 * What a process does when its ledger file was moved: `follow-path` (the default: the board,
	 * the reconciler, sync) opens the path again; `stay` (a writer in the middle of its work: the
	 * wrapper, the gateway, the MCP server) goes on in the file it opened, under its new name.
	 */
	readonly onMove?: 'follow-path' | 'stay';
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

/** How long a new ledger waits for the holders of a moved or deleted ledger's WAL by its name (they look every 2 s). */
const HELD_WAL_WAIT_MS = 10_000;
/** Between two looks at those holders. */
const HELD_WAL_PAUSE_MS = 50;

const pause = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Runs `fn` under the ledger's creation lock: an exclusive SQLite lock on `FILE.lock`, which the
 * kernel drops if its holder dies. Creating a ledger, and handing a moved ledger's WAL over to its
 * new name, happen under it, so neither sees the other half done.
 */
function withCreationLock<T>(file: string, busyTimeoutMs: number, fn: () => T): T {
	const lockFile = `${file}.lock`;
	try {
		closeSync(openSync(lockFile, 'wx', PRIVATE_FILE_MODE));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
	}
	const lock = new Database(lockFile, {timeout: Math.max(busyTimeoutMs, 1000)});
	try {
		lock.exec('BEGIN EXCLUSIVE');
		return fn();
	} finally {
		if (lock.inTransaction) lock.exec('COMMIT');
		lock.close();
	}
}

/**
 * The WAL and shared memory a ledger left under `file`'s name when it is gone, cleared before a
 * new ledger is made there, and only when nothing holds them: a WAL that still holds frames is
 * kept beside it as `FILE-wal.orphaned-TIME` (it may be all that is left of a moved ledger's last
 * commits, docs/ledger.md); shared memory is only an index SQLite rebuilds. Returns the processes
 * that still hold them, and then touches nothing.
 */
function clearLeftovers(file: string): Holder[] {
	const wal = `${file}-wal`;
	const shm = `${file}-shm`;
	// Held under this name (a deleted ledger's holders), or a moved one's holders not yet handed over.
	const held = [...holdersOf(wal), ...holdersOf(shm), ...oldNameHolders(file)];
	if (held.length > 0) return [...new Map(held.map(holder => [holder.pid, holder])).values()];
	clearHandover(file);
	let walBytes = 0;
	try {
		walBytes = statSync(wal).size;
	} catch {
		// No WAL: nothing to keep.
	}
	if (walBytes > 0) renameSync(wal, `${wal}.orphaned-${new Date().toISOString().replace(/[:.]/g, '-')}`);
	else unlinkIfThere(wal);
	unlinkIfThere(shm);
	return [];
}

/**
 * Creates the ledger file when there is none, owner-only: SQLite would make it 0644 less the
 * umask, and it gives the WAL and shared-memory files the database file's own mode, so all three
 * are 0600. Creation happens under the creation lock, and never beside a WAL or shared memory by
 * the same name that some process still holds open (a moved or deleted ledger's): a new ledger
 * must never join it, and its holder's last close would remove the new ledger's by name. Those
 * holders let go within seconds (every long-lived process looks at its file every 2 s), so it
 * waits for them, and refuses with LedgerWalHeldError when they do not.
 */
function createIfMissing(file: string, busyTimeoutMs: number): boolean {
	if (existsSync(file)) return false;
	makePrivateDir(dirname(file));
	const deadline = Date.now() + HELD_WAL_WAIT_MS;
	for (;;) {
		let isMade = false;
		const held = withCreationLock(file, busyTimeoutMs, () => {
			if (existsSync(file)) return []; // another process made it while we waited
			const holders = clearLeftovers(file);
			if (holders.length > 0) return holders;
			closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
			isMade = true;
			return [];
		});
		if (held.length === 0) return isMade;
		if (Date.now() >= deadline) throw new LedgerWalHeldError(file, held);
		pause(HELD_WAL_PAUSE_MS);
	}
}

type Opened = {
	readonly db: Database.Database;
	readonly reader: LedgerReader;
	readonly writer: LedgerWriter;
	/** The name SQLite opened it by: its WAL and shared memory carry this name. */
	readonly name: string;
	/** The identity of the file at that name when it was opened: a change means it was moved, deleted or replaced. */
	readonly identity: FileIdentity | null;
	/** This open made the file. */
	readonly isNewFile?: boolean;
	readonly onClose: () => void;
};

function opened(file: string, db: Database.Database, onClose: () => void = () => undefined): Opened {
	// Taken after the open: the file SQLite opened is the one whose identity is watched.
	return {db, reader: createLedgerReader(db), writer: createLedgerWriter(db), name: file, identity: identityAt(file), onClose};
}

function closeQuietly(current: Opened): void {
	try {
		current.db.close();
		current.onClose();
	} catch {
		// A connection to a file that is gone: nothing left to save in it.
	}
}

/**
 * Hands a moved ledger over to its new name: under the creation lock of its old name, its WAL and
 * shared memory (still under the old name, held open by this process) are renamed to go with it,
 * so the moved file holds every committed event for anyone who opens it, and the old connection
 * is closed. No new ledger can be created under the old name meanwhile: SQLite's close of the last
 * connection removes the WAL and shared memory by the name they were opened by (docs/ledger.md).
 */
function handOver(current: Opened, movedTo: string, busyTimeoutMs: number): void {
	withCreationLock(current.name, busyTimeoutMs, () => {
		for (const suffix of ['-wal', '-shm']) {
			const old = `${current.name}${suffix}`;
			const next = `${movedTo}${suffix}`;
			if (!existsSync(next) && isHeldHere(old)) renameSync(old, next);
		}
		closeQuietly(current);
		// Only now may a new ledger be made under the old name, once every holder has done the same.
		noteHandover(current.name, movedTo);
	});
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
	const isNewFile = isCreating && createIfMissing(file, timeoutMs);
	const db = new Database(file, {timeout: timeoutMs, fileMustExist: !isCreating});
	try {
		enableWal(db, timeoutMs);
		db.pragma('synchronous = NORMAL');
		migrate(db);
	} catch (error) {
		db.close();
		throw error;
	}
	return {...opened(file, db), isNewFile};
}

/**
 * What the name a ledger is held open by says now: null when it still names the same file; else
 * whether the file was moved (and where to: the kernel's name for the descriptor SQLite holds),
 * deleted, or replaced.
 */
function lookAt(current: Opened): {readonly kind: LedgerFileChange['kind']; readonly movedTo: string | null} | null {
	const now = identityAt(current.name);
	if (isSameFile(now, current.identity)) return null;
	const where = current.identity === null ? null : whereOpen(current.identity);
	if (where !== null && where.links > 0 && where.path !== current.name) return {kind: 'moved', movedTo: where.path};
	return {kind: now === null ? 'deleted' : 'replaced', movedTo: null};
}

/** Opens (creating if needed) the ledger at `file`: WAL, migrations, prepared statements. */
export function openLedger(file: string, options: OpenOptions = {}): Ledger {
	let current = openDatabase(file, options);
	const isNewFile = current.isNewFile === true;
	let generation = 0;
	let lastChange: LedgerFileChange | null = null;
	const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
	return {
		path: file,
		get file() {
			return current.name;
		},
		isNewFile,
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
			const reopen = (change: Omit<LedgerFileChange, 'at'>): LedgerFileChange => {
				current = openDatabase(change.nowIn, change.nowIn === file ? options : {...options, mustExist: true});
				generation += 1;
				lastChange = {...change, at: Date.now()};
				return lastChange;
			};
			// A follower reading a moved ledger until a new one is made at its path goes there once it is.
			if (current.name !== file && options.onMove !== 'stay' && existsSync(file)) {
				const movedTo = current.name;
				closeQuietly(current);
				return reopen({kind: 'moved', path: file, movedTo, nowIn: file});
			}
			const seen = lookAt(current);
			if (seen === null) return null;
			const heldAs = current.name;
			if (seen.movedTo === null || options.isReadonly) {
				closeQuietly(current);
				return reopen({kind: seen.kind, path: heldAs, nowIn: file});
			}
			handOver(current, seen.movedTo, busyTimeoutMs);
			// A writer that stays goes on in the file it opened: the moved ledger, by its new name. A
			// follower reads the ledger at the path, or the moved one until a ledger is made there (it
			// makes none itself: that would wait for the other holders of the moved ledger).
			const nowIn = options.onMove !== 'stay' && existsSync(file) ? file : seen.movedTo;
			return reopen({kind: 'moved', path: heldAs, movedTo: seen.movedTo, nowIn});
		},
		readAt: read => readAtNow(current.db, current.name, busyTimeoutMs, read),
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
