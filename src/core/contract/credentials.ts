/**
 * A shape of secret we recognise, by the name we report instead of the value. `hints` are plain
 * substrings one of which every match contains: a value without any is never run through the
 * pattern (a 1,000-line contract has thousands of values; docs/contracts.md, "Limits").
 */
type CredentialShape = {readonly name: string; readonly hints: readonly string[]; readonly pattern: RegExp};

const SHAPES: readonly CredentialShape[] = [
	{name: 'private key', hints: ['-----BEGIN'], pattern: /-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----/},
	{
		name: 'GitHub token',
		hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
		pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/,
	},
	{name: 'API key (sk-)', hints: ['sk-'], pattern: /\bsk-[A-Za-z0-9_-]{16,}/},
	{name: 'AWS access key', hints: ['AKIA', 'ASIA'], pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/},
	{name: 'Slack token', hints: ['xox'], pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/},
	{name: 'GitLab token', hints: ['glpat-'], pattern: /\bglpat-[A-Za-z0-9_-]{20,}/},
	{name: 'Google API key', hints: ['AIza'], pattern: /\bAIza[0-9A-Za-z_-]{35}\b/},
	{name: 'npm token', hints: ['npm_'], pattern: /\bnpm_[A-Za-z0-9]{36}\b/},
	// controlroom's own (src/core/access.ts): access, refresh, a script's, an authorization code.
	{
		name: 'controlroom token',
		hints: ['cra_', 'crr_', 'crp_', 'crc_', 'crw_', 'crs_'],
		pattern: /\bcr[arpcws]_[A-Za-z0-9_-]{32,}/,
	},
	{name: 'password in a URL', hints: ['://'], pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i},
];

/** What every secret name below contains, lower-cased: a value with none of them has no assignment to look at. */
const SECRET_HINTS = ['pass', 'pwd', 'secret', 'token', 'key'];

const SECRET_NAME = String.raw`(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|token|auth[_-]?token|access[_-]?token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key)`;
/** `password=...`, `api_key: ...`, `TOKEN="..."` inside a value. */
const ASSIGNMENT = new RegExp(String.raw`\b[A-Za-z_]*${SECRET_NAME}\s*[:=]\s*["']?([^\s"',;]+)`, 'i');
/** A field whose own name says it holds a secret. */
const SECRET_KEY = new RegExp(String.raw`^[A-Za-z_-]*${SECRET_NAME}$`, 'i');

/** Values that stand for a secret without being one: a placeholder, an environment reference, a mask. */
function isStandIn(value: string): boolean {
	const trimmed = value.trim();
	return (
		trimmed.length < 4 ||
		/^<[^<>]*>$/.test(trimmed) ||
		/^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(trimmed) ||
		/^\$\{\{.*\}\}$/.test(trimmed) ||
		/^[*xX.•]+$/.test(trimmed) ||
		/^(?:none|null|required|redacted|changeme|example)$/i.test(trimmed)
	);
}

/**
 * Names the kind of credential a value looks like, or null. `key` is the field's own name, so a
 * field called `password` holding a literal is caught too. Never returns any part of the value.
 */
export function detectCredential(value: string, key: string | null = null): string | null {
	for (const shape of SHAPES) {
		if (shape.hints.some(hint => value.includes(hint)) && shape.pattern.test(value)) return shape.name;
	}
	const lower = value.toLowerCase();
	const mayAssign = (value.includes(':') || value.includes('=')) && SECRET_HINTS.some(hint => lower.includes(hint));
	const assigned = mayAssign ? value.match(ASSIGNMENT) : null;
	if (assigned?.[1] !== undefined && !isStandIn(assigned[1])) return 'secret assignment';
	if (key !== null && SECRET_KEY.test(key) && !isStandIn(value)) return `secret in a field named ${key}`;
	return null;
}

/** What a field path shows in place of a key that is itself a credential. */
export const WITHHELD_KEY = '(key withheld)';

/** Every mapping key in a document that looks like a credential, so paths never spell it out. */
export function credentialKeys(document: unknown, out = new Set<string>()): Set<string> {
	if (Array.isArray(document)) for (const item of document) credentialKeys(item, out);
	else if (document !== null && typeof document === 'object') {
		for (const [key, child] of Object.entries(document)) {
			if (detectCredential(key) !== null) out.add(key);
			credentialKeys(child, out);
		}
	}
	return out;
}

/** A field path with any credential-shaped key replaced by WITHHELD_KEY. */
export function redactField(field: string, keys: ReadonlySet<string>): string {
	let safe = field;
	for (const key of keys) safe = safe.split(key).join(WITHHELD_KEY);
	return safe;
}

/** What stands in a shown document for a value (or key) that looks like a credential. */
export const WITHHELD_VALUE = '(withheld: looks like a credential)';

/**
 * A copy of a document with every value and key that looks like a credential replaced, for the
 * canonical form `contract check --json` and `contract normalize` show: never the secret itself.
 */
export function withoutCredentials(value: unknown, key: string | null = null): unknown {
	if (typeof value === 'string') return detectCredential(value, key) === null ? value : WITHHELD_VALUE;
	if (Array.isArray(value)) return value.map(item => withoutCredentials(item, key));
	if (value !== null && typeof value === 'object') {
		let withheld = 0;
		return Object.fromEntries(
			Object.entries(value).map(([childKey, child]) => [
				detectCredential(childKey) === null ? childKey : `${WITHHELD_KEY} ${(withheld += 1)}`,
				withoutCredentials(child, childKey),
			]),
		);
	}
	return value;
}
