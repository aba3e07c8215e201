import {EventType} from '../../core/events.ts';
import type {ApprovalsPolicy} from '../../core/passkey/fold.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {readPasskeys} from '../../ledger/passkeys.ts';
import type {PasskeyProof} from './answer.ts';
import {recordPasskeyAnswer} from './record.ts';
import {PasskeyError} from './relying-party.ts';

// The approvals policy (docs/passkeys.md, "Passkeys required"): `passkey` is recorded in the
// ledger the first time a command sees `"approvals": "passkey"` in the config file, and from then
// on the ledger decides, not the file: deleting the key changes nothing. Only an answer signed by
// an enrolled passkey turns it off.

/** The answer an enrolled passkey signs to turn the policy off. */
export const POLICY_OFF_ANSWER = {item: {kind: 'policy', id: 'approvals'}, digest: 'passkey', answer: 'off'} as const;

/** The policy in force: the ledger's. */
export function approvalsPolicy(ledger: Ledger): ApprovalsPolicy {
	return readPasskeys(ledger.reader).policy;
}

/**
 * Records `passkey` when the config file asks for it and the ledger does not have it yet (once).
 * Returns the policy in force; the caller skips a read-only ledger.
 */
export function adoptConfiguredPolicy(ledger: Ledger, configured: ApprovalsPolicy | undefined, by: string): ApprovalsPolicy {
	const current = approvalsPolicy(ledger);
	if (configured !== 'passkey' || current === 'passkey') return current;
	return ledger.writer.transaction(() => {
		if (approvalsPolicy(ledger) === 'passkey') return 'passkey';
		ledger.writer.append([
			{
				taskId: 'passkeys',
				type: EventType.approvalsSet,
				at: Date.now(),
				source: 'config',
				data: {policy: 'passkey', by, credentialId: null, how: 'config file'},
			},
		]);
		return 'passkey';
	});
}

/**
 * Turns the policy off: refused unless `proof` is an enrolled passkey's answer to POLICY_OFF_ANSWER,
 * recorded beside the change. Turning it off when it is off is nothing.
 */
export function turnPolicyOff(ledger: Ledger, proof: PasskeyProof | undefined, source = 'cli'): void {
	ledger.writer.transaction(() => {
		if (approvalsPolicy(ledger) !== 'passkey') return;
		if (!proof) throw new PasskeyError('refused: turning `approvals: passkey` off needs an answer signed by an enrolled passkey');
		const at = Date.now();
		const by = recordPasskeyAnswer(ledger, proof, {taskId: 'passkeys', ...POLICY_OFF_ANSWER, source, at});
		ledger.writer.append([
			{
				taskId: 'passkeys',
				type: EventType.approvalsSet,
				at,
				source,
				data: {policy: 'terminal', by, credentialId: proof.passkey.credentialId, how: 'passkey'},
			},
		]);
	});
}
