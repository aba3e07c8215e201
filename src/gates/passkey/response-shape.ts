import * as z from 'zod/mini';

// What a browser posts back, checked at the edge before any of it is decoded (docs/passkeys.md):
// base64url fields with bounds far above any real authenticator's and far below a flood.

/** A credential id is at most 1023 bytes (WebAuthn level 3): 1364 base64url characters. */
const CREDENTIAL_ID_CHARS = 1400;
/** Client data, authenticator data, signatures, attestations: a few hundred bytes each in practice. */
const FIELD_CHARS = 16_384;

const b64u = (max: number) => z.string().check(z.minLength(1), z.maxLength(max), z.regex(/^[A-Za-z0-9_-]+$/));

/** An assertion (`navigator.credentials.get`), as PublicKeyCredential's toJSON() gives it. */
export const assertionSchema = z.looseObject({
	id: b64u(CREDENTIAL_ID_CHARS),
	rawId: b64u(CREDENTIAL_ID_CHARS),
	type: z.literal('public-key'),
	response: z.looseObject({
		clientDataJSON: b64u(FIELD_CHARS),
		authenticatorData: b64u(FIELD_CHARS),
		signature: b64u(FIELD_CHARS),
		userHandle: z.optional(z.nullable(b64u(FIELD_CHARS))),
	}),
	clientExtensionResults: z.optional(z.record(z.string(), z.unknown())),
	authenticatorAttachment: z.optional(z.nullable(z.string().check(z.maxLength(40)))),
});
export type AssertionJSON = z.infer<typeof assertionSchema>;

/** A registration (`navigator.credentials.create`), as toJSON() gives it. */
export const registrationSchema = z.looseObject({
	id: b64u(CREDENTIAL_ID_CHARS),
	rawId: b64u(CREDENTIAL_ID_CHARS),
	type: z.literal('public-key'),
	response: z.looseObject({
		clientDataJSON: b64u(FIELD_CHARS),
		attestationObject: b64u(FIELD_CHARS),
		transports: z.optional(z.array(z.string().check(z.maxLength(40))).check(z.maxLength(10))),
	}),
	clientExtensionResults: z.optional(z.record(z.string(), z.unknown())),
	authenticatorAttachment: z.optional(z.nullable(z.string().check(z.maxLength(40)))),
});

/** Parses an edge value, or one line naming the first problem. */
export function parseEdge<T>(
	schema: z.ZodMiniType<T>,
	what: string,
	value: unknown,
): {ok: true; value: T} | {ok: false; problem: string} {
	const parsed = schema.safeParse(value);
	if (parsed.success) return {ok: true, value: parsed.data};
	const issue = parsed.error.issues[0];
	const where = issue?.path.length ? `${what}.${issue.path.join('.')}` : what;
	return {ok: false, problem: `${where}: ${issue?.message ?? 'malformed'}`};
}
