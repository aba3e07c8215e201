import {EventType} from '../../core/events.ts';
import type {PasskeyItemKind} from '../../core/passkey/signed-answer.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {readPasskeys} from '../../ledger/passkeys.ts';
import {spendProof, type PasskeyProof} from './answer.ts';
import {PasskeyError} from './relying-party.ts';

/** What a gate is about to carry out, which a proof must have signed exactly. */
export type ProofExpectation = {
	/** The task the answer's events go on (a question's agent task, an order's id). */
	readonly taskId: string;
	readonly item: {readonly kind: PasskeyItemKind; readonly id: string};
	readonly digest: string;
	readonly answer: string;
	readonly source: string;
	readonly at: number;
};

/** Why a proof does not cover this call, or null. */
function mismatch(proof: PasskeyProof, expect: ProofExpectation): string | null {
	const signed = proof.signed;
	if (signed.item.kind !== expect.item.kind || signed.item.id !== expect.item.id)
		return `it was signed for ${signed.item.kind} ${signed.item.id}, not ${expect.item.kind} ${expect.item.id}`;
	if (signed.digest !== expect.digest)
		return `it was signed for other arguments (${signed.digest.slice(0, 12)}, now ${expect.digest.slice(0, 12)}); answer again`;
	if (signed.answer !== expect.answer) return `it was signed to ${signed.answer}, not to ${expect.answer}`;
	return null;
}

/**
 * Records a passkey answer as a gate carries it out: call it inside the gate's write transaction,
 * before the gate's own event. It spends the proof (one use per check), refuses a proof made for
 * another item, other arguments or another answer, and a nonce the ledger already holds (a
 * replay, however the proof was made), then appends `passkey.asserted` with everything needed to
 * check the signature later from the ledger alone. Returns the passkey's name for the `by` field.
 */
export function recordPasskeyAnswer(ledger: Ledger, proof: PasskeyProof, expect: ProofExpectation): string {
	if (!spendProof(proof)) throw new PasskeyError('refused: this passkey answer was not checked here, or was already used');
	const wrong = mismatch(proof, expect);
	if (wrong !== null) throw new PasskeyError(`refused: ${wrong}`);
	const state = readPasskeys(ledger.reader);
	if (state.usedNonces.has(proof.signed.nonce)) throw new PasskeyError('refused: a replay: this signed answer was already used');
	const passkey = state.passkeys.find(known => known.credentialId === proof.passkey.credentialId);
	if (!passkey) throw new PasskeyError('refused: the passkey is no longer enrolled');
	ledger.writer.append([
		{
			taskId: expect.taskId,
			type: EventType.passkeyAsserted,
			at: expect.at,
			source: expect.source,
			data: {
				credentialId: passkey.credentialId,
				name: passkey.name,
				publicKey: passkey.publicKey,
				signed: proof.signed,
				authenticatorData: proof.response.response.authenticatorData,
				clientDataJSON: proof.response.response.clientDataJSON,
				signature: proof.response.response.signature,
				origin: proof.origin,
				rpId: proof.rpId,
				counter: proof.newCounter,
			},
		},
	]);
	return `passkey ${passkey.name}`;
}
