import {closeSync, openSync} from 'node:fs';
import {basename, dirname, extname, join} from 'node:path';
import Database from 'better-sqlite3';
import {PRIVATE_FILE_MODE} from './private-files.ts';

// Who may reach `serve`, kept beside the ledger in a store of its own (docs/serve.md, "Where tokens
// live"): registered clients, grants (a person's yes to a connector or a script), the hashes of the
// tokens of each grant, and consents waiting for a person. Tokens are not history: they change
// (used, revoked, expired) and are kept as SHA-256 hashes only; the ledger records who granted and
// revoked what (access.granted, access.revoked), never a token or its hash. Shared by `serve`, its
// person's commands (`serve approve`, `serve tokens`), and any other server that lets people in.

type Migration = {readonly version: number; readonly sql: string};

const MIGRATIONS: readonly Migration[] = [
	{
		version: 1,
		sql: `
			CREATE TABLE clients (
				client_id TEXT PRIMARY KEY,
				info TEXT NOT NULL,
				secret_hash TEXT,
				created_at INTEGER NOT NULL
			);
			CREATE TABLE grants (
				id TEXT PRIMARY KEY,
				kind TEXT NOT NULL CHECK (kind IN ('connector', 'script')),
				client_id TEXT,
				client_name TEXT NOT NULL,
				owner TEXT NOT NULL,
				scopes TEXT NOT NULL,
				resource TEXT,
				ready_at_once INTEGER NOT NULL DEFAULT 0,
				created_at INTEGER NOT NULL,
				created_by TEXT NOT NULL,
				revoked_at INTEGER,
				revoked_by TEXT,
				revoke_reason TEXT
			);
			CREATE TABLE tokens (
				hash TEXT PRIMARY KEY,
				grant_id TEXT NOT NULL REFERENCES grants (id),
				kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh', 'bearer')),
				created_at INTEGER NOT NULL,
				expires_at INTEGER NOT NULL,
				used_at INTEGER,
				revoked_at INTEGER
			);
			CREATE INDEX tokens_by_grant ON tokens (grant_id);
			CREATE TABLE consents (
				id_hash TEXT PRIMARY KEY,
				code TEXT NOT NULL UNIQUE,
				client_id TEXT NOT NULL,
				client_name TEXT NOT NULL,
				redirect_uri TEXT NOT NULL,
				code_challenge TEXT NOT NULL,
				scopes TEXT NOT NULL,
				resource TEXT,
				state TEXT,
				created_at INTEGER NOT NULL,
				expires_at INTEGER NOT NULL,
				approved_at INTEGER,
				approved_by TEXT,
				grant_id TEXT,
				denied_at INTEGER,
				denied_by TEXT,
				auth_code_hash TEXT UNIQUE,
				auth_code_expires_at INTEGER,
				auth_code_used_at INTEGER
			);
		`,
	},
];

const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** A client as registered (RFC 7591): its metadata as JSON, its secret only as a hash. */
export type ClientRow = {
	readonly clientId: string;
	readonly info: Record<string, unknown>;
	readonly secretHash: string | null;
	readonly createdAt: number;
};

/** A person's yes to a connector (a consent) or a script (a token minted at a terminal). */
export type GrantRow = {
	readonly id: string;
	readonly kind: 'connector' | 'script';
	readonly clientId: string | null;
	readonly clientName: string;
	readonly owner: string;
	readonly scopes: readonly string[];
	readonly resource: string | null;
	readonly isReadyAtOnce: boolean;
	readonly createdAt: number;
	readonly createdBy: string;
	readonly revokedAt: number | null;
	readonly revokedBy: string | null;
	readonly revokeReason: string | null;
};

export type TokenKindStored = 'access' | 'refresh' | 'bearer';

/** A token as stored: its hash and its grant (joined). */
export type TokenRow = {
	readonly hash: string;
	readonly kind: TokenKindStored;
	readonly createdAt: number;
	readonly expiresAt: number;
	readonly usedAt: number | null;
	readonly revokedAt: number | null;
	readonly grant: GrantRow;
};

