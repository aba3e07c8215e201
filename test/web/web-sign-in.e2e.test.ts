import type {Browser} from 'playwright-core';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {runAsPerson} from '../helpers/person.ts';
import {launchBrowser, signedInPage, signInCookie, signInLink, startWeb, type WebServed} from '../helpers/web.ts';

// Signing in to `controlroom web` (docs/web.md, "Signing in"): one-time links a person prints at a
// terminal, cookies that script cannot read, CSRF on every form, sessions that end when revoked.

let browser: Browser;
beforeAll(async () => {
	browser = await launchBrowser();
});
afterAll(async () => {
	await browser?.close();
});
let served: WebServed | undefined;
afterEach(async () => {
	await served?.stop();
	served = undefined;
});

function home(): NodeJS.ProcessEnv {
	return {CONTROLROOM_HOME: scratchDir('cr-web-signin-')};
}

describe('signing in to controlroom web', () => {
	it('shows nothing without a session; a link works once, and its cookie is HttpOnly and SameSite=Strict', async () => {
		const env = home();
		served = await startWeb(env);
		const bare = await fetch(served.base);
		expect(bare.status).toBe(401);
		expect(await bare.text()).toContain('controlroom web link');
		expect((await fetch(new URL('/events', served.base))).status).toBe(401);
		const link = signInLink(env);
		// The link names the running server's own address.
		expect(new URL(link).origin).toBe(served.base.origin);
		// Opening the link spends nothing (a preview that fetches it cannot sign in): the button does.
		expect((await fetch(link)).status).toBe(200);
		const secret = new URL(link).pathname.split('/').pop() ?? '';
		const answer = await fetch(new URL('/signin', served.base), {
			method: 'POST',
			body: new URLSearchParams({link: secret}),
			redirect: 'manual',
		});
		expect(answer.status).toBe(303);
		const setCookie = answer.headers.get('set-cookie') ?? '';
		expect(setCookie).toContain('HttpOnly');
		expect(setCookie).toContain('SameSite=Strict');
		expect(setCookie).not.toContain('Secure'); // plain http on loopback; Secure where the public URL is https
		const cookie = setCookie.split(';')[0] ?? '';
		expect((await fetch(served.base, {headers: {cookie}})).status).toBe(200);
		// Used once: the same link again starts nothing.
		const again = await fetch(new URL('/signin', served.base), {
			method: 'POST',
			body: new URLSearchParams({link: secret}),
			redirect: 'manual',
		});
		expect(again.status).toBe(403);
		expect(await again.text()).toContain('does not work');
	});

	it("refuses an agent's web link (exit 77) and a link when no server runs", () => {
		const env = home();
		const none = runAsPerson(['web', 'link'], {env});
		expect(none.status).toBe(69);
		expect(none.stderr).toContain('no controlroom web runs');
	});

	it('an agent cannot print a link: not at a terminal, refused and recorded', async () => {
		const env = home();
		served = await startWeb(env);
		const agent = runCli(['web', 'link'], {env: {...env, CLAUDECODE: '1'}});
		expect(agent.status).toBe(77);
		expect(agent.stdout).not.toContain('/signin/');
	});

	it('refuses a form without the CSRF token or from another origin, and a revoked session stops its open page', async () => {
		const env = home();
		served = await startWeb(env);
		const cookie = await signInCookie(signInLink(env));
		const forged = await fetch(new URL('/signout', served.base), {
			method: 'POST',
			headers: {cookie},
			body: new URLSearchParams({csrf: 'x'}),
			redirect: 'manual',
		});
		expect(forged.status).toBe(403);
		const page = await signedInPage(browser, env, {width: 1280, height: 800});
		const csrf = await page.getAttribute('body', 'data-csrf');
		const crossSite = await fetch(new URL('/signout', served.base), {
			method: 'POST',
			headers: {cookie, origin: 'https://attacker.example'},
			body: new URLSearchParams({csrf: csrf ?? ''}),
			redirect: 'manual',
		});
		expect(crossSite.status).toBe(403);
		const listed = runCli(['web', 'sessions'], {env});
		expect(listed.stdout.match(/ws-[0-9a-f]{12}/g)).toHaveLength(2);
		const revoked = runCli(['web', 'revoke', '--all'], {env});
		expect(revoked.status, revoked.stderr).toBe(0);
		expect(revoked.stdout).toContain('revoked 2 sessions');
		// The open page is told and shows the sign-in page; the cookie opens nothing any more.
		await page.waitForSelector('text=controlroom web link', {timeout: 10_000});
		expect((await fetch(served.base, {headers: {cookie}})).status).toBe(401);
		await page.close();
	});
});
