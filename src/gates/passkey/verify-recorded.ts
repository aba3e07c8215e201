import {verifyAuthenticationResponse, type AuthenticationResponseJSON} from '@simplewebauthn/server';
import {EventType, type LedgerEvent} from '../../core/events.ts';
import {challengeBytes, parseSignedAnswer, type SignedAnswer} from '../../core/passkey/signed-answer.ts';
import {base64url} from './relying-party.ts';

/** What a recorded answer's check found: the signed answer and who signed it, or why it fails. */
export type RecordedCheck =
	| {readonly ok: true; readonly signed: SignedAnswer; readonly name: string; readonly credentialId: string}
	| {readonly ok: false; readonly problem: string};

/**
 * Checks a `passkey.asserted` event from the event alone (docs/passkeys.md, "Checking later"): the
 * challenge is derived again from the recorded signed answer, and the recorded authenticator data,
 * client data and signature are verified with the recorded public key, for the recorded origin
 * and RP id, user verification required. A changed answer, digest or nonce changes the challenge,
 * so it no longer verifies. The public key's enrollment is its own event (`passkey.enrolled`).
 */
export async function verifyRecordedAnswer(event: LedgerEvent): Promise<RecordedCheck> {
	if (event.type !== EventType.passkeyAsserted) return {ok: false, problem: `event ${event.seq} is not a passkey answer`};
	const data = event.data;
	const signed = parseSignedAnswer(data.signed);
	if (!signed.ok) return {ok: false, problem: `event ${event.seq}: ${signed.problem}`};
	const {credentialId, publicKey, authenticatorData, clientDataJSON, signature, origin, rpId} = data;
	if (!credentialId || !publicKey || !authenticatorData || !clientDataJSON || !signature || !origin || !rpId)
		return {ok: false, problem: `event ${event.seq}: a field of the assertion is missing`};
	try {
		const result = await verifyAuthenticationResponse({
			response: {
				id: credentialId,
				rawId: credentialId,
				type: 'public-key',
				response: {authenticatorData, clientDataJSON, signature},
				clientExtensionResults: {},
			} satisfies AuthenticationResponseJSON,
			expectedChallenge: base64url(challengeBytes(signed.signed)),
			expectedOrigin: origin,
			expectedRPID: rpId,
			expectedType: 'webauthn.get',
			// The counter was checked when the answer came; here only the signature is.
			credential: {id: credentialId, publicKey: Buffer.from(publicKey, 'base64url'), counter: 0},
			requireUserVerification: true,
		});
		if (!result.verified) return {ok: false, problem: `event ${event.seq}: the signature does not verify`};
	} catch (error) {
		return {ok: false, problem: `event ${event.seq}: ${error instanceof Error ? error.message : String(error)}`};
	}
	return {ok: true, signed: signed.signed, name: data.name ?? 'passkey', credentialId};
}
