import {randomBytes} from 'node:crypto';
import type {Response} from 'express';
import type {OAuthRegisteredClientsStore} from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
	InvalidClientMetadataError,
	InvalidGrantError,
	InvalidRequestError,
	InvalidScopeError,
	InvalidTargetError,
	InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {AuthorizationParams, OAuthServerProvider} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type {AuthInfo} from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
	OAuthClientInformationFull,
	OAuthTokenRevocationRequest,
	OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import {approvalCodeOf, isScope, TOKEN_SECONDS} from '../../core/access.ts';
import {textProblem} from '../../core/contract/contract-text.ts';
import type {AccessStore, GrantRow} from '../../ledger/access-store.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {revokeGrant} from '../../gates/access/person-acts.ts';
import {checkToken, issuePair, newSecret, secretHash} from '../../gates/access/tokens.ts';
import {isLoopback} from '../listen.ts';
import {sendConsentPage} from './consent-page.ts';

/** What the token checks hand to the tools with each call (AuthInfo.extra). */
export type GrantFacts = {
	readonly grantId: string;
	readonly clientName: string;
	readonly owner: string;
	readonly isReadyAtOnce: boolean;
	readonly createdBy: string;
};

/** The grant's facts a call carries, read back from AuthInfo.extra. */
export function grantFactsOf(auth: AuthInfo | undefined): GrantFacts | null {
	const extra = auth?.extra as Partial<GrantFacts> | undefined;
	if (extra?.grantId === undefined) return null;
	return {
		grantId: extra.grantId,
		clientName: extra.clientName ?? 'unknown',
		owner: extra.owner ?? 'unknown',
		isReadyAtOnce: extra.isReadyAtOnce === true,
		createdBy: extra.createdBy ?? 'a person',
	};
}

/** Every string in a client's metadata is plain text: a NUL or an escape code is refused at registration. */
function controlProblem(value: unknown, path: string): string | null {
	if (typeof value === 'string') return textProblem(path, value);
	if (Array.isArray(value)) {
		for (const [index, item] of value.entries()) {
			const problem = controlProblem(item, `${path}[${index}]`);
			if (problem !== null) return problem;
		}
	} else if (value !== null && typeof value === 'object') {
		for (const [key, item] of Object.entries(value)) {
			const problem = controlProblem(key, path) ?? controlProblem(item, `${path}.${key}`);
			if (problem !== null) return problem;
		}
	}
	return null;
}

/** OAuth 2.1 for native and web clients: https, or http on loopback (RFC 8252); never javascript:, data: or a fragment. */
function redirectProblem(uri: string): string | null {
	let url: URL;
	try {
		url = new URL(uri);
	} catch {
		return `redirect_uris: not a URL`;
	}
	if (url.hash !== '') return 'redirect_uris: a redirect URI has no fragment';
	if (url.protocol === 'https:') return null;
	if (url.protocol === 'http:' && isLoopback(url.hostname)) return null;
	return `redirect_uris: ${url.protocol} is not taken (https, or http on loopback)`;
}

/** The most a client's name is shown with; longer is cut. */
const MAX_CLIENT_NAME = 100;

/**
 * The authorization server behind `serve` (docs/serve.md, "Authorization"): the SDK's handlers do
 * the protocol (metadata, registration, the authorize endpoint with PKCE S256 only, token,
 * revocation); this provider keeps clients, consents and tokens in the access store, and waits for
 * a person to approve each consent at a terminal (`serve approve CODE`).
 */
export class ControlroomOAuthProvider implements OAuthServerProvider {
	readonly clientsStore: OAuthRegisteredClientsStore;
	private readonly store: AccessStore;
	private readonly ledger: Ledger;
	/** The MCP endpoint's URL: the resource every token is bound to. */
	private readonly resource: URL;
	/** Where the consent page is served, by id. */
	private readonly consentUrl: (id: string) => URL;

