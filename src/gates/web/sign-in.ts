import {createHmac, randomBytes, timingSafeEqual} from 'node:crypto';
import type {Ledger} from '../../ledger/open-ledger.ts';
import type {WebSessionRow, WebStore} from '../../ledger/web-store.ts';
import {secretHash} from '../access/tokens.ts';
import {requirePerson} from '../person-gate.ts';

// Signing in to the web board (docs/web.md, "Signing in"): a session starts only from a one-time
// link a person printed at a terminal (the actor rule: an agent's `web link` is refused and
// recorded). The cookie carries the session's secret; the store keeps its hash. Every answer from
// the page carries a CSRF token derived from the session's secret, which another site cannot read.

/** A sign-in link works once, for this long. */
export const LINK_SECONDS = 5 * 60;
/** A session lasts this long from its sign-in (then a new link). */
export const SESSION_SECONDS = 12 * 3600;

/** Secrets of the web board say what they are, as serve's tokens do (a leaked one is recognised). */
const LINK_PREFIX = 'crw_';
const SESSION_PREFIX = 'crs_';

const secretOf = (prefix: string): string => `${prefix}${randomBytes(32).toString('base64url')}`;

/** Makes a one-time sign-in link's secret for the person at this terminal (refused for an agent, exit 77). */
export function makeSignInLink(ledger: Ledger, store: WebStore, now: number): {readonly secret: string; readonly person: string} {
	const person = requirePerson(ledger, {verb: 'web link', target: 'web', source: 'cli'});
	const name = person.user ?? `uid ${person.uid ?? '?'}`;
	const secret = secretOf(LINK_PREFIX);
	store.insertLink(secretHash(secret), name, now, now + LINK_SECONDS * 1000);
	return {secret, person: name};
}

/** Spends a sign-in link and starts a session: its cookie secret and row, or null for a link used, expired or unknown. */
export function startSession(
	store: WebStore,
	linkSecret: string,
	userAgent: string,
	now: number,
): {readonly secret: string; readonly session: WebSessionRow} | null {
	if (!linkSecret.startsWith(LINK_PREFIX)) return null;
	const person = store.useLink(secretHash(linkSecret), now);
	if (person === null) return null;
	const secret = secretOf(SESSION_PREFIX);
	const session = {
		id: `ws-${randomBytes(6).toString('hex')}`,
		person,
		createdAt: now,
		expiresAt: now + SESSION_SECONDS * 1000,
		userAgent: userAgent.replace(/[\p{Cc}]/gu, '').slice(0, 200),
	};
	store.insertSession({...session, hash: secretHash(secret)});
	return {secret, session: {...session, revokedAt: null, revokedBy: null}};
}

/** The live session a cookie's secret names, or null. */
export function sessionOf(store: WebStore, secret: string | undefined, now: number): WebSessionRow | null {
	if (secret === undefined || !secret.startsWith(SESSION_PREFIX)) return null;
	return store.session(secretHash(secret), now);
}

/** The session's CSRF token: an HMAC of its secret, so it needs no storage and no other site can make it. */
export function csrfOf(sessionSecret: string): string {
	return createHmac('sha256', sessionSecret).update('controlroom web csrf').digest('base64url');
}

/** Whether a form's CSRF token is the session's. */
export function isCsrfOf(sessionSecret: string, token: string): boolean {
	const expected = Buffer.from(csrfOf(sessionSecret));
	const given = Buffer.from(token);
	return expected.length === given.length && timingSafeEqual(expected, given);
}
