import type Database from 'better-sqlite3';

/** One forward step of the schema. Shipped entries are never edited; new ones are appended. */
type Migration = {readonly version: number; readonly up: (db: Database.Database) => void};

const MIGRATIONS: readonly Migration[] = [
	{
		version: 1,
		up(db) {
			db.exec(`
				CREATE TABLE events (
					seq INTEGER PRIMARY KEY AUTOINCREMENT,
					task_id TEXT NOT NULL,
					type TEXT NOT NULL,
					at INTEGER NOT NULL,
					source TEXT NOT NULL,
					data TEXT NOT NULL,
					dedup_key TEXT UNIQUE
				);
				CREATE INDEX events_by_task ON events(task_id, seq);
				CREATE INDEX events_by_type ON events(type, seq);
				CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events
					BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
				CREATE TRIGGER events_refuse_delete BEFORE DELETE ON events
					BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;

				CREATE TABLE tasks (
					id TEXT PRIMARY KEY,
					status TEXT NOT NULL,
					source TEXT NOT NULL,
					title TEXT,
					cwd TEXT,
					parent_id TEXT,
					session_id TEXT,
					pid INTEGER,
					created_at INTEGER NOT NULL,
					last_event_at INTEGER NOT NULL,
					ended_at INTEGER,
					last_seq INTEGER NOT NULL,
					doc TEXT NOT NULL
				);
				CREATE INDEX tasks_by_status ON tasks(status);
				CREATE INDEX tasks_by_ended ON tasks(ended_at);
				CREATE INDEX tasks_by_pid ON tasks(pid);

				CREATE TABLE rejects (
					id INTEGER PRIMARY KEY AUTOINCREMENT,
					at INTEGER NOT NULL,
					origin TEXT NOT NULL,
					line INTEGER,
					reason TEXT NOT NULL,
					raw TEXT,
					raw_bytes INTEGER NOT NULL,
					dedup_key TEXT UNIQUE
				);

				CREATE TABLE counters (
					name TEXT PRIMARY KEY,
					value INTEGER NOT NULL
				);
			`);
		},
	},
	{
		version: 2,
		up(db) {
			// Where the hook stopped reading each transcript, so a long one is never re-read from the start.
			db.exec(`
				CREATE TABLE transcript_cursors (
					path TEXT PRIMARY KEY,
					task_id TEXT NOT NULL,
					offset INTEGER NOT NULL,
					last_message_id TEXT,
					updated_at INTEGER NOT NULL
				);
			`);
		},
	},
	{
		version: 3,
		up(db) {
			// Ingest keys now begin with the line's own time, so a batch lands in order in the UNIQUE
			// index instead of all over it (docs/ledger.md, "Idempotence"). Rows are append-only and
			// keep the keys they were written with; a ledger that holds keys of the old shape
			// (sha1(line)#occurrence:index) is marked, and its ingests also look the old key up, so
			// re-reading a file ingested before this version still adds nothing.
			db.exec(`
				CREATE TABLE IF NOT EXISTS ledger_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
				INSERT OR IGNORE INTO ledger_meta (name, value)
					SELECT 'legacy_line_keys', 'yes' WHERE EXISTS (
						SELECT 1 FROM events WHERE dedup_key >= '0' AND dedup_key < 'g'
							AND dedup_key GLOB '${'[0-9a-f]'.repeat(40)}#*'
					) OR EXISTS (
						SELECT 1 FROM rejects WHERE dedup_key GLOB '*:${'[0-9a-f]'.repeat(40)}#*'
					);
			`);
		},
	},
	{
		version: 4,
		up(db) {
			// The host this ledger belongs to, for the fleet (docs/fleet.md): a random id made once, so
			// two machines with the same name never mix their events. Stored once, never changed.
			// Idempotent: a ledger made by the unmerged fleet branch already has this table at version 3.
			db.exec(`
				CREATE TABLE IF NOT EXISTS host (
					only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
					id TEXT NOT NULL,
					created_at INTEGER NOT NULL
				);
				INSERT OR IGNORE INTO host (only_row, id, created_at)
					VALUES (1, lower(hex(randomblob(16))), CAST(strftime('%s', 'now') AS INTEGER) * 1000);
				CREATE TRIGGER IF NOT EXISTS host_refuse_update BEFORE UPDATE ON host
					BEGIN SELECT RAISE(ABORT, 'the host id is set once'); END;
				CREATE TRIGGER IF NOT EXISTS host_refuse_delete BEFORE DELETE ON host
					BEGIN SELECT RAISE(ABORT, 'the host id is set once'); END;
			`);
		},
	},
];

/** The newest schema version this build knows. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** A ledger written by a newer controlroom: refused rather than misread. */
export class LedgerFromFutureError extends Error {
	constructor(found: number) {
		super(`ledger schema version ${found} is newer than this controlroom understands (${SCHEMA_VERSION}); upgrade controlroom`);
		this.name = 'LedgerFromFutureError';
	}
}

function assertMonotonic(): void {
	MIGRATIONS.forEach((migration, index) => {
		if (migration.version !== index + 1) throw new Error(`migration ${index} has version ${migration.version}`);
	});
}

/**
 * A ledger made by the fleet branch before it was merged (docs/ledger.md) reports version 3 but
 * holds the host table, not ledger_meta: version 3 there was the host migration. Version 3 of the
 * merged line is idempotent, so it is simply run again when ledger_meta is missing.
 */
function repairFleetBranchLedger(db: Database.Database, start: number): void {
	if (start !== 3) return;
	const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_meta'`).get();
	if (hasMeta === undefined) MIGRATIONS[2]?.up(db);
}

/** Runs every pending migration in one immediate transaction; refuses a schema from the future. */
export function migrate(db: Database.Database): void {
	assertMonotonic();
	const current = db.pragma('user_version', {simple: true}) as number;
	if (current > SCHEMA_VERSION) throw new LedgerFromFutureError(current);
	if (current === SCHEMA_VERSION) return;
	db.transaction(() => {
		// Re-read inside the write lock: another process may have migrated meanwhile.
		const start = db.pragma('user_version', {simple: true}) as number;
		if (start > SCHEMA_VERSION) throw new LedgerFromFutureError(start);
		for (const migration of MIGRATIONS) {
			if (migration.version > start) migration.up(db);
		}
		repairFleetBranchLedger(db, start);
		db.pragma(`user_version = ${SCHEMA_VERSION}`);
	}).immediate();
}
