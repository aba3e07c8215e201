import type Database from 'better-sqlite3';
import {chainEventsFromStart} from './chain-backfill.ts';

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
	{
		version: 5,
		up(db) {
			// Claude's last own count read from each transcript (its `cost-state` line, as JSON): a run
			// that resumes the session later starts from it (docs/tree-and-cost.md, "Resumed sessions").
			// Idempotent, as version 4: a ledger brought back to an older version number keeps its column.
			const columns = db.prepare('PRAGMA table_info(transcript_cursors)').all() as {name: string}[];
			if (!columns.some(column => column.name === 'cost_state'))
				db.exec('ALTER TABLE transcript_cursors ADD COLUMN cost_state TEXT');
		},
	},
	{
		version: 6,
		up(db) {
			// The flight recorder (docs/ledger.md, "The hash chain", "Arrival"): each event carries
			// when it arrived in the ledger and its link in a SHA-256 chain, written with it. An
			// existing ledger is chained from its first event now, so what came before is covered
			// from this moment on (ledger_meta names the moment and the first seq); its events keep
			// no arrival time (null: it was never recorded). The update trigger is set aside only
			// while the chain is written into the rows it already had.
			// Idempotent, as versions 3 and 4 are. A ledger that already has its chain (made by a build
			// whose version 5 was this one) is never chained again: that would make a link for whatever
			// was changed in it since, and say it was chained now.
			const columns = new Set((db.prepare('PRAGMA table_info(events)').all() as {name: string}[]).map(column => column.name));
			if (!columns.has('arrived_at')) db.exec('ALTER TABLE events ADD COLUMN arrived_at INTEGER');
			const isChained = columns.has('hash');
			if (!isChained) db.exec('ALTER TABLE events ADD COLUMN hash BLOB');
			db.exec('DROP TRIGGER IF EXISTS events_refuse_update; DROP TRIGGER IF EXISTS events_need_a_link;');
			if (!isChained) chainEventsFromStart(db);
			db.exec(`
				CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events
					BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
				CREATE TRIGGER events_need_a_link BEFORE INSERT ON events WHEN NEW.hash IS NULL OR length(NEW.hash) <> 32
					BEGIN SELECT RAISE(ABORT, 'every event carries its link in the chain'); END;
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

/**
 * A ledger made by a build whose version 5 was the hash chain (before the transcripts' cost_state
 * took that number) reports version 5 and holds the chain but not cost_state. Version 5 is
 * idempotent, so it is run when its column is missing; version 6 then finds the chain there.
 */
function repairEarlyChainLedger(db: Database.Database, start: number): void {
	if (start !== 5) return;
	const columns = db.prepare('PRAGMA table_info(transcript_cursors)').all() as {name: string}[];
	if (!columns.some(column => column.name === 'cost_state')) MIGRATIONS[4]?.up(db);
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
		// First: later migrations (the chain's) keep what they note in ledger_meta.
		repairFleetBranchLedger(db, start);
		repairEarlyChainLedger(db, start);
		for (const migration of MIGRATIONS) {
			if (migration.version > start) migration.up(db);
		}
		db.pragma(`user_version = ${SCHEMA_VERSION}`);
	}).immediate();
}
