import {createHash, randomBytes} from 'node:crypto';
import {TOKEN_PREFIXES, TOKEN_SECONDS, type TokenKind} from '../../core/access.ts';
import type {AccessStore, GrantRow, TokenRow} from '../../ledger/access-store.ts';

// The secrets `serve` hands out (docs/serve.md, "Tokens"): 32 random bytes behind a prefix that
// says what each is; only their SHA-256 is stored. A token is looked up by its hash at every call,
// so one minted or revoked while the server runs counts at once.

/** The SHA-256 of a secret, as stored. Tokens are random (256 bits): a slow hash would add nothing. */
export function secretHash(secret: string): string {
	return createHash('sha256').update(secret).digest('hex');
}

/** A new secret of a kind: its prefix and 32 random bytes, base64url. */
export function newSecret(kind: TokenKind): string {
	return `${TOKEN_PREFIXES[kind]}${randomBytes(32).toString('base64url')}`;
}

/** A new id for a grant (`g-` and 12 hex digits). */
export function newGrantId(): string {
	return `g-${randomBytes(6).toString('hex')}`;
}

/** An access token and its refresh token, as the token endpoint answers them. */
export type TokenPair = {
	readonly access_token: string;
	readonly token_type: 'bearer';
	readonly expires_in: number;
	readonly refresh_token: string;
	readonly scope: string;
};

/** Issues a new access token and refresh token for a grant, both stored hashed. */
export function issuePair(store: AccessStore, grant: GrantRow, now: number): TokenPair {
	const access = newSecret('access');
	const refresh = newSecret('refresh');
	store.insertToken(secretHash(access), grant.id, 'access', now, now + TOKEN_SECONDS.access * 1000);
	store.insertToken(secretHash(refresh), grant.id, 'refresh', now, now + TOKEN_SECONDS.refresh * 1000);
	return {
		access_token: access,
		token_type: 'bearer',
		expires_in: TOKEN_SECONDS.access,
		refresh_token: refresh,
		scope: grant.scopes.join(' '),
	};
}

/** Issues a script's token (`serve tokens new`), stored hashed; the secret is returned once, here only. */
export function issueBearer(store: AccessStore, grant: GrantRow, now: number, days: number): string {
	const token = newSecret('bearer');
	store.insertToken(secretHash(token), grant.id, 'bearer', now, now + days * 24 * 3600 * 1000);
	return token;
}

/** Why a token does not let its bearer in, in one line; never any part of the token. */
export type TokenVerdict = {readonly ok: true; readonly token: TokenRow} | {readonly ok: false; readonly reason: string};

/** Whether a token presented to the server (access or a script's) is good now. */
export function checkToken(store: AccessStore, secret: string, now: number): TokenVerdict {
	if (!secret.startsWith(TOKEN_PREFIXES.access) && !secret.startsWith(TOKEN_PREFIXES.bearer))
		return {ok: false, reason: 'not a controlroom access token'};
	const token = store.token(secretHash(secret));
	if (token === undefined || token.kind === 'refresh') return {ok: false, reason: 'unknown token'};
	if (token.grant.revokedAt !== null || token.revokedAt !== null) return {ok: false, reason: 'token revoked'};
	if (token.expiresAt <= now) return {ok: false, reason: 'token expired'};
	return {ok: true, token};
}