	constructor(store: AccessStore, ledger: Ledger, resource: URL, consentUrl: (id: string) => URL) {
		this.store = store;
		this.ledger = ledger;
		this.resource = resource;
		this.consentUrl = consentUrl;
		this.clientsStore = {
			getClient: clientId => {
				const row = store.client(clientId);
				if (row === undefined) return undefined;
				// The secret is kept as a hash; the token and revocation routes hash what a client sends before the SDK compares.
				return {...(row.info as OAuthClientInformationFull), client_id: row.clientId, client_secret: row.secretHash ?? undefined};
			},
			registerClient: client => {
				const problem =
					controlProblem(client, 'client') ?? client.redirect_uris.map(redirectProblem).find(found => found !== null);
				if (problem) throw new InvalidClientMetadataError(problem);
				const grants = client.grant_types ?? ['authorization_code', 'refresh_token'];
				if (grants.some(grant => grant !== 'authorization_code' && grant !== 'refresh_token'))
					throw new InvalidClientMetadataError(
						'grant_types: only authorization_code and refresh_token (no implicit, no password)',
					);
				// The SDK's handler has given it an id already (clientIdGeneration), though its type leaves it out.
				const given = client as Partial<OAuthClientInformationFull>;
				const id = given.client_id ?? `c-${randomBytes(12).toString('hex')}`;
				const name = (client.client_name ?? '').trim().slice(0, MAX_CLIENT_NAME) || 'an unnamed client';
				const {client_secret: secret, ...info} = {...client, client_id: id, client_name: name};
				store.registerClient(id, info, secret ? secretHash(secret) : null, Date.now());
				return {...info, client_secret: secret, client_id: id, client_id_issued_at: given.client_id_issued_at};
			},
		};
	}

