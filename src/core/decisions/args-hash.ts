import {sha256} from '@noble/hashes/sha2.js';
import {bytesToHex, utf8ToBytes} from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';

/**
 * The arguments of a call as one canonical text (RFC 8785, the JSON Canonicalization Scheme): the
 * same arguments give the same text whatever order the agent wrote their keys in, so an answer
 * given for them can be checked against the call that comes to use it (docs/decisions.md).
 * A value JSON cannot carry (undefined, a function) is `null`, as JSON.stringify would write it.
 */
export function canonicalArgs(args: unknown): string {
	try {
		return canonicalize(args ?? null) ?? 'null';
	} catch {
		// A lone surrogate in a string (JSON text can carry one; RFC 8785 refuses it), NaN, a cycle:
		// never a crash at the edge of a hook. Marked so it never equals a canonical text, and still
		// one text per value (JSON.stringify escapes lone surrogates).
		try {
			return `!noncanonical ${JSON.stringify(args)}`;
		} catch {
			return `!noncanonical ${String(args)}`;
		}
	}
}

/** SHA-256 of the canonical arguments, hex: what an answer is bound to. */
export function argsHash(args: unknown): string {
	return bytesToHex(sha256(utf8ToBytes(canonicalArgs(args))));
}
