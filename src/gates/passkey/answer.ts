import {randomBytes} from 'node:crypto';
import {
	generateAuthenticationOptions,
	verifyAuthenticationResponse,
	type AuthenticationResponseJSON,
	type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import type {EnrolledPasskey} from '../../core/passkey/fold.ts';
import {
	challengeBytes,
	parseSignedAnswer,
	SIGNED_ANSWER_VERSION,
	type PasskeyItemKind,
	type SignedAnswer,
} from '../../core/passkey/signed-answer.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {readPasskeys} from '../../ledger/passkeys.ts';
import {base64url, PasskeyError, type RelyingParty} from './relying-party.ts';
import {assertionSchema, parseEdge, type AssertionJSON} from './response-shape.ts';

// An answer signed with a passkey (docs/passkeys.md): the options the page passes to
// navigator.credentials.get, and the check of what comes back. A checked answer is a proof that
// only this module makes; a gate records it with the answer in one transaction (record.ts).

/** How long a signed answer may wait between showing and answering, by default. */
export const ANSWER_TTL_MS = 5 * 60_000;

/** What a person is about to answer: the item, what it was when shown, and the answer. */
export type AnswerRequest = {
	readonly item: {readonly kind: PasskeyItemKind; readonly id: string};
	/** A question's or order's arguments' SHA-256 (hex), a hand-in's revision, the policy asked for. */
	readonly digest: string;
	readonly answer: string;
	readonly now?: number;
	readonly ttlMs?: number;
};

/** A checked passkey answer: what was signed, by which passkey, and what the authenticator returned. */
export type PasskeyProof = {
	readonly signed: SignedAnswer;
	readonly passkey: EnrolledPasskey;
	readonly response: AssertionJSON;
	readonly origin: string;
	readonly rpId: string;
	readonly newCounter: number;
};

/** The proofs this process checked and has not yet recorded: a hand-made object is never one. */
const genuine = new WeakSet<PasskeyProof>();

/** True when `proof` was made by verifyAnswer in this process and not yet used. */
export function isGenuineProof(proof: PasskeyProof): boolean {
	return genuine.has(proof);
}

/** Marks a proof used: a second use of the same object is refused (record.ts). */
export function spendProof(proof: PasskeyProof): boolean {
	return genuine.delete(proof);
}

/**
 * The options for `navigator.credentials.get` for one answer: the challenge is derived from the
 * signed answer (item, digest, answer, expiry, a fresh nonce), user verification required, only
 * enrolled passkeys allowed. The page posts the signed answer back beside the assertion. Refused
 * (PasskeyError) when no passkey is enrolled.
 */
export async function answerOptions(
	ledger: Ledger,
	rp: RelyingParty,
	request: AnswerRequest,
): Promise<{readonly signed: SignedAnswer; readonly options: PublicKeyCredentialRequestOptionsJSON}> {
	const {passkeys} = readPasskeys(ledger.reader);
	if (passkeys.length === 0) throw new PasskeyError('no passkey is enrolled; a person enrolls one with `controlroom web enroll`');
	const parsed = parseSignedAnswer({
		v: SIGNED_ANSWER_VERSION,
		item: request.item,
		digest: request.digest,
		answer: request.answer,
		expiresAt: (request.now ?? Date.now()) + (request.ttlMs ?? ANSWER_TTL_MS),
		nonce: randomBytes(18).toString('base64url'),
	});
	if (!parsed.ok) throw new PasskeyError(parsed.problem);
	const options = await generateAuthenticationOptions({
		rpID: rp.rpId,
		challenge: new Uint8Array(challengeBytes(parsed.signed)),
		allowCredentials: passkeys.map(passkey => ({id: passkey.credentialId, transports: [...passkey.transports]})),
		userVerification: 'required',
		timeout: request.ttlMs ?? ANSWER_TTL_MS,
	});
	return {signed: parsed.signed, options};
}

/** The library's words for a failed check, as one line. */
function checkFailure(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	return message.replace(/\s+/g, ' ').slice(0, 200);
}

/**
 * Checks a passkey answer as the page posted it (`signed`, `response`: untrusted JSON): the
 * signed answer's shape and expiry, an enrolled credential, the nonce never used, then the
 * signature over the challenge derived from the signed answer, the origin, the RP id, user
 * verification and the counter (by @simplewebauthn/server). Returns a proof for one gate call;
 * every refusal is a PasskeyError of one line. Writes nothing: the gate records the proof.
 */
export async function verifyAnswer(
	ledger: Ledger,
	rp: RelyingParty,
	posted: {readonly signed: unknown; readonly response: unknown; readonly now?: number},
): Promise<PasskeyProof> {
	const signedRead = parseSignedAnswer(posted.signed);
	if (!signedRead.ok) throw new PasskeyError(`refused: ${signedRead.problem}`);
	const response = parseEdge(assertionSchema, 'assertion', posted.response);
	if (!response.ok) throw new PasskeyError(`refused: ${response.problem}`);
	const signed = signedRead.signed;
	if ((posted.now ?? Date.now()) > signed.expiresAt)
		throw new PasskeyError(`refused: the signed answer expired at ${new Date(signed.expiresAt).toISOString()}; answer again`);
	const state = readPasskeys(ledger.reader);
	const passkey = state.passkeys.find(known => known.credentialId === response.value.id);
	if (!passkey) throw new PasskeyError(`refused: credential ${response.value.id.slice(0, 12)} is not an enrolled passkey`);
	if (state.usedNonces.has(signed.nonce)) throw new PasskeyError('refused: a replay: this signed answer was already used');
	let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
	try {
		verified = await verifyAuthenticationResponse({
			response: response.value as AuthenticationResponseJSON,
			expectedChallenge: base64url(challengeBytes(signed)),
			expectedOrigin: [...rp.origins],
			expectedRPID: rp.rpId,
			expectedType: 'webauthn.get',
			credential: {id: passkey.credentialId, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.counter},
			requireUserVerification: true,
		});
	} catch (error) {
		throw new PasskeyError(`refused: ${checkFailure(error)}`);
	}
	if (!verified.verified || !verified.authenticationInfo.userVerified)
		throw new PasskeyError('refused: the signature does not verify with the enrolled public key');
	const proof: PasskeyProof = {
		signed,
		passkey,
		response: response.value,
		origin: verified.authenticationInfo.origin,
		rpId: verified.authenticationInfo.rpID,
		newCounter: verified.authenticationInfo.newCounter,
	};
	genuine.add(proof);
	return proof;
}
