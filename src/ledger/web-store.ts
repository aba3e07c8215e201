import Database from 'better-sqlite3';
import {closeSync, openSync} from 'node:fs';
import {PRIVATE_FILE_MODE} from './private-files.ts';

// The web board's sign-in (docs/web.md, "Signing in"), kept in the access store's file beside the
// ledger (`ledger.access.db`, private): one-time sign-in links a person printed at a terminal, and
// the sessions they started. Secrets are kept only as SHA-256 hashes. Tables of their own, created
// when missing, so the access store's own schema is untouched.

const TABLES = `
	CREATE TABLE IF NOT EXISTS web_links (
		hash TEXT PRIMARY KEY,
		created_at INTEGER NOT NULL,
		expires_at INTEGER NOT NULL,
		created_by TEXT NOT NULL,
		used_at INTEGER
	);
	CREATE TABLE IF NOT EXISTS web_sessions (
		id TEXT PRIMARY KEY,
		hash TEXT NOT NULL UNIQUE,
		person TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		expires_at INTEGER NOT NULL,
		user_agent TEXT NOT NULL,
		revoked_at INTEGER,
		revoked_by TEXT
	);
`;

export type WebSessionRow = {
	readonly id: string;
	readonly person: string;
	readonly createdAt: number;
	readonly expiresAt: number;
	readonly userAgent: string;
	readonly revokedAt: number | null;
	readonly revokedBy: string | null;
};

export type WebStore = {
	insertLink(hash: string, createdBy: string, at: number, expiresAt: number): void;
	/** Spends a link: its maker when it was unused and unexpired (now used), else null. */
	useLink(hash: string, now: number): string | null;
	insertSession(row: Omit<WebSessionRow, 'revokedAt' | 'revokedBy'> & {readonly hash: string}): void;
	/** The live session of a secret's hash (not revoked, not expired), or null. */
	session(hash: string, now: number): WebSessionRow | null;
	sessions(): WebSessionRow[];
	/** Revokes one session by id (or every live one with `all`); how many were revoked. */
	revoke(target: {readonly id: string} | {readonly all: true}, by: string, now: number): number;
	close(): void;
};

function rowOf(row: Record<string, unknown>): WebSessionRow {
	return {
		id: String(row['id']),
		person: String(row['person']),
		createdAt: Number(row['created_at']),
		expiresAt: Number(row['expires_at']),
		userAgent: String(row['user_agent']),
		revokedAt: row['revoked_at'] === null ? null : Number(row['revoked_at']),
		revokedBy: row['revoked_by'] === null ? null : String(row['revoked_by']),
	};
}

/** Opens (creating, private) the web board's tables in the access store file at `path`. */
export function openWebStore(path: string): WebStore {
	closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
	const db: Database.Database = new Database(path, {timeout: 5000});
	db.pragma('journal_mode = WAL');
	db.exec(TABLES);
	const statements = {
		insertLink: db.prepare('INSERT INTO web_links (hash, created_at, expires_at, created_by) VALUES (?, ?, ?, ?)'),
		useLink: db.prepare(
			'UPDATE web_links SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING created_by',
		),
		insertSession: db.prepare(
			'INSERT INTO web_sessions (id, hash, person, created_at, expires_at, user_agent) VALUES (@id, @hash, @person, @createdAt, @expiresAt, @userAgent)',
		),
		session: db.prepare('SELECT * FROM web_sessions WHERE hash = ? AND revoked_at IS NULL AND expires_at > ?'),
		sessions: db.prepare('SELECT * FROM web_sessions ORDER BY created_at'),
		revokeOne: db.prepare('UPDATE web_sessions SET revoked_at = ?, revoked_by = ? WHERE id = ? AND revoked_at IS NULL'),
		revokeAll: db.prepare('UPDATE web_sessions SET revoked_at = ?, revoked_by = ? WHERE revoked_at IS NULL AND expires_at > ?'),
	};
	return {
		insertLink: (hash, createdBy, at, expiresAt) => void statements.insertLink.run(hash, at, expiresAt, createdBy),
		useLink(hash, now) {
			const row = statements.useLink.get(now, hash, now) as {created_by: string} | undefined;
			return row?.created_by ?? null;
		},
		insertSession: row => void statements.insertSession.run(row),
		session(hash, now) {
			const row = statements.session.get(hash, now) as Record<string, unknown> | undefined;
			return row === undefined ? null : rowOf(row);
		},
		sessions: () => (statements.sessions.all() as Record<string, unknown>[]).map(rowOf),
		revoke(target, by, now) {
			return 'all' in target
				? statements.revokeAll.run(now, by, now).changes
				: statements.revokeOne.run(now, by, target.id).changes;
		},
		close: () => db.close(),
	};
}
