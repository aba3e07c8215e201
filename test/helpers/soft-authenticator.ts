import {createHash, generateKeyPairSync, randomBytes, sign, type KeyObject} from 'node:crypto';

// A software authenticator for tests (docs/passkeys.md, "Tests"): a real P-256 key pair that makes
// genuine WebAuthn registrations (packed-less `none` attestation, a COSE key in the attested
// credential data) and assertions (authenticator data, client data JSON, an ECDSA signature over
// both), byte for byte as the specification lays them out, so the server's library checks them
// as it checks a browser's. Nothing on the server side is replaced.

type CborValue = number | string | Uint8Array | ReadonlyMap<CborValue, CborValue>;

function head(major: number, length: number): Buffer {
	if (length < 24) return Buffer.from([(major << 5) | length]);
	if (length < 256) return Buffer.from([(major << 5) | 24, length]);
	if (length < 65_536) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
	const bytes = Buffer.alloc(5);
	bytes[0] = (major << 5) | 26;
	bytes.writeUInt32BE(length, 1);
	return bytes;
}

/** The little CBOR (RFC 8949) WebAuthn needs: integers, byte and text strings, maps. */
export function cbor(value: CborValue): Buffer {
	if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
	if (typeof value === 'string') {
		const text = Buffer.from(value, 'utf8');
		return Buffer.concat([head(3, text.length), text]);
	}
	if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
	const parts = [head(5, value.size)];
	for (const [key, item] of value) parts.push(cbor(key), cbor(item));
	return Buffer.concat(parts);
}

const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();
const b64u = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

/** Flags of authenticator data: user present, user verified, attested credential data. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export type SoftOptions = {
	/** Set the UV flag (a PIN, a fingerprint). */
	readonly userVerified?: boolean;
	/** The origin the "browser" reports in client data. */
	readonly origin: string;
	/** The RP id whose hash goes in authenticator data (defaults to the options' own). */
	readonly rpId?: string;
};

export class SoftAuthenticator {
	readonly credentialId = randomBytes(16);
	readonly privateKey: KeyObject;
	readonly publicKey: KeyObject;
	counter = 0;

	constructor() {
		const pair = generateKeyPairSync('ec', {namedCurve: 'P-256'});
		this.privateKey = pair.privateKey;
		this.publicKey = pair.publicKey;
	}

	get id(): string {
		return b64u(this.credentialId);
	}

	/** The public key as COSE (EC2, ES256, P-256). */
	coseKey(): Buffer {
		const jwk = this.publicKey.export({format: 'jwk'});
		return cbor(
			new Map<CborValue, CborValue>([
				[1, 2],
				[3, -7],
				[-1, 1],
				[-2, Buffer.from(jwk.x ?? '', 'base64url')],
				[-3, Buffer.from(jwk.y ?? '', 'base64url')],
			]),
		);
	}

	private authData(rpId: string, flags: number, attested: Buffer | null): Buffer {
		const counter = Buffer.alloc(4);
		counter.writeUInt32BE(this.counter);
		return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter, ...(attested ? [attested] : [])]);
	}

	/** navigator.credentials.create's answer to `options` (PublicKeyCredentialCreationOptionsJSON), as toJSON() gives it. */
	register(options: {challenge: string; rp: {id?: string}}, how: SoftOptions) {
		const rpId = how.rpId ?? options.rp.id ?? 'localhost';
		const idLength = Buffer.alloc(2);
		idLength.writeUInt16BE(this.credentialId.length);
		const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey()]);
		const flags = UP | AT | (how.userVerified === false ? 0 : UV);
		const authData = this.authData(rpId, flags, attested);
		const clientData = Buffer.from(
			JSON.stringify({type: 'webauthn.create', challenge: options.challenge, origin: how.origin, crossOrigin: false}),
		);
		const attestationObject = cbor(
			new Map<CborValue, CborValue>([
				['fmt', 'none'],
				['attStmt', new Map()],
				['authData', authData],
			]),
		);
		return {
			id: this.id,
			rawId: this.id,
			type: 'public-key' as const,
			response: {clientDataJSON: b64u(clientData), attestationObject: b64u(attestationObject), transports: ['internal']},
			clientExtensionResults: {},
			authenticatorAttachment: 'platform',
		};
	}

	/** navigator.credentials.get's answer to `options` (PublicKeyCredentialRequestOptionsJSON), as toJSON() gives it. */
	assert(options: {challenge: string; rpId?: string}, how: SoftOptions) {
		this.counter += 1;
		const rpId = how.rpId ?? options.rpId ?? 'localhost';
		const authData = this.authData(rpId, UP | (how.userVerified === false ? 0 : UV), null);
		const clientData = Buffer.from(
			JSON.stringify({type: 'webauthn.get', challenge: options.challenge, origin: how.origin, crossOrigin: false}),
		);
		const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey);
		return {
			id: this.id,
			rawId: this.id,
			type: 'public-key' as const,
			response: {
				authenticatorData: b64u(authData),
				clientDataJSON: b64u(clientData),
				signature: b64u(signature),
				userHandle: null,
			},
			clientExtensionResults: {},
			authenticatorAttachment: 'platform',
		};
	}
}
