import * as z from 'zod/mini';
import {sha256} from '@noble/hashes/sha2.js';
import {utf8ToBytes} from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';

// What a passkey signs when a person answers from the web (docs/passkeys.md): the item, what the
// item was when it was shown (the arguments' SHA-256, a hand-in's revision), the answer, an expiry
// and a nonce. The WebAuthn challenge is the SHA-256 of this object's canonical text, so the
// authenticator's signature covers exactly this answer to exactly this call, and anyone holding the
// object and the signature can check it later. Pure: no clock, no randomness (passed in).

/** What a passkey may answer: a question, a held effect's order, a hand-in, a review, a queue entry; the policy itself and an enrollment. */
export const PASSKEY_ITEM_KINDS = ['decision', 'order', 'handin', 'review', 'need', 'policy', 'enroll'] as const;
export type PasskeyItemKind = (typeof PASSKEY_ITEM_KINDS)[number];

/** Bounds on every field: a signed answer is a few hundred bytes, never an agent's payload. */
export const SIGNED_LIMITS = {id: 200, digest: 128, answer: 40, nonce: 64} as const;

/** The version tag inside the hashed text: a later format never collides with this one. */
export const SIGNED_ANSWER_VERSION = 'controlroom-answer/1';

const bounded = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));

/** A signed answer as it crosses an edge (the page posts it back): checked field by field. */
export const signedAnswerSchema = z.strictObject({
	v: z.literal(SIGNED_ANSWER_VERSION),
	item: z.strictObject({kind: z.enum(PASSKEY_ITEM_KINDS), id: bounded(SIGNED_LIMITS.id)}),
	/** The item as shown: a question's or order's arguments' SHA-256 (hex), a hand-in's revision. */
	digest: bounded(SIGNED_LIMITS.digest),
	/** allow, deny, approve, reject, accept, ack, send-back, on, off, enroll. */
	answer: z.string().check(z.regex(/^[a-z][a-z0-9-]{0,39}$/)),
	/** Milliseconds since the epoch after which the answer is refused. */
	expiresAt: z.number().check(z.int(), z.positive()),
	/** Base64url of at least 16 random bytes, chosen by the server: one use ever. */
	nonce: z.string().check(z.regex(/^[A-Za-z0-9_-]{22,64}$/)),
});

export type SignedAnswer = z.infer<typeof signedAnswerSchema>;

/** The canonical text of a signed answer (RFC 8785): one text per answer, whatever its key order. */
export function signedAnswerText(signed: SignedAnswer): string {
	return canonicalize(signed) ?? '';
}

/** The WebAuthn challenge's bytes for a signed answer: SHA-256 of its canonical text. */
export function challengeBytes(signed: SignedAnswer): Uint8Array {
	return sha256(utf8ToBytes(signedAnswerText(signed)));
}

/** Reads a signed answer from untrusted JSON: the answer, or one line naming what is wrong. */
export function parseSignedAnswer(value: unknown): {ok: true; signed: SignedAnswer} | {ok: false; problem: string} {
	const parsed = signedAnswerSchema.safeParse(value);
	if (parsed.success) return {ok: true, signed: parsed.data};
	const issue = parsed.error.issues[0];
	const where = issue?.path.length ? issue.path.join('.') : 'the signed answer';
	return {ok: false, problem: `${where}: ${issue?.message ?? 'not a signed answer'}`};
}
