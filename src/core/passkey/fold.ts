import {EventType, type EventOfType} from '../events.ts';

// The passkeys a ledger knows and the approvals policy, folded from their events (docs/passkeys.md).
// Pure: the reads are src/ledger/passkeys.ts.

export const PASSKEY_EVENT_TYPES = [EventType.passkeyEnrolled, EventType.passkeyAsserted, EventType.approvalsSet] as const;
type PasskeyEvent = EventOfType<(typeof PASSKEY_EVENT_TYPES)[number]>;

/** An enrolled passkey: what its enrollment recorded, and its newest signature counter. */
export type EnrolledPasskey = {
	readonly credentialId: string;
	/** COSE public key, base64url. */
	readonly publicKey: string;
	readonly counter: number;
	readonly name: string;
	readonly transports: readonly string[];
	readonly createdAt: number;
	readonly by: string | null;
	readonly seq: number;
};

/** `terminal`: the actor rule alone (the default); `passkey`: every yes is passkey-signed. */
export type ApprovalsPolicy = 'terminal' | 'passkey';

export type PasskeyState = {
	/** Enrolled passkeys, oldest first. */
	readonly passkeys: readonly EnrolledPasskey[];
	/** Every nonce a recorded answer used: an answer whose nonce is here is a replay. */
	readonly usedNonces: ReadonlySet<string>;
	readonly policy: ApprovalsPolicy;
	/** When the policy was last set, and by whom (null: never set). */
	readonly policySetAt: number | null;
};

function nonceOf(signed: unknown): string | null {
	if (typeof signed !== 'object' || signed === null) return null;
	const nonce = (signed as {nonce?: unknown}).nonce;
	return typeof nonce === 'string' ? nonce : null;
}

/** Folds passkey and policy events (oldest first) into the state the gates check. */
export function foldPasskeys(events: Iterable<PasskeyEvent>): PasskeyState {
	const passkeys = new Map<string, EnrolledPasskey>();
	const usedNonces = new Set<string>();
	let policy: ApprovalsPolicy = 'terminal';
	let policySetAt: number | null = null;
	for (const event of events) {
		switch (event.type) {
			case EventType.passkeyEnrolled: {
				const {credentialId, publicKey} = event.data;
				if (!credentialId || !publicKey || passkeys.has(credentialId)) break;
				passkeys.set(credentialId, {
					credentialId,
					publicKey,
					counter: event.data.counter ?? 0,
					name: event.data.name ?? 'passkey',
					transports: event.data.transports ?? [],
					createdAt: event.at,
					by: event.data.by ?? null,
					seq: event.seq,
				});
				break;
			}
			case EventType.passkeyAsserted: {
				const nonce = nonceOf(event.data.signed);
				if (nonce !== null) usedNonces.add(nonce);
				const known = event.data.credentialId ? passkeys.get(event.data.credentialId) : undefined;
				if (known && typeof event.data.counter === 'number' && event.data.counter > known.counter)
					passkeys.set(known.credentialId, {...known, counter: event.data.counter});
				break;
			}
			case EventType.approvalsSet:
				policy = event.data.policy === 'passkey' ? 'passkey' : 'terminal';
				policySetAt = event.at;
				break;
		}
	}
	return {passkeys: [...passkeys.values()], usedNonces, policy, policySetAt};
}
