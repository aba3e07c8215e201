import {ReviewGateError} from '../gate-error.ts';

// Who the passkeys are for (docs/passkeys.md): the relying party's id is the host name the page is
// served on (`localhost` on this machine: WebAuthn takes no IP address as an RP id, so the page is
// opened at http://localhost:PORT, a secure context), and the origins an answer may come from.

/** The relying party a registration or an answer is checked against. */
export type RelyingParty = {
	/** The host name: `localhost`, or the name a tunnel or tailnet serves the page under. */
	readonly rpId: string;
	/** Shown by the browser at registration. */
	readonly rpName: string;
	/** Exact origins (scheme, host, port) the page may be served from. */
	readonly origins: readonly string[];
};

/** The relying party of a page served on this machine at `http://localhost:PORT`. */
export function localRelyingParty(port: number): RelyingParty {
	return {rpId: 'localhost', rpName: 'controlroom', origins: [`http://localhost:${port}`]};
}

/** A passkey refusal: one line naming the problem (forged, replayed, expired, other arguments, ...); exit 1. */
export class PasskeyError extends ReviewGateError {
	constructor(message: string) {
		super(message);
		this.name = 'PasskeyError';
	}
}

/** Base64url of bytes (WebAuthn's JSON encoding). */
export const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
