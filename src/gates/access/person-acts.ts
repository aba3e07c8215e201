import {describeScopes, isScope, normalApprovalCode, SCOPES, type Scope} from '../../core/access.ts';
import {EventType} from '../../core/events.ts';
import type {AccessStore, ConsentRow, GrantRow} from '../../ledger/access-store.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {requirePerson} from '../person-gate.ts';
import {issueBearer, newGrantId} from './tokens.ts';

// A person lets a connector or a script in (docs/serve.md, "A person's yes"): approving a consent
// the browser shows, minting a script's token. Both are a person's at a terminal (the actor rule,
// docs/security.md): an agent asking is refused and recorded, as at every gate.

/** A refusal a person can act on: one line. */
export class AccessError extends Error {}

/** What the person narrowed or added when they said yes. */
export type ApproveOptions = {
	/** Who the grant acts for (the contracts' owner): `--as`, else the person's OS user. */
	readonly as?: string | null;
	/** Only these of the scopes asked for (`--scope`); none: all that were asked. */
	readonly scopes?: readonly Scope[];
	/** Contracts written with this grant are ready at once (`--ready`): no `contract ready` per contract. */
	readonly isReadyAtOnce?: boolean;
	readonly now?: number;
};

function ownerOf(as: string | null | undefined, user: string | null): string {
	return as?.trim() || user || 'unknown';
}

function recordGranted(ledger: Ledger, grant: GrantRow, osUser: string | null, uid: number | null): void {
	ledger.writer.append([
		{
			taskId: grant.id,
			type: EventType.accessGranted,
			at: grant.createdAt,
			source: 'cli',
			data: {
				grantId: grant.id,
				kind: grant.kind,
				client: grant.clientName,
				owner: grant.owner,
				scopes: [...grant.scopes],
				isReadyAtOnce: grant.isReadyAtOnce,
				by: grant.createdBy,
				osUser,
				uid,
			},
		},
	]);
}

function pendingConsent(store: AccessStore, typed: string, now: number): ConsentRow {
	const code = normalApprovalCode(typed);
	if (code === null) throw new AccessError(`'${typed}' is not an approval code (eight letters and digits, like KQ7M-3XPD)`);
	const consent = store.consentByCode(code);
	if (consent === undefined)
		throw new AccessError(`no consent has the code ${code} (serve approve with no code lists those waiting)`);
	if (consent.approvedAt !== null) throw new AccessError(`${code} was approved already, by ${consent.approvedBy ?? 'a person'}`);
	if (consent.deniedAt !== null) throw new AccessError(`${code} was denied`);
	if (consent.expiresAt <= now) throw new AccessError(`${code} expired; connect again from the assistant to get a new one`);
	return consent;
}

/** The scopes a grant gets: those asked for, narrowed to `--scope` when given; none asked: both. */
function grantedScopes(asked: readonly string[], narrowed: readonly Scope[] | undefined): Scope[] {
	const wanted = asked.filter(isScope);
	const base = wanted.length === 0 ? [...SCOPES] : wanted;
	if (narrowed === undefined || narrowed.length === 0) return base;
	const kept = base.filter(scope => narrowed.includes(scope));
	if (kept.length === 0)
		throw new AccessError(`--scope ${narrowed.join(' ')}: the client asked only for ${base.join(' ')}; nothing would be left`);
	return kept;
}

/**
 * Approves the consent a browser shows (`serve approve CODE`): a person only. The grant acts for
 * `as` (else the person) with the scopes asked for (narrowed by `scopes`); the browser then gets
 * its authorization code and the connector its tokens.
 */
export function approveConsent(
	ledger: Ledger,
	store: AccessStore,
	typed: string,
	options: ApproveOptions = {},
): {grant: GrantRow; consent: ConsentRow} {
	const person = requirePerson(ledger, {verb: 'serve approve', target: typed.trim(), source: 'cli'});
	const now = options.now ?? Date.now();
	return store.transaction(() => {
		const consent = pendingConsent(store, typed, now);
		const grant: GrantRow = {
			id: newGrantId(),
			kind: 'connector',
			clientId: consent.clientId,
			clientName: consent.clientName,
			owner: ownerOf(options.as, person.user),
			scopes: grantedScopes(consent.scopes, options.scopes),
			resource: consent.resource,
			isReadyAtOnce: options.isReadyAtOnce === true,
			createdAt: now,
			createdBy: person.user ?? 'a person',
			revokedAt: null,
			revokedBy: null,
			revokeReason: null,
		};
		store.createGrant(grant);
		if (!store.approveConsent(consent.code, grant.id, grant.createdBy, now))
			throw new AccessError(`${consent.code} was answered meanwhile`);
		recordGranted(ledger, grant, person.user, person.uid);
		return {grant, consent};
	});
}

/** Denies a consent: the browser is sent back to the client with access_denied. Anyone may say no. */
export function denyConsent(store: AccessStore, typed: string, by: string, now = Date.now()): ConsentRow {
	return store.transaction(() => {
		const consent = pendingConsent(store, typed, now);
		store.denyConsent(consent.code, by, now);
		return consent;
	});
}

/** What `serve tokens new` is asked for. */
export type ScriptTokenRequest = {
	readonly name: string;
	readonly scopes: readonly Scope[];
	readonly days: number;
	readonly as?: string | null;
	readonly isReadyAtOnce?: boolean;
	readonly now?: number;
};

/** Mints a script's token (`serve tokens new`): a person only. The secret is returned once and stored hashed. */
export function mintScriptToken(
	ledger: Ledger,
	store: AccessStore,
	request: ScriptTokenRequest,
): {grant: GrantRow; token: string} {
	const person = requirePerson(ledger, {
		verb: 'serve tokens new',
		target: `${request.name} (${describeScopes(request.scopes)})`,
		source: 'cli',
	});
	const now = request.now ?? Date.now();
	const grant: GrantRow = {
		id: newGrantId(),
		kind: 'script',
		clientId: null,
		clientName: request.name,
		owner: ownerOf(request.as, person.user),
		scopes: [...request.scopes],
		resource: null,
		isReadyAtOnce: request.isReadyAtOnce === true,
		createdAt: now,
		createdBy: person.user ?? 'a person',
		revokedAt: null,
		revokedBy: null,
		revokeReason: null,
	};
	const token = store.transaction(() => {
		store.createGrant(grant);
		return issueBearer(store, grant, now, request.days);
	});
	recordGranted(ledger, grant, person.user, person.uid);
	return {grant, token};
}

/**
 * Revokes a grant and every token of it (`serve tokens revoke`, a replayed code or refresh token).
 * Anyone may: it only takes access away. Recorded in the ledger.
 */
export function revokeGrant(ledger: Ledger, store: AccessStore, grantId: string, by: string, reason: string): GrantRow {
	const grant = store.grant(grantId);
	if (grant === undefined) throw new AccessError(`no grant ${grantId} (serve tokens list shows them)`);
	if (!store.revokeGrant(grantId, by, reason, Date.now()))
		throw new AccessError(`${grantId} was revoked already, by ${grant.revokedBy ?? 'someone'}`);
	ledger.writer.append([
		{taskId: grantId, type: EventType.accessRevoked, at: Date.now(), source: 'cli', data: {grantId, by, reason}},
	]);
	return grant;
}