/** A consent waiting for (or given by) a person. */
export type ConsentRow = {
	readonly idHash: string;
	readonly code: string;
	readonly clientId: string;
	readonly clientName: string;
	readonly redirectUri: string;
	readonly codeChallenge: string;
	readonly scopes: readonly string[];
	readonly resource: string | null;
	readonly state: string | null;
	readonly createdAt: number;
	readonly expiresAt: number;
	readonly approvedAt: number | null;
	readonly approvedBy: string | null;
	readonly grantId: string | null;
	readonly deniedAt: number | null;
	readonly authCodeHash: string | null;
	readonly authCodeExpiresAt: number | null;
	readonly authCodeUsedAt: number | null;
};

type Row = Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' ? value : null);
const words = (value: unknown): string[] => (typeof value === 'string' ? value.split(' ').filter(word => word !== '') : []);

function grantOf(row: Row, prefix = ''): GrantRow {
	const at = (key: string): unknown => row[`${prefix}${key}`];
	return {
		id: String(at('id')),
		kind: at('kind') === 'script' ? 'script' : 'connector',
		clientId: text(at('client_id')),
		clientName: String(at('client_name')),
		owner: String(at('owner')),
		scopes: words(at('scopes')),
		resource: text(at('resource')),
		isReadyAtOnce: at('ready_at_once') === 1,
		createdAt: Number(at('created_at')),
		createdBy: String(at('created_by')),
		revokedAt: num(at('revoked_at')),
		revokedBy: text(at('revoked_by')),
		revokeReason: text(at('revoke_reason')),
	};
}

function consentOf(row: Row): ConsentRow {
	return {
		idHash: String(row['id_hash']),
		code: String(row['code']),
		clientId: String(row['client_id']),
		clientName: String(row['client_name']),
		redirectUri: String(row['redirect_uri']),
		codeChallenge: String(row['code_challenge']),
		scopes: words(row['scopes']),
		resource: text(row['resource']),
		state: text(row['state']),
		createdAt: Number(row['created_at']),
		expiresAt: Number(row['expires_at']),
		approvedAt: num(row['approved_at']),
		approvedBy: text(row['approved_by']),
		grantId: text(row['grant_id']),
		deniedAt: num(row['denied_at']),
		authCodeHash: text(row['auth_code_hash']),
		authCodeExpiresAt: num(row['auth_code_expires_at']),
		authCodeUsedAt: num(row['auth_code_used_at']),
	};
}

/** A new grant, as `createGrant` takes it. */
export type NewGrant = Omit<GrantRow, 'revokedAt' | 'revokedBy' | 'revokeReason'>;
/** A new consent, as the authorization endpoint makes it. */
export type NewConsent = Pick<
	ConsentRow,
	| 'idHash'
	| 'code'
	| 'clientId'
	| 'clientName'
	| 'redirectUri'
	| 'codeChallenge'
	| 'scopes'
	| 'resource'
	| 'state'
	| 'createdAt'
	| 'expiresAt'
>;

/** The access store: named reads and writes, statements prepared once. */
export type AccessStore = {
	readonly path: string;
	registerClient(clientId: string, info: Record<string, unknown>, secretHash: string | null, at: number): void;
	client(clientId: string): ClientRow | undefined;
	createGrant(grant: NewGrant): void;
	grant(id: string): GrantRow | undefined;
	/** Every grant, newest first, with its latest token's expiry. */
	grants(): (GrantRow & {readonly expiresAt: number | null; readonly lastUsedAt: number | null})[];
	/** Revokes a grant and every token of it; false when there is no such grant or it was revoked already. */
	revokeGrant(id: string, by: string, reason: string, at: number): boolean;
	insertToken(hash: string, grantId: string, kind: TokenKindStored, at: number, expiresAt: number): void;
	token(hash: string): TokenRow | undefined;
	/** Marks a refresh token used; false when it was used already (a replay). */
	useRefreshToken(hash: string, at: number): boolean;
	/** Revokes one token; false when it was not there or revoked already. */
	revokeToken(hash: string, at: number): boolean;
	createConsent(consent: NewConsent): void;
	consentByCode(code: string): ConsentRow | undefined;
	consentById(idHash: string): ConsentRow | undefined;
	consentByAuthCode(hash: string): ConsentRow | undefined;
	/** Consents no person has answered yet that have not expired, oldest first. */
	pendingConsents(now: number): ConsentRow[];
	approveConsent(code: string, grantId: string, by: string, at: number): boolean;
	denyConsent(code: string, by: string, at: number): boolean;
	/** Gives an approved consent its one authorization code; false when it has one already. */
	setAuthCode(idHash: string, hash: string, expiresAt: number): boolean;
	/** Marks the code used; false when it was used already (a replay). */
	useAuthCode(hash: string, at: number): boolean;
	/** Runs `fn` in one immediate transaction. */
	transaction<T>(fn: () => T): T;
	close(): void;
};

