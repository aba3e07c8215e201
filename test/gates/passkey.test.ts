import {writeFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {argsHash} from '../../src/core/decisions/args-hash.ts';
import {EventType, type LedgerEvent} from '../../src/core/events.ts';
import {askDecision, answerDecision, takeAnswer} from '../../src/gates/decisions.ts';
import {
	answerOptions,
	enrollApproval,
	localRelyingParty,
	registrationOptions,
	turnPolicyOff,
	adoptConfiguredPolicy,
	ANSWER_TTL_MS,
	approvalsPolicy,
	itemLink,
	itemPath,
	POLICY_OFF_ANSWER,
	verifyAnswer,
	verifyRecordedAnswer,
	verifyRegistration,
	type AnswerRequest,
} from '../../src/gates/passkey/index.ts';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {readPasskeys} from '../../src/ledger/passkeys.ts';
import {readWebAddress, removeWebAddress, webAddressPath, writeWebAddress} from '../../src/ledger/web-address.ts';
import {scratchLedger} from '../helpers/ledger.ts';
import {SoftAuthenticator} from '../helpers/soft-authenticator.ts';

// The passkey core (docs/passkeys.md): registrations and answers made by a software authenticator
// with a real P-256 key (test/helpers/soft-authenticator.ts), checked by @simplewebauthn/server
// exactly as a browser's would be; every bad input is refused with one line.

const RP = localRelyingParty(8421);
const ORIGIN = 'http://localhost:8421';
const ARGS = {command: 'rm -rf build'};

async function enroll(ledger: Ledger, key: SoftAuthenticator, name: string) {
	const {pending, options} = await registrationOptions(ledger, RP, {name, user: 'alice'});
	return verifyRegistration(ledger, RP, pending, key.register(options, {origin: ORIGIN}), {by: 'alice'});
}

function ask(ledger: Ledger, args: unknown = ARGS): string {
	return askDecision(ledger, {
		taskId: 'c-0123456789ab',
		kind: 'permission',
		agent: 'claude',
		tool: 'Bash',
		args,
		cwd: null,
		expiresAt: null,
		toolUseId: null,
		session: null,
		waiter: null,
		budget: null,
		source: 'claude',
	}).decisionId;
}

const allowOf = (id: string, args: unknown = ARGS): AnswerRequest => ({
	item: {kind: 'decision', id},
	digest: argsHash(args),
	answer: 'allow',
});

async function signedAnswer(ledger: Ledger, key: SoftAuthenticator, request: AnswerRequest, how = {origin: ORIGIN}) {
	const {signed, options} = await answerOptions(ledger, RP, request);
	return {signed, response: key.assert(options, how)};
}

/** One line, no stack: what every refusal must be. */
async function refusal(promise: Promise<unknown>): Promise<string> {
	const error = await promise.then(
		() => null,
		(caught: unknown) => caught,
	);
	expect(error).toBeInstanceOf(Error);
	const message = (error as Error).message;
	expect(message).not.toContain('\n');
	return message;
}

function asserted(ledger: Ledger): LedgerEvent[] {
	return ledger.reader.eventsOfType([EventType.passkeyAsserted]);
}

describe('passkey registration', () => {
	it('records the credential id, its public key, counter, name and when', async () => {
		const ledger = scratchLedger();
		const key = new SoftAuthenticator();
		const enrolled = await enroll(ledger, key, 'laptop touch id');
		expect(enrolled).toMatchObject({credentialId: key.id, name: 'laptop touch id', counter: 0, by: 'alice'});
		expect(Buffer.from(enrolled.publicKey, 'base64url').equals(key.coseKey())).toBe(true);
		expect(readPasskeys(ledger.reader).passkeys).toHaveLength(1);
	});

	it('refuses a registration without user verification, from another origin, or for another challenge', async () => {
		const ledger = scratchLedger();
		const key = new SoftAuthenticator();
		const {pending, options} = await registrationOptions(ledger, RP, {name: 'k', user: 'alice'});
		expect(
			await refusal(
				verifyRegistration(ledger, RP, pending, key.register(options, {origin: ORIGIN, userVerified: false}), {by: 'a'}),
			),
		).toMatch(/^refused: .*[Uu]ser verification/);
		expect(
			await refusal(verifyRegistration(ledger, RP, pending, key.register(options, {origin: 'http://localhost:9999'}), {by: 'a'})),
		).toMatch(/^refused: .*origin/i);
		const other = await registrationOptions(ledger, RP, {name: 'k', user: 'alice'});
		expect(
			await refusal(verifyRegistration(ledger, RP, pending, key.register(other.options, {origin: ORIGIN}), {by: 'a'})),
		).toMatch(/^refused: .*challenge/i);
		expect(readPasskeys(ledger.reader).passkeys).toEqual([]);
	});

	it('a second passkey needs an answer signed by the first', async () => {
		const ledger = scratchLedger();
		const first = new SoftAuthenticator();
		await enroll(ledger, first, 'first');
		const second = new SoftAuthenticator();
		const {pending, options} = await registrationOptions(ledger, RP, {name: 'second', user: 'alice'});
		expect(pending.needsApproval).toBe(true);
		const made = second.register(options, {origin: ORIGIN});
		expect(await refusal(verifyRegistration(ledger, RP, pending, made, {by: 'a'}))).toBe(
			'refused: a passkey is enrolled already; another needs an answer signed by an enrolled passkey',
		);
		// The second key cannot approve itself: it is not enrolled.
		const self = await signedAnswer(ledger, second, enrollApproval(pending));
		expect(await refusal(verifyAnswer(ledger, RP, self))).toMatch(/^refused: credential .* is not an enrolled passkey$/);
		const approval = await verifyAnswer(ledger, RP, await signedAnswer(ledger, first, enrollApproval(pending)));
		const enrolled = await verifyRegistration(ledger, RP, pending, made, {by: 'a', approval});
		expect(enrolled.name).toBe('second');
		expect(readPasskeys(ledger.reader).passkeys.map(passkey => passkey.name)).toEqual(['first', 'second']);
	});

	it('refuses a name that is empty, too long or holds control characters', async () => {
		const ledger = scratchLedger();
		for (const name of ['  ', 'x'.repeat(61), 'a\u001b[31mred']) {
			expect(await refusal(registrationOptions(ledger, RP, {name, user: 'a'}))).toMatch(/^--name: /);
		}
	});
});

describe('a decision answered with a passkey', () => {
	it('is carried out once, recorded with everything needed to check it from the ledger alone', async () => {
		const ledger = scratchLedger();
		const key = new SoftAuthenticator();
		await enroll(ledger, key, 'laptop');
		const id = ask(ledger);
		const proof = await verifyAnswer(ledger, RP, await signedAnswer(ledger, key, allowOf(id)));
		const answered = answerDecision(ledger, id, 'allow', null, null, {source: 'web', passkey: proof});
		expect(answered.answer).toMatchObject({answer: 'allow', by: 'passkey laptop'});
		expect(takeAnswer(ledger, id, argsHash(ARGS))).toMatchObject({answer: 'allow'});
		const [event] = asserted(ledger);
		expect(event?.taskId).toBe('c-0123456789ab');
		const check = await verifyRecordedAnswer(event!);
		expect(check).toMatchObject({
			ok: true,
			name: 'laptop',
			credentialId: key.id,
			signed: {item: {kind: 'decision', id}, answer: 'allow'},
		});
	});

	it('a recorded answer whose signed data was changed no longer verifies', async () => {
		const ledger = scratchLedger();
		const key = new SoftAuthenticator();
		await enroll(ledger, key, 'laptop');
		const id = ask(ledger);
		const proof = await verifyAnswer(ledger, RP, await signedAnswer(ledger, key, allowOf(id)));
		answerDecision(ledger, id, 'allow', null, null, {source: 'web', passkey: proof});
		const [event] = asserted(ledger) as [LedgerEvent & {type: 'passkey.asserted'}];
		const signed = event.data.signed as Record<string, unknown>;
		const changed = {...event, data: {...event.data, signed: {...signed, answer: 'deny'}}} as LedgerEvent;
		expect(await verifyRecordedAnswer(changed)).toMatchObject({ok: false, problem: expect.stringMatching(/challenge/i)});
		const otherKey = new SoftAuthenticator();
		const swapped = {...event, data: {...event.data, publicKey: otherKey.coseKey().toString('base64url')}} as LedgerEvent;
		expect(await verifyRecordedAnswer(swapped)).toMatchObject({ok: false});
	});

	it('refuses a replay: the same assertion again, once checked or once recorded', async () => {
		const ledger = scratchLedger();
		const key = new SoftAuthenticator();
		await enroll(ledger, key, 'laptop');
		const id = ask(ledger);
		const posted = await signedAnswer(ledger, key, allowOf(id));
		const proof = await verifyAnswer(ledger, RP, posted);
		answerDecision(ledger, id, 'allow', null, null, {source: 'web', passkey: proof});
		expect(await refusal(verifyAnswer(ledger, RP, posted))).toBe('refused: a replay: this signed answer was already used');
		// The same proof object given twice: spent.
		const second = ask(ledger);
		expect(() => answerDecision(ledger, second, 'allow', null, null, {source: 'web', passkey: proof})).toThrow(
			/not checked here, or was already used/,
		);
		expect(asserted(ledger)).toHaveLength(1);
	});

	it('refuses an assertion made for other arguments, another question or another answer; nothing is answered', async () => {
		const ledger = scratchLedger();
		const key = new SoftAuthenticator();
		await enroll(ledger, key, 'laptop');
		const id = ask(ledger);
		const otherArgs = await verifyAnswer(ledger, RP, await signedAnswer(ledger, key, allowOf(id, {command: 'ls'})));
		expect(() => answerDecision(ledger, id, 'allow', null, null, {source: 'web', passkey: otherArgs})).toThrow(
			/^refused: it was signed for other arguments/,
		);
		const otherQuestion = await verifyAnswer(ledger, RP, await signedAnswer(ledger, key, allowOf(ask(ledger))));
		expect(() => answerDecision(ledger, id, 'allow', null, null, {source: 'web', passkey: otherQuestion})).toThrow(
			/^refused: it was signed for decision d-\w+, not decision /,
		);
		const deny = await verifyAnswer(ledger, RP, await signedAnswer(ledger, key, {...allowOf(id), answer: 'deny'}));
		expect(() => answerDecision(ledger, id, 'allow', null, null, {source: 'web', passkey: deny})).toThrow(
			'refused: it was signed to deny, not to allow',
		);
		// The signed data changed after signing: the challenge no longer matches.
		const posted = await signedAnswer(ledger, key, allowOf(id, {command: 'ls'}));
		const forged = {...posted, signed: {...posted.signed, digest: argsHash(ARGS)}};
		expect(await refusal(verifyAnswer(ledger, RP, forged))).toMatch(/^refused: .*challenge/i);
		expect(takeAnswer(ledger, id, argsHash(ARGS))).toBeNull();
		expect(asserted(ledger)).toEqual([]);
	});

	it('refuses a forged signature, an expired answer, a wrong origin or RP id, no user verification, huge fields', async () => {
		const ledger = scratchLedger();
		const key = new SoftAuthenticator();
		await enroll(ledger, key, 'laptop');
		const id = ask(ledger);
		const good = await signedAnswer(ledger, key, allowOf(id));
		const forged = {
			...good,
			response: {
				...good.response,
				response: {
					...good.response.response,
					signature: new SoftAuthenticator().assert({challenge: 'x'}, {origin: ORIGIN}).response.signature,
				},
			},
		};
		expect(await refusal(verifyAnswer(ledger, RP, forged))).toMatch(/^refused: /);
		const impostor = new SoftAuthenticator();
		const wrongKey = {...good, response: {...impostor.assert({challenge: 'x'}, {origin: ORIGIN}), id: key.id, rawId: key.id}};
		expect(await refusal(verifyAnswer(ledger, RP, wrongKey))).toMatch(/^refused: /);
		expect(await refusal(verifyAnswer(ledger, RP, {...good, now: good.signed.expiresAt + 1}))).toMatch(
			/^refused: the signed answer expired at .*; answer again$/,
		);
		expect(
			await refusal(verifyAnswer(ledger, RP, await signedAnswer(ledger, key, allowOf(id), {origin: 'http://localhost:1'}))),
		).toMatch(/^refused: .*origin/i);
		const wrongRp = await signedAnswer(ledger, key, allowOf(id), {origin: ORIGIN, rpId: 'evil.example'} as never);
		expect(await refusal(verifyAnswer(ledger, RP, wrongRp))).toMatch(/^refused: .*RP ID/i);
		const noUv = await signedAnswer(ledger, key, allowOf(id), {origin: ORIGIN, userVerified: false} as never);
		expect(await refusal(verifyAnswer(ledger, RP, noUv))).toMatch(/^refused: .*[Uu]ser verification/);
		const huge = {
			...good,
			response: {...good.response, response: {...good.response.response, clientDataJSON: 'A'.repeat(10_000_000)}},
		};
		expect(await refusal(verifyAnswer(ledger, RP, huge))).toMatch(/^refused: assertion\.response\.clientDataJSON: /);
		const hugeId = {...good, signed: {...good.signed, item: {kind: 'decision', id: 'd'.repeat(1_000_000)}}};
		expect(await refusal(verifyAnswer(ledger, RP, hugeId))).toMatch(/^refused: item\.id: /);
		expect(await refusal(verifyAnswer(ledger, RP, {signed: 'nonsense', response: null}))).toMatch(/^refused: /);
		expect(takeAnswer(ledger, id, argsHash(ARGS))).toBeNull();
		expect(asserted(ledger)).toEqual([]);
		// The good one still works: nothing above spent it.
		const proof = await verifyAnswer(ledger, RP, good);
		expect(answerDecision(ledger, id, 'allow', null, null, {source: 'web', passkey: proof}).answer?.by).toBe('passkey laptop');
	});
});

describe("an item's link", () => {
	it('names the page of the running server when one recorded its address, else how to reach it', () => {
		const ledger = scratchLedger();
		expect(itemPath('decision', 'd-1 2')).toBe('/decision/d-1%202');
		expect(itemLink(ledger.path, 'decision', 'd-1')).toBe('`controlroom web`, then /decision/d-1');
		writeWebAddress(ledger.path, new URL('http://localhost:8421/'));
		expect(itemLink(ledger.path, 'decision', 'd-1')).toBe('http://localhost:8421/decision/d-1');
		// Anything but an http(s) address (an escape code, a javascript: link) is not printed.
		writeFileSync(webAddressPath(ledger.path), JSON.stringify({url: 'javascript:alert(1)\u001b[2J', pid: process.pid}));
		expect(readWebAddress(ledger.path)).toBeNull();
		// A server that is gone names no address.
		writeFileSync(webAddressPath(ledger.path), JSON.stringify({url: 'http://localhost:8421/', pid: 2 ** 22 + 1}));
		expect(readWebAddress(ledger.path)).toBeNull();
		removeWebAddress(ledger.path);
		expect(itemLink(ledger.path, 'decision', 'd-1')).toBe('`controlroom web`, then /decision/d-1');
	});

	it('a signed answer expires after ANSWER_TTL_MS by default', async () => {
		const ledger = scratchLedger();
		await enroll(ledger, new SoftAuthenticator(), 'k');
		const {signed} = await answerOptions(ledger, RP, {...allowOf('d-1'), now: 1_000});
		expect(signed.expiresAt).toBe(1_000 + ANSWER_TTL_MS);
	});
});

describe('the approvals policy', () => {
	it('once adopted from the config, the ledger keeps it; only a passkey answer turns it off', async () => {
		const ledger = scratchLedger();
		const key = new SoftAuthenticator();
		await enroll(ledger, key, 'laptop');
		expect(adoptConfiguredPolicy(ledger, undefined, 'alice')).toBe('terminal');
		expect(adoptConfiguredPolicy(ledger, 'passkey', 'alice')).toBe('passkey');
		// The key deleted from the config file: still on.
		expect(adoptConfiguredPolicy(ledger, undefined, 'alice')).toBe('passkey');
		expect(() => turnPolicyOff(ledger, undefined)).toThrow(
			'refused: turning `approvals: passkey` off needs an answer signed by an enrolled passkey',
		);
		const wrong = await verifyAnswer(
			ledger,
			RP,
			await signedAnswer(ledger, key, {item: {kind: 'policy', id: 'approvals'}, digest: 'passkey', answer: 'on'}),
		);
		expect(() => turnPolicyOff(ledger, wrong)).toThrow('refused: it was signed to on, not to off');
		const off = await verifyAnswer(ledger, RP, await signedAnswer(ledger, key, POLICY_OFF_ANSWER));
		turnPolicyOff(ledger, off);
		expect(approvalsPolicy(ledger)).toBe('terminal');
		expect(readPasskeys(ledger.reader).policy).toBe('terminal');
	});

	it('under the policy an answer without a passkey is refused, with the item link', () => {
		const ledger = scratchLedger();
		adoptConfiguredPolicy(ledger, 'passkey', 'alice');
		const id = ask(ledger);
		expect(() => answerDecision(ledger, id, 'allow', null)).toThrow(
			new RegExp(
				`^decide ${id}: refused: approvals: passkey is on and this answer is not passkey-signed; answer it with your passkey at \`controlroom web\`, then /decision/${id}$`,
			),
		);
		expect(takeAnswer(ledger, id, argsHash(ARGS))).toBeNull();
		expect(ledger.reader.eventsOfType([EventType.gateRefused])).toHaveLength(1);
	});
});
