import type {ChildProcess} from 'node:child_process';
import {existsSync, mkdtempSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {Browser, Page} from 'playwright-core';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {verifyRecordedAnswer} from '../../src/gates/passkey/index.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {endStarted, question, RM_BUILD, startHeld, taskOf, toolResults} from '../helpers/held-runs.ts';
import {runAsPerson, spawnAsPerson} from '../helpers/person.ts';
import {realClientBox} from '../helpers/realclients.ts';
import {waitFor} from '../helpers/wait-for.ts';
import {launchBrowser, signInLink, startWeb, STREAMED, type WebServed} from '../helpers/web.ts';

// `approvals: passkey` on the web board (docs/passkeys.md, "Answering from the web"): a real
// `claude -p` (Claude Code offline) held on `rm -rf build` is answered from the page in headless
// Chromium, the allow signed by a passkey that CDP's virtual authenticator holds (user
// verification on), enrolled with `web enroll` at a terminal. Cookies alone answer nothing, an
// answer altered after signing and a replayed one are refused, decide at a pty is refused; the
// signed allow resumes the same session once, and its record checks from the ledger alone.

const SLOW = 240_000;
const started: ChildProcess[] = [];
let browser: Browser;
let served: WebServed | undefined;
beforeAll(async () => {
	browser = await launchBrowser();
});
afterAll(async () => {
	await browser?.close();
});
afterEach(async () => {
	endStarted(started);
	await served?.stop();
	served = undefined;
});

/** A tab whose browser holds a virtual platform authenticator that verifies its user (CDP WebAuthn). */
async function tabWithPasskeyDevice(): Promise<Page> {
	const context = await browser.newContext({viewport: {width: 1280, height: 800}});
	const page = await context.newPage();
	const cdp = await context.newCDPSession(page);
	await cdp.send('WebAuthn.enable');
	await cdp.send('WebAuthn.addVirtualAuthenticator', {
		options: {
			protocol: 'ctap2',
			transport: 'internal',
			hasResidentKey: true,
			hasUserVerification: true,
			isUserVerified: true,
			automaticPresenceSimulation: true,
		},
	});
	return page;
}

/** `web enroll` at a terminal (a pty), its link opened in `page`: the passkey is made by the page's authenticator. */
async function enrollIn(page: Page, env: NodeJS.ProcessEnv, name: string): Promise<void> {
	const run = spawnAsPerson(['web', 'enroll', '--name', name, '--timeout', '60s'], {env});
	const url = await waitFor(() => /(http:\/\/localhost:\d+\/enroll\/[A-Za-z0-9_-]+)/.exec(run.stdout())?.[1], {
		what: 'the enrollment link',
		on: [run.onStdout],
		timeoutMs: 20_000,
	});
	await page.goto(url);
	await page.click('#enroll');
	await page.waitForSelector('body[data-state="enrolled"]', {timeout: 20_000});
	const result = await run.done;
	expect(result.status, result.stderr).toBe(0);
}

/** Posts an answer's form as an agent's `curl` with the person's cookie copied would: no browser, no passkey prompt. */
async function postAsCurl(base: URL, cookie: string, form: string): Promise<{status: number; text: string}> {
	const reply = await fetch(new URL('/answer', base), {
		method: 'POST',
		headers: {cookie, 'content-type': 'application/x-www-form-urlencoded'},
		body: form,
	});
	return {status: reply.status, text: await reply.text()};
}

describe('answering from the web board with a passkey (approvals: passkey, real Claude Code)', () => {
	it(
		'a held claude -p on rm -rf build is allowed from the page with the passkey: the same session resumes, build/ goes once, the record checks from the ledger alone; cookies, an altered or replayed answer and decide at a pty are refused',
		async () => {
			const config = join(mkdtempSync(join(tmpdir(), 'cr-passkey-config-')), 'config.json');
			writeFileSync(config, '{"approvals": "passkey"}\n');
			const box = realClientBox({SCENARIO: 'script', CONTROLROOM_CONFIG: config});
			const page = await tabWithPasskeyDevice();
			await enrollIn(page, box.env, 'laptop <i>UV</i>');
			served = await startWeb(box.env);
			// The page's address is localhost (WebAuthn takes no IP address as its relying party).
			expect(served.base.hostname).toBe('localhost');
			await page.goto(signInLink(box.env));
			await page.getByRole('button', {name: 'Sign in'}).click();
			await page.waitForURL(url => url.pathname === '/');
			await page.waitForFunction(STREAMED);
			const run = startHeld(box, [RM_BUILD, {text: 'cleaned'}], started);
			const id = await question(run);
			const asked = Date.now();
			await page.waitForSelector(`a.decision[data-decision="${id}"]`, {timeout: 2000});
			const shownWithin = Date.now() - asked;
			expect(shownWithin).toBeLessThan(2000);

			// A person at a pty: refused, pointed at the item's page on the running server.
			const atPty = runAsPerson(['decide', id, 'allow'], {env: box.env});
			expect(atPty.status).toBe(77);
			expect(atPty.stderr).toBe(
				`controlroom: decide ${id}: refused: approvals: passkey is on and this answer is not passkey-signed; answer it with your passkey at ${new URL(`/decision/${id}`, served.base).href}\n`,
			);

			await page.click(`a.decision[data-decision="${id}"]`);
			await page.waitForURL(url => url.pathname === `/decision/${id}`);
			const cookie = (await page.context().cookies()).map(c => `${c.name}=${c.value}`).join('; ');
			const fields = await page.evaluate('new URLSearchParams(new FormData(document.querySelector("form.answer"))).toString()');
			// Cookies alone (the form as the page holds it, no passkey): refused.
			const unsigned = await postAsCurl(served.base, cookie, String(fields));
			expect(unsigned.status).toBe(409);
			expect(unsigned.text).toContain('refused: approvals: passkey is on and this answer is not passkey-signed');

			// An answer signed by the passkey, then altered on its way (its signed digest made another call's): refused.
			let posted = '';
			await page.route('**/answer', async route => {
				const form = new URLSearchParams(route.request().postData() ?? '');
				const signed = JSON.parse(form.get('signed') ?? '{}') as {digest: string};
				form.set('signed', JSON.stringify({...signed, digest: 'f'.repeat(64)}));
				await route.continue({postData: form.toString()});
			});
			await page.getByRole('button', {name: 'Allow this call once'}).click();
			await page.waitForURL(url => url.pathname === '/answer');
			expect(await page.locator('body').innerText()).toMatch(/refused: .*challenge/i);
			await page.unroute('**/answer');
			// Nothing ran: the refusals answered nothing, build/ is there, the question still open.
			expect(existsSync(join(box.dir, 'project', 'build', 'f'))).toBe(true);
			const before = openLedger(join(String(box.env.CONTROLROOM_HOME), 'ledger.db'), {isReadonly: true});
			try {
				expect(before.reader.eventsOfType([EventType.decisionAnswered, EventType.passkeyAsserted])).toEqual([]);
			} finally {
				before.close();
			}

			// The real answer: the passkey signs this question, this hash, allow.
			page.on('request', request => {
				if (request.method() === 'POST' && new URL(request.url()).pathname === '/answer') posted = request.postData() ?? '';
			});
			await page.goto(new URL(`/decision/${id}`, served.base).href);
			await page.getByRole('button', {name: 'Allow this call once'}).click();
			await page.waitForURL(url => url.pathname === '/answer');
			expect(await page.locator('body').innerText()).toContain(`allowed ${id} (Bash) for passkey laptop <i>UV</i>`);
			expect(await run.done, run.stderr()).toBe(0);
			expect(existsSync(join(box.dir, 'project', 'build'))).toBe(false);
			expect(existsSync(join(box.dir, 'project', 'keep.txt'))).toBe(true);
			expect(toolResults(box.dir)).toEqual(['(Bash completed with no output)']);

			// The same signed answer sent again with the cookie (a replay): refused.
			expect(new URLSearchParams(posted).get('assertion')).toBeTruthy();
			const replay = await postAsCurl(served.base, cookie, posted);
			expect(replay.status).toBe(409);
			expect(replay.text).toContain('refused: a replay: this signed answer was already used');

			// From the ledger alone: one signed answer, its signature good under the enrolled public key.
			const task = taskOf(run) ?? '';
			const ledger = openLedger(join(String(box.env.CONTROLROOM_HOME), 'ledger.db'), {isReadonly: true});
			try {
				const asserted = ledger.reader.eventsOfType([EventType.passkeyAsserted]);
				expect(asserted).toHaveLength(1);
				const [record] = asserted;
				expect(record?.taskId).toBe(task);
				expect(record?.data).toMatchObject({
					name: 'laptop <i>UV</i>',
					credentialId: expect.stringMatching(/^[A-Za-z0-9_-]{16,}$/),
					signature: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
					signed: {item: {kind: 'decision', id}, answer: 'allow'},
				});
				expect(await verifyRecordedAnswer(record!)).toMatchObject({ok: true, name: 'laptop <i>UV</i>'});
				const answered = ledger.reader.eventsOfType([EventType.decisionAnswered]);
				expect(answered.map(event => [event.source, event.data.by])).toEqual([['web', 'passkey laptop <i>UV</i>']]);
				// Once (docs/headless-holds.md): the wrapper took the answer to resume, the resumed hook applied it.
				expect(ledger.reader.eventsOfType([EventType.decisionUsed]).map(event => event.source)).toEqual(['wrapper', 'claude']);
			} finally {
				ledger.close();
			}
			const explained = box.cli(['explain', task]);
			expect(explained.stdout).toMatch(/approved by passkey "laptop <i>UV<\/i>" \(credential /);
			console.log(`question shown on the page ${shownWithin} ms after the run asked it`);
		},
		SLOW,
	);
});
