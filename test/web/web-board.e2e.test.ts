import {request} from 'node:http';
import {join} from 'node:path';
import {gzipSync} from 'node:zlib';
import {readFileSync} from 'node:fs';
import type {Browser} from 'playwright-core';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {EventType, newEvent} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {launchBrowser, signedInPage, signInCookie, signInLink, startWeb, type WebServed} from '../helpers/web.ts';

// `controlroom web`: the board's panels in a browser (headless Chromium), live, escaped, small.

const HOSTILE_TITLE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">';
const HOSTILE_ARG = '</div><script>window.pwned=3</script>';

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

/** A home whose ledger holds a task titled with markup and a question whose argument is markup. */
function hostileHome(): {home: string; ledgerPath: string; env: NodeJS.ProcessEnv} {
	const home = scratchDir('cr-web-');
	const env = {CONTROLROOM_HOME: home};
	const ran = runCli(['run', '--task-id', 'w-hostile', '--title', HOSTILE_TITLE, '--', process.execPath, '-e', ''], {env});
	expect(ran.status, ran.stderr).toBe(0);
	const ledgerPath = join(home, 'ledger.db');
	const ledger = openLedger(ledgerPath);
	const written = ledger.writer.append([
		newEvent(EventType.registered, {title: 'asks a question'}, {taskId: 'w-asks', at: Date.now(), source: 'wrapper'}),
		newEvent(
			EventType.decisionAsked,
			{
				decisionId: 'd-0000000000aa',
				kind: 'deferred',
				agent: 'claude',
				tool: 'Bash',
				args: {command: 'rm -rf build', description: HOSTILE_ARG},
				argsHash: 'a'.repeat(64),
				cwd: '/p',
				expiresAt: null,
				toolUseId: null,
				session: 's',
				waiter: null,
				budget: null,
			},
			{taskId: 'w-asks', at: Date.now(), source: 'claude'},
		),
	]);
	expect(written.appended).toBe(2);
	ledger.close();
	return {home, ledgerPath, env};
}

/** A raw request, so a body can be declared larger than what is sent. */
function rawPost(base: URL, headers: Record<string, string>, body = ''): Promise<{status: number; ms: number}> {
	const start = Date.now();
	return new Promise((resolve, reject) => {
		const req = request(new URL('/answer', base), {method: 'POST', headers}, response => {
			response.resume();
			resolve({status: response.statusCode ?? 0, ms: Date.now() - start});
		});
		req.on('error', reject);
		req.write(body);
	});
}

describe('controlroom web', () => {
	it('serves the board in its first response with every agent-written string escaped, and shows it as text in Chromium', async () => {
		const {env} = hostileHome();
		served = await startWeb(env);
		const cookie = await signInCookie(signInLink(env));
		const first = await fetch(served.base, {headers: {cookie}});
		expect(first.status).toBe(200);
		expect(first.headers.get('content-security-policy')).toContain("script-src 'self'");
		const body = await first.text();
		// The board is in the first response: the page reads without its script.
		expect(body).toContain('data-panel="lanes"');
		expect(body).toContain('w-hostile');
		expect(body).toContain('DECISIONS (1)');
		expect(body).not.toContain('<script>window.pwned');
		expect(body).not.toContain('<img src=x');
		expect(body).toContain('&lt;script&gt;window.pwned=1');
		const page = await signedInPage(browser, env, {width: 1280, height: 800});
		const shown = await page.locator('[data-panel="lanes"]').innerText();
		expect(shown).toContain('<script>window.pwned=1</script>');
		const decisions = await page.locator('[data-panel="decisions"]').innerText();
		expect(decisions).toContain('</div><script>window.pwned=3</script>');
		expect(await page.evaluate('window.pwned')).toBeUndefined();
		await page.close();
	});

	it('is live: a task started after the page opened shows without a reload; keys open its drill-down and come back', async () => {
		const {env} = hostileHome();
		served = await startWeb(env);
		const page = await signedInPage(browser, env, {width: 1280, height: 800});
		const ran = runCli(['run', '--task-id', 'w-later', '--title', 'started later', '--', process.execPath, '-e', ''], {env});
		expect(ran.status, ran.stderr).toBe(0);
		await page.waitForSelector('a.row[data-task="w-later"]', {timeout: 10_000});
		expect(page.url()).toBe(served.base.href);
		// j moves the cursor onto the first row; enter opens its drill-down: the timeline and why.
		await page.keyboard.press('j');
		const first = await page.locator('a.row.sel').getAttribute('data-task');
		expect(first).not.toBeNull();
		await page.keyboard.press('Enter');
		await page.waitForURL(url => url.pathname === `/task/${first}`);
		const timeline = await page.locator('[data-panel="timeline"]').innerText();
		expect(timeline).toContain(`TIMELINE ${first}`);
		expect(timeline).toContain('why:');
		await page.keyboard.press('Escape');
		await page.waitForURL(url => url.pathname === '/');
		await page.keyboard.press('?');
		await page.waitForURL(url => url.pathname === '/help');
		expect(await page.locator('[data-panel="help"]').innerText()).toContain('move down');
		await page.close();
	});

	it('lays the board out in one column at a phone width', async () => {
		const {env} = hostileHome();
		served = await startWeb(env);
		const page = await signedInPage(browser, env, {width: 390, height: 844});
		// Nothing wider than the screen: the page asked for the board at its own width.
		expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
		const panels = await page.evaluate<number[]>(
			"[...document.querySelectorAll('.band > .panel')].map(node => node.getBoundingClientRect().left)",
		);
		expect(new Set(panels).size).toBe(1);
		await page.close();
	});

	it('refuses a 10 MB body at once, a Host it does not serve, and keeps its script small', async () => {
		const {env} = hostileHome();
		served = await startWeb(env);
		const big = await rawPost(
			served.base,
			{'content-type': 'application/x-www-form-urlencoded', 'content-length': String(10 * 1024 * 1024)},
			'a=1',
		);
		expect(big.status).toBe(413);
		expect(big.ms).toBeLessThan(1000);
		const rebound = await new Promise<number>((resolve, reject) => {
			const req = request(served!.base, {headers: {host: 'attacker.example'}}, response => {
				response.resume();
				resolve(response.statusCode ?? 0);
			});
			req.on('error', reject);
			req.end();
		});
		expect(rebound).toBe(421);
		expect((await fetch(served.base)).status).toBe(401);
		const script = await (await fetch(new URL('/board.js', served.base))).text();
		expect(gzipSync(script).length).toBeLessThan(150 * 1024);
		expect(script).toBe(readFileSync(new URL('../../dist/web/board.js', import.meta.url), 'utf8'));
	});
});
