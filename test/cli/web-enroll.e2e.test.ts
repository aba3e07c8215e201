import {join} from 'node:path';
import {chromium, type Browser} from 'playwright-core';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {readPasskeys} from '../../src/ledger/passkeys.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {spawnAsPerson} from '../helpers/person.ts';
import {waitFor} from '../helpers/wait-for.ts';

// `controlroom web enroll` in a real browser (docs/passkeys.md, "Enrolling"): a person at a
// terminal (a pty) runs it, headless Chromium opens the link it prints, and CDP's virtual
// authenticator (user verification on) makes the passkey, checked by the server as any other.

const CHROMIUM = '/usr/bin/chromium';
let browser: Browser;

beforeAll(async () => {
	browser = await chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
});
afterAll(async () => {
	await browser.close();
});

/** A browser tab with a virtual platform authenticator that verifies its user. */
async function tabWithAuthenticator(options: {isUserVerified: boolean}) {
	const context = await browser.newContext();
	const page = await context.newPage();
	const cdp = await context.newCDPSession(page);
	await cdp.send('WebAuthn.enable');
	await cdp.send('WebAuthn.addVirtualAuthenticator', {
		options: {
			protocol: 'ctap2',
			transport: 'internal',
			hasResidentKey: true,
			hasUserVerification: true,
			isUserVerified: options.isUserVerified,
			automaticPresenceSimulation: true,
		},
	});
	return {context, page};
}

function enrollRun(ledger: string, env: NodeJS.ProcessEnv, name: string) {
	const run = spawnAsPerson(['web', 'enroll', '--name', name, '--timeout', '60s', '--ledger', ledger], {env});
	const url = waitFor(() => /(http:\/\/localhost:\d+\/enroll\/[A-Za-z0-9_-]+)/.exec(run.stdout())?.[1], {
		what: 'the enrollment link',
		on: [run.onStdout],
		timeoutMs: 20_000,
	});
	return {run, url};
}

describe('controlroom web enroll', () => {
	it('a person enrolls a passkey in the browser; the ledger records it; the next run lists it', async () => {
		const dir = scratchDir('cr-enroll-');
		const ledger = freshLedgerFile(dir);
		const env = {CONTROLROOM_HOME: dir};
		const {run, url} = enrollRun(ledger, env, 'laptop <b>touch</b>');
		const {context, page} = await tabWithAuthenticator({isUserVerified: true});
		try {
			await page.goto(await url);
			expect(await page.locator('strong').textContent()).toBe('laptop <b>touch</b>');
			await page.click('#enroll');
			await page.waitForSelector('body[data-state="enrolled"]', {timeout: 20_000});
			expect(await page.locator('#status').textContent()).toBe('Enrolled "laptop <b>touch</b>". You can close this tab.');
			await page.screenshot({path: join(dir, 'enroll.png')});
		} finally {
			await context.close();
		}
		const result = await run.done;
		expect(result.stderr).toBe('');
		expect(result.status).toBe(0);
		const lines = result.stdout.trim().split('\n');
		expect(lines[0]).toBe('no passkey is enrolled yet');
		expect(lines[1]).toMatch(
			/^open this link in a browser on this machine to enroll "laptop <b>touch<\/b>"; it works once, for 1m:$/,
		);
		expect(lines[3]).toMatch(/^enrolled passkey "laptop <b>touch<\/b>" \(id [A-Za-z0-9_-]{12}…\)$/);
		const open = openLedger(ledger);
		const [passkey] = readPasskeys(open.reader).passkeys;
		open.close();
		expect(passkey).toMatchObject({name: 'laptop <b>touch</b>', counter: expect.any(Number)});
		// The next run lists it before anything else, so a key nobody made is seen.
		const again = enrollRun(ledger, env, 'phone');
		await again.url;
		expect(again.run.stdout()).toContain(
			`enrolled passkeys (1):\n  laptop <b>touch</b>  id ${passkey?.credentialId.slice(0, 12)}…  enrolled `,
		);
		again.run.child.kill('SIGTERM');
		await again.run.done;
	});

	it('refuses a registration whose authenticator did not verify the user; nothing is enrolled', async () => {
		const dir = scratchDir('cr-enroll-');
		const ledger = freshLedgerFile(dir);
		const {run, url} = enrollRun(ledger, {CONTROLROOM_HOME: dir}, 'no-uv');
		const {context, page} = await tabWithAuthenticator({isUserVerified: false});
		try {
			await page.goto(await url);
			await page.click('#enroll');
			await page.waitForSelector('body[data-state="failed"]', {timeout: 20_000});
			expect(await page.locator('#status').textContent()).toMatch(/^Not enrolled: /);
		} finally {
			await context.close();
		}
		run.child.kill('SIGTERM');
		await run.done;
		const open = openLedger(ledger);
		expect(readPasskeys(open.reader).passkeys).toEqual([]);
		open.close();
	});

	it('an agent (no terminal) may not enroll: exit 77, one line', () => {
		const dir = scratchDir('cr-enroll-');
		const result = runCli(['web', 'enroll', '--name', 'mine', '--ledger', join(dir, 'ledger.db')], {
			env: {CONTROLROOM_HOME: dir},
		});
		expect(result.status).toBe(77);
		expect(result.stderr).toMatch(/^controlroom: web enroll mine: refused: only a person at a terminal says yes, and .*$/m);
	});
});