/** The access store of a ledger: `ledger.access.db` beside `ledger.db` (private, as the ledger). */
export function accessStorePath(ledgerFile: string): string {
	const name = basename(ledgerFile, extname(ledgerFile));
	return join(dirname(ledgerFile), `${name}.access.db`);
}

function migrate(db: Database.Database): void {
	const current = db.pragma('user_version', {simple: true}) as number;
	if (current > SCHEMA_VERSION)
		throw new Error(`access store schema version ${current} is newer than this controlroom understands; upgrade controlroom`);
	if (current === SCHEMA_VERSION) return;
	db.transaction(() => {
		const start = db.pragma('user_version', {simple: true}) as number;
		for (const migration of MIGRATIONS) if (migration.version > start) db.exec(migration.sql);
		db.pragma(`user_version = ${SCHEMA_VERSION}`);
	}).immediate();
}

/** Opens (creating, private) the access store at `path`. */
export function openAccessStore(path: string): AccessStore {
	// Made private before SQLite writes a byte to it, whatever the umask.
	closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
	const db = new Database(path, {timeout: 5000});
	db.pragma('journal_mode = WAL');
	db.pragma('foreign_keys = ON');
	migrate(db);
	const statements = {
		insertClient: db.prepare('INSERT INTO clients (client_id, info, secret_hash, created_at) VALUES (?, ?, ?, ?)'),
		client: db.prepare('SELECT * FROM clients WHERE client_id = ?'),
		insertGrant: db.prepare(
			`INSERT INTO grants (id, kind, client_id, client_name, owner, scopes, resource, ready_at_once, created_at, created_by)
				VALUES (@id, @kind, @clientId, @clientName, @owner, @scopes, @resource, @readyAtOnce, @createdAt, @createdBy)`,
		),
		grant: db.prepare('SELECT * FROM grants WHERE id = ?'),
		grants: db.prepare(
			`SELECT g.*, (SELECT MAX(expires_at) FROM tokens t WHERE t.grant_id = g.id AND t.kind != 'refresh') AS expires_at,
				(SELECT MAX(used_at) FROM tokens t WHERE t.grant_id = g.id) AS last_used_at
			FROM grants g ORDER BY g.created_at DESC, g.id`,
		),
		revokeGrant: db.prepare(
			'UPDATE grants SET revoked_at = ?, revoked_by = ?, revoke_reason = ? WHERE id = ? AND revoked_at IS NULL',
		),
		revokeTokensOf: db.prepare('UPDATE tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL'),
		insertToken: db.prepare('INSERT INTO tokens (hash, grant_id, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
		token: db.prepare(
			`SELECT t.hash, t.kind AS token_kind, t.created_at AS token_created_at, t.expires_at, t.used_at, t.revoked_at AS token_revoked_at,
				g.id AS g_id, g.kind AS g_kind, g.client_id AS g_client_id, g.client_name AS g_client_name, g.owner AS g_owner,
				g.scopes AS g_scopes, g.resource AS g_resource, g.ready_at_once AS g_ready_at_once, g.created_at AS g_created_at,
				g.created_by AS g_created_by, g.revoked_at AS g_revoked_at, g.revoked_by AS g_revoked_by, g.revoke_reason AS g_revoke_reason
			FROM tokens t JOIN grants g ON g.id = t.grant_id WHERE t.hash = ?`,
		),
		useRefresh: db.prepare(`UPDATE tokens SET used_at = ? WHERE hash = ? AND kind = 'refresh' AND used_at IS NULL`),
		revokeToken: db.prepare('UPDATE tokens SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL'),
		insertConsent: db.prepare(
			`INSERT INTO consents (id_hash, code, client_id, client_name, redirect_uri, code_challenge, scopes, resource, state, created_at, expires_at)
				VALUES (@idHash, @code, @clientId, @clientName, @redirectUri, @codeChallenge, @scopes, @resource, @state, @createdAt, @expiresAt)`,
		),
		consentByCode: db.prepare('SELECT * FROM consents WHERE code = ?'),
		consentById: db.prepare('SELECT * FROM consents WHERE id_hash = ?'),
		consentByAuthCode: db.prepare('SELECT * FROM consents WHERE auth_code_hash = ?'),
		pending: db.prepare(
			'SELECT * FROM consents WHERE approved_at IS NULL AND denied_at IS NULL AND expires_at > ? ORDER BY created_at',
		),
		approve: db.prepare(
			`UPDATE consents SET approved_at = ?, approved_by = ?, grant_id = ?
				WHERE code = ? AND approved_at IS NULL AND denied_at IS NULL AND expires_at > ?`,
		),
		deny: db.prepare(
			`UPDATE consents SET denied_at = ?, denied_by = ?
				WHERE code = ? AND approved_at IS NULL AND denied_at IS NULL AND expires_at > ?`,
		),
		setAuthCode: db.prepare(
			`UPDATE consents SET auth_code_hash = ?, auth_code_expires_at = ?
				WHERE id_hash = ? AND approved_at IS NOT NULL AND auth_code_hash IS NULL`,
		),
		useAuthCode: db.prepare('UPDATE consents SET auth_code_used_at = ? WHERE auth_code_hash = ? AND auth_code_used_at IS NULL'),
	};
	const consentOrNone = (row: unknown): ConsentRow | undefined => (row ? consentOf(row as Row) : undefined);
	return {
		path,
		registerClient(clientId, info, secretHash, at) {
			statements.insertClient.run(clientId, JSON.stringify(info), secretHash, at);
		},
		client(clientId) {
			const row = statements.client.get(clientId) as Row | undefined;
			if (!row) return undefined;
			return {
				clientId: String(row['client_id']),
				info: JSON.parse(String(row['info'])) as Record<string, unknown>,
				secretHash: text(row['secret_hash']),
				createdAt: Number(row['created_at']),
			};
		},
		createGrant(grant) {
			statements.insertGrant.run({...grant, scopes: grant.scopes.join(' '), readyAtOnce: grant.isReadyAtOnce ? 1 : 0});
		},
		grant(id) {
			const row = statements.grant.get(id) as Row | undefined;
			return row ? grantOf(row) : undefined;
		},
		grants() {
			return (statements.grants.all() as Row[]).map(row => ({
				...grantOf(row),
				expiresAt: num(row['expires_at']),
				lastUsedAt: num(row['last_used_at']),
			}));
		},
		revokeGrant(id, by, reason, at) {
			return db.transaction(() => {
				const changed = statements.revokeGrant.run(at, by, reason, id).changes > 0;
				statements.revokeTokensOf.run(at, id);
				return changed;
			})();
		},
		insertToken(hash, grantId, kind, at, expiresAt) {
			statements.insertToken.run(hash, grantId, kind, at, expiresAt);
		},
		token(hash) {
			const row = statements.token.get(hash) as Row | undefined;
			if (!row) return undefined;
			const kind = row['token_kind'];
			return {
				hash: String(row['hash']),
				kind: kind === 'refresh' ? 'refresh' : kind === 'bearer' ? 'bearer' : 'access',
				createdAt: Number(row['token_created_at']),
				expiresAt: Number(row['expires_at']),
				usedAt: num(row['used_at']),
				revokedAt: num(row['token_revoked_at']),
				grant: grantOf(row, 'g_'),
			};
		},
		useRefreshToken: (hash, at) => statements.useRefresh.run(at, hash).changes > 0,
		revokeToken: (hash, at) => statements.revokeToken.run(at, hash).changes > 0,
		createConsent(consent) {
			statements.insertConsent.run({...consent, scopes: consent.scopes.join(' ')});
		},
		consentByCode: code => consentOrNone(statements.consentByCode.get(code)),
		consentById: idHash => consentOrNone(statements.consentById.get(idHash)),
		consentByAuthCode: hash => consentOrNone(statements.consentByAuthCode.get(hash)),
		pendingConsents: now => (statements.pending.all(now) as Row[]).map(consentOf),
		approveConsent: (code, grantId, by, at) => statements.approve.run(at, by, grantId, code, at).changes > 0,
		denyConsent: (code, by, at) => statements.deny.run(at, by, code, at).changes > 0,
		setAuthCode: (idHash, hash, expiresAt) => statements.setAuthCode.run(hash, expiresAt, idHash).changes > 0,
		useAuthCode: (hash, at) => statements.useAuthCode.run(at, hash).changes > 0,
		transaction: fn => db.transaction(fn).immediate(),
		close: () => db.close(),
	};
}