	async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
		const scopes = params.scopes ?? [];
		const unknown = scopes.find(scope => !isScope(scope));
		if (unknown !== undefined) throw new InvalidScopeError(`unknown scope; this server has work:read and work:write`);
		if (params.resource !== undefined && !this.isOurResource(params.resource))
			throw new InvalidTargetError('resource: this server is only its own MCP endpoint');
		if (params.state !== undefined && textProblem('state', params.state) !== null)
			throw new InvalidRequestError('state: control characters are not taken');
		const now = Date.now();
		const id = randomBytes(24).toString('base64url');
		const consent = {
			idHash: secretHash(id),
			code: approvalCodeOf(randomBytes(8)),
			clientId: client.client_id,
			clientName: client.client_name ?? 'an unnamed client',
			redirectUri: params.redirectUri,
			codeChallenge: params.codeChallenge,
			scopes,
			resource: params.resource?.href ?? null,
			state: params.state ?? null,
			createdAt: now,
			expiresAt: now + TOKEN_SECONDS.consent * 1000,
		};
		// Two consents with one code (one in 31^8): the unique index refuses the second; a new code is drawn.
		for (let attempt = 0; ; attempt += 1) {
			try {
				this.store.createConsent(attempt === 0 ? consent : {...consent, code: approvalCodeOf(randomBytes(8))});
				break;
			} catch (error) {
				if (attempt >= 3) throw error;
			}
		}
		res.redirect(302, this.consentUrl(id).href);
	}

	async challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
		const consent = this.store.consentByAuthCode(secretHash(authorizationCode));
		if (consent === undefined || consent.clientId !== client.client_id) throw new InvalidGrantError('unknown authorization code');
		return consent.codeChallenge;
	}

	async exchangeAuthorizationCode(
		client: OAuthClientInformationFull,
		authorizationCode: string,
		_codeVerifier?: string,
		redirectUri?: string,
		resource?: URL,
	): Promise<OAuthTokens> {
		const now = Date.now();
		const outcome = this.store.transaction((): {tokens: OAuthTokens} | {replayOf: string} | {refused: string} => {
			const consent = this.store.consentByAuthCode(secretHash(authorizationCode));
			if (consent === undefined || consent.clientId !== client.client_id) return {refused: 'unknown authorization code'};
			if (consent.authCodeUsedAt !== null) return consent.grantId === null ? {refused: 'code used'} : {replayOf: consent.grantId};
			if ((consent.authCodeExpiresAt ?? 0) <= now) return {refused: 'authorization code expired'};
			if (redirectUri !== undefined && redirectUri !== consent.redirectUri)
				return {refused: 'redirect_uri differs from the one authorized'};
			if (resource !== undefined && consent.resource !== null && resource.href !== consent.resource)
				return {refused: 'resource differs from the one authorized'};
			const grant = consent.grantId === null ? undefined : this.store.grant(consent.grantId);
			if (grant === undefined || grant.revokedAt !== null) return {refused: 'the grant was revoked'};
			this.store.useAuthCode(consent.authCodeHash ?? '', now);
			return {tokens: issuePair(this.store, grant, now)};
		});
		if ('tokens' in outcome) return outcome.tokens;
		if ('replayOf' in outcome) {
			this.revokeQuietly(outcome.replayOf, 'an authorization code was used twice (a replay): every token of it is revoked');
			throw new InvalidGrantError('authorization code already used; the tokens issued with it are revoked');
		}
		throw new InvalidGrantError(outcome.refused);
	}

	async exchangeRefreshToken(
		client: OAuthClientInformationFull,
		refreshToken: string,
		scopes?: string[],
		resource?: URL,
	): Promise<OAuthTokens> {
		const now = Date.now();
		const outcome = this.store.transaction((): {tokens: OAuthTokens} | {replayOf: string} | {refused: string} => {
			const token = this.store.token(secretHash(refreshToken));
			if (token === undefined || token.kind !== 'refresh') return {refused: 'unknown refresh token'};
			if (token.grant.clientId !== client.client_id) return {refused: 'the refresh token was not issued to this client'};
			if (token.grant.revokedAt !== null || token.revokedAt !== null) return {refused: 'refresh token revoked'};
			if (token.usedAt !== null) return {replayOf: token.grant.id};
			if (token.expiresAt <= now) return {refused: 'refresh token expired'};
			if (resource !== undefined && token.grant.resource !== null && resource.href !== token.grant.resource)
				return {refused: 'resource differs from the one authorized'};
			if ((scopes ?? []).some(scope => !token.grant.scopes.includes(scope)))
				return {refused: 'scope: more than the person granted'};
			if (!this.store.useRefreshToken(token.hash, now)) return {replayOf: token.grant.id};
			return {tokens: issuePair(this.store, token.grant, now)};
		});
		if ('tokens' in outcome) return outcome.tokens;
		if ('replayOf' in outcome) {
			this.revokeQuietly(outcome.replayOf, 'a refresh token was used twice (a replay): every token of it is revoked');
			throw new InvalidGrantError('refresh token already used; every token of this grant is revoked');
		}
		if (outcome.refused.startsWith('scope:')) throw new InvalidScopeError(outcome.refused);
		throw new InvalidGrantError(outcome.refused);
	}

	async verifyAccessToken(token: string): Promise<AuthInfo> {
		const verdict = checkToken(this.store, token, Date.now());
		if (!verdict.ok) throw new InvalidTokenError(verdict.reason);
		const grant = verdict.token.grant;
		if (grant.resource !== null && !this.isOurResource(new URL(grant.resource)))
			throw new InvalidTokenError('token was issued for another resource');
		const facts: GrantFacts = {
			grantId: grant.id,
			clientName: grant.clientName,
			owner: grant.owner,
			isReadyAtOnce: grant.isReadyAtOnce,
			createdBy: grant.createdBy,
		};
		return {
			token,
			clientId: grant.clientId ?? grant.id,
			scopes: [...grant.scopes],
			expiresAt: Math.floor(verdict.token.expiresAt / 1000),
			...(grant.resource === null ? {} : {resource: new URL(grant.resource)}),
			extra: facts,
		};
	}

	async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
		const token = this.store.token(secretHash(request.token));
		// RFC 7009: an unknown token, or another client's, is answered as revoked and nothing is done.
		if (token === undefined || token.grant.clientId !== client.client_id) return;
		if (token.kind === 'refresh') this.revokeQuietly(token.grant.id, `revoked by its client (${client.client_id})`);
		else this.store.revokeToken(token.hash, Date.now());
	}

	/** Gives an approved consent its one authorization code; null once it has one. */
	mintAuthorizationCode(idHash: string): string | null {
		const code = newSecret('code');
		return this.store.setAuthCode(idHash, secretHash(code), Date.now() + TOKEN_SECONDS.code * 1000) ? code : null;
	}

	/** The consent page's view of a consent. */
	showConsent(
		res: Response,
		consent: {clientName: string; redirectUri: string; scopes: readonly string[]; code: string; expiresAt: number},
	): void {
		sendConsentPage(res, {...consent, redirectHost: new URL(consent.redirectUri).host});
	}

	private isOurResource(resource: URL): boolean {
		const strip = (url: URL): string => url.href.replace(/#.*$/, '').replace(/\/$/, '');
		return strip(resource) === strip(this.resource);
	}

	private revokeQuietly(grantId: string, reason: string): GrantRow | null {
		try {
			return revokeGrant(this.ledger, this.store, grantId, 'serve', reason);
		} catch {
			return null;
		}
	}
}
