// Who may do what through `serve` (docs/serve.md, "Scopes"): the scopes, what each tool needs, and
// the shapes of what a person types or a client carries. Pure: the store and the server use these.

/** Every scope a token can carry. No scope approves, accepts or answers anything: only a person does. */
export const SCOPES = ['work:read', 'work:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope lets a client do, for `serve --help`, the consent page and the docs. */
export const SCOPE_MEANINGS: Readonly<Record<Scope, string>> = {
	'work:write': 'write contracts (write_task, file_bug, write_transfer), stored as drafts',
	'work:read': "list contracts and read one's state, holder, notes, hand-in and verdicts (list_work, get_work)",
};

/** The scope each remote tool needs. */
export const TOOL_SCOPES: Readonly<Record<string, Scope>> = {
	write_task: 'work:write',
	file_bug: 'work:write',
	write_transfer: 'work:write',
	list_work: 'work:read',
	get_work: 'work:read',
};

export function isScope(value: string): value is Scope {
	return (SCOPES as readonly string[]).includes(value);
}

/**
 * Scopes as given (`work:read work:write`, or a list of flags): the known ones, in canonical order,
 * or the first unknown word. Nothing asked for means both.
 */
export function parseScopes(words: readonly string[]): {readonly scopes: Scope[]} | {readonly unknown: string} {
	const split = words.flatMap(word => word.split(/[\s,]+/)).filter(word => word !== '');
	const unknown = split.find(word => !isScope(word));
	if (unknown !== undefined) return {unknown};
	const scopes = SCOPES.filter(scope => split.includes(scope));
	return {scopes: scopes.length === 0 ? [...SCOPES] : scopes};
}

/** What a scope list says, for a person: `read and write contracts`. */
export function describeScopes(scopes: readonly string[]): string {
	const canRead = scopes.includes('work:read');
	const canWrite = scopes.includes('work:write');
	if (canRead && canWrite) return 'write and read contracts';
	if (canWrite) return 'write contracts';
	if (canRead) return 'read contracts';
	return 'nothing';
}

/**
 * The code a person types at a terminal to approve a consent (`serve approve KQ7M-3XPD`): eight
 * letters and digits a person reads without confusing (no 0/O, 1/I/L), in two groups.
 */
export const APPROVAL_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** Eight random indexes into the alphabet, grouped as a person reads them. */
export function approvalCodeOf(randomBytes: Uint8Array): string {
	const letters = [...randomBytes.slice(0, 8)].map(byte => APPROVAL_ALPHABET[byte % APPROVAL_ALPHABET.length]).join('');
	return `${letters.slice(0, 4)}-${letters.slice(4, 8)}`;
}

/** An approval code as a person may type it: any case, with or without the dash. */
export function normalApprovalCode(typed: string): string | null {
	const letters = typed.toUpperCase().replace(/[\s-]/g, '');
	if (letters.length !== 8 || [...letters].some(letter => !APPROVAL_ALPHABET.includes(letter))) return null;
	return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

/**
 * Token prefixes (docs/serve.md, "Tokens"): a token says what it is, so a leaked one is recognised
 * (the contract check refuses them as credentials) and a refresh token is never taken for an access one.
 */
export const TOKEN_PREFIXES = {access: 'cra_', refresh: 'crr_', bearer: 'crp_', code: 'crc_'} as const;
export type TokenKind = keyof typeof TOKEN_PREFIXES;

/** How long each kind of secret works (seconds). */
export const TOKEN_SECONDS = {
	/** An access token: short, a connector refreshes it. */
	access: 15 * 60,
	/** A refresh token: used once (it is replaced by a new one at each refresh). */
	refresh: 30 * 24 * 3600,
	/** An authorization code: the browser hands it to the client at once. */
	code: 60,
	/** A consent page waits this long for a person's `serve approve`. */
	consent: 10 * 60,
} as const;

/** A script's token (`serve tokens new`) works this many days unless told otherwise. */
export const DEFAULT_BEARER_DAYS = 30;
