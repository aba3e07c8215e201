import {foldPasskeys, PASSKEY_EVENT_TYPES, type PasskeyState} from '../core/passkey/fold.ts';
import type {LedgerReader} from './reader.ts';

/** The enrolled passkeys, the used nonces and the approvals policy, folded from the ledger (docs/passkeys.md). */
export function readPasskeys(reader: LedgerReader): PasskeyState {
	return foldPasskeys(reader.eventsOfType(PASSKEY_EVENT_TYPES));
}
