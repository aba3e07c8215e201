import {randomBytes} from 'node:crypto';
import {
	generateRegistrationOptions,
	verifyRegistrationResponse,
	type PublicKeyCredentialCreationOptionsJSON,
	type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import {EventType} from '../../core/events.ts';
import type {EnrolledPasskey} from '../../core/passkey/fold.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {readPasskeys} from '../../ledger/passkeys.ts';
import type {PasskeyProof} from './answer.ts';
import {recordPasskeyAnswer} from './record.ts';
import {base64url, PasskeyError, type RelyingParty} from './relying-party.ts';
import {parseEdge, registrationSchema} from './response-shape.ts';

// Enrolling a passkey (docs/passkeys.md): the options for navigator.credentials.create and the
// check of what comes back. The first passkey is enrolled by a person at a terminal (`controlroom
// web enroll`, the person gate); every later one also needs an answer signed by an enrolled one.

/** How long a registration may take in the browser. */
export const REGISTRATION_TTL_MS = 5 * 60_000;
/** A passkey's name is a person's label ("laptop Touch ID"): one short line. */
export const PASSKEY_NAME_MAX = 60;

/** A registration under way: held by whoever serves the page, used once. */
export type PendingRegistration = {
	/** Names the registration in the approving answer (`enroll` item). */
	readonly id: string;
	/** The registration challenge, base64url. */
	readonly challenge: string;
	readonly name: string;
	readonly expiresAt: number;
	/** Whether an enrolled passkey must approve it (one already exists). */
	readonly needsApproval: boolean;
};

/** A passkey's name as given: one line, printable, bounded; or one line saying what is wrong. */
export function checkPasskeyName(name: string): string {
	const line = name.replace(/\s+/g, ' ').trim();
	if (line === '') throw new PasskeyError('--name: give the passkey a name you will recognise (e.g. "laptop Touch ID")');
	if (line.length > PASSKEY_NAME_MAX)
		throw new PasskeyError(`--name: at most ${PASSKEY_NAME_MAX} characters, got ${line.length}`);
	// eslint-disable-next-line no-control-regex -- control characters are what is refused
	if (/[\u0000-\u001f\u007f-\u009f]/.test(line)) throw new PasskeyError('--name: control characters are not allowed');
	return line;
}

/**
 * Starts a registration: the options for `navigator.credentials.create` (user verification
 * required, a resident key preferred, the enrolled passkeys excluded, no attestation asked) and
 * the pending registration to keep until the browser answers.
 */
export async function registrationOptions(
	ledger: Ledger,
	rp: RelyingParty,
	request: {readonly name: string; readonly user: string; readonly now?: number},
): Promise<{readonly pending: PendingRegistration; readonly options: PublicKeyCredentialCreationOptionsJSON}> {
	const name = checkPasskeyName(request.name);
	const {passkeys} = readPasskeys(ledger.reader);
	const challenge = randomBytes(32);
	const options = await generateRegistrationOptions({
		rpName: rp.rpName,
		rpID: rp.rpId,
		userName: request.user,
		userDisplayName: `${request.user} (controlroom)`,
		challenge,
		timeout: REGISTRATION_TTL_MS,
		attestationType: 'none',
		excludeCredentials: passkeys.map(passkey => ({id: passkey.credentialId, transports: [...passkey.transports]})),
		authenticatorSelection: {residentKey: 'preferred', userVerification: 'required'},
		supportedAlgorithmIDs: [-7, -257, -8],
	});
	const pending: PendingRegistration = {
		id: `enroll-${randomBytes(6).toString('hex')}`,
		challenge: base64url(challenge),
		name,
		expiresAt: (request.now ?? Date.now()) + REGISTRATION_TTL_MS,
		needsApproval: passkeys.length > 0,
	};
	return {pending, options};
}

/** The answer an enrolled passkey signs to approve one registration. */
export function enrollApproval(pending: PendingRegistration): {
	readonly item: {readonly kind: 'enroll'; readonly id: string};
	readonly digest: string;
	readonly answer: string;
} {
	return {item: {kind: 'enroll', id: pending.id}, digest: pending.challenge, answer: 'enroll'};
}

/**
 * Checks a registration and records the passkey (`passkey.enrolled`: credential id, COSE public
 * key, counter, name, created at). Once a passkey exists, `approval` must be an answer signed by an
 * enrolled passkey for this very registration (enrollApproval), recorded beside it.
 */
export async function verifyRegistration(
	ledger: Ledger,
	rp: RelyingParty,
	pending: PendingRegistration,
	response: unknown,
	options: {readonly by: string; readonly approval?: PasskeyProof; readonly now?: number; readonly source?: string},
): Promise<EnrolledPasskey> {
	const now = options.now ?? Date.now();
	if (now > pending.expiresAt) throw new PasskeyError('refused: the registration expired; run `controlroom web enroll` again');
	const parsed = parseEdge(registrationSchema, 'registration', response);
	if (!parsed.ok) throw new PasskeyError(`refused: ${parsed.problem}`);
	let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
	try {
		verified = await verifyRegistrationResponse({
			response: parsed.value as RegistrationResponseJSON,
			expectedChallenge: pending.challenge,
			expectedOrigin: [...rp.origins],
			expectedRPID: rp.rpId,
			requireUserVerification: true,
		});
	} catch (error) {
		throw new PasskeyError(`refused: ${(error instanceof Error ? error.message : String(error)).slice(0, 200)}`);
	}
	if (!verified.verified) throw new PasskeyError('refused: the registration does not verify');
	const {credential} = verified.registrationInfo;
	const source = options.source ?? 'cli';
	return ledger.writer.transaction(() => {
		const before = readPasskeys(ledger.reader);
		if (before.passkeys.some(passkey => passkey.credentialId === credential.id))
			throw new PasskeyError('refused: that passkey is already enrolled');
		let approvedBy: string | null = null;
		if (before.passkeys.length > 0) {
			if (!options.approval)
				throw new PasskeyError('refused: a passkey is enrolled already; another needs an answer signed by an enrolled passkey');
			recordPasskeyAnswer(ledger, options.approval, {
				taskId: 'passkeys',
				...enrollApproval(pending),
				source,
				at: now,
			});
			approvedBy = options.approval.passkey.credentialId;
		}
		ledger.writer.append([
			{
				taskId: 'passkeys',
				type: EventType.passkeyEnrolled,
				at: now,
				source,
				data: {
					credentialId: credential.id,
					publicKey: base64url(credential.publicKey),
					counter: credential.counter,
					name: pending.name,
					transports: credential.transports ?? [],
					rpId: verified.registrationInfo.rpID ?? rp.rpId,
					origin: verified.registrationInfo.origin,
					by: options.by,
					approvedBy,
				},
			},
		]);
		const enrolled = readPasskeys(ledger.reader).passkeys.find(passkey => passkey.credentialId === credential.id);
		if (!enrolled) throw new PasskeyError('the passkey was not recorded');
		return enrolled;
	});
}
