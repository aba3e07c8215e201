import {spawn, type ChildProcess} from 'node:child_process';
import {chromium, type Browser, type Page} from 'playwright-core';
import {BIN} from './cli.ts';
import {runAsPerson} from './person.ts';
import {onExit, onOutput, waitFor} from './wait-for.ts';

/** Debian's chromium (.ci/run installs it): the tests drive it over CDP, npm brings no browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** A running `controlroom web`: its address, what it wrote, and how to stop it. */
export type WebServed = {
	readonly child: ChildProcess;
	readonly base: URL;
	stdout(): string;
	stderr(): string;
	/** Sends SIGTERM and resolves with its exit code. */
	stop(): Promise<number | null>;
};

/** Starts `controlroom web --listen 127.0.0.1:0 ARGS` with `env`, and waits for the line naming its address. */
export async function startWeb(env: NodeJS.ProcessEnv, args: readonly string[] = []): Promise<WebServed> {
	const child = spawn(process.execPath, [BIN, 'web', '--listen', '127.0.0.1:0', ...args], {
		env: {...process.env, ...env},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout?.on('data', chunk => (stdout += String(chunk)));
	child.stderr?.on('data', chunk => (stderr += String(chunk)));
	const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
	const base = await waitFor(
		() => {
			if (child.exitCode !== null) throw new Error(`web exited ${child.exitCode}: ${stderr}`);
			const match = stdout.match(/the board at (\S+)/);
			return match?.[1] ? new URL(match[1]) : null;
		},
		{what: 'web to listen', on: [onOutput(child.stdout), onExit(child)]},
	);
	return {
		child,
		base,
		stdout: () => stdout,
		stderr: () => stderr,
		async stop() {
			if (child.exitCode === null) child.kill('SIGTERM');
			return exited;
		},
	};
}

/** In the page: the board came from the event stream at least once (the page's script sets it). */
export const STREAMED = 'document.body.dataset.updated !== undefined';

/** A headless Chromium (the system's); close it after the test. */
export function launchBrowser(): Promise<Browser> {
	return chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
}

/** A one-time sign-in link, printed by `web link` as a person at a terminal does. */
export function signInLink(env: NodeJS.ProcessEnv): string {
	const said = runAsPerson(['web', 'link'], {env});
	const link = said.stdout.match(/(http\S+\/signin\/\S+)/)?.[1];
	if (said.status !== 0 || link === undefined) throw new Error(`web link: ${said.status} ${said.stderr}`);
	return link;
}

/** Spends a sign-in link as the page's button does; the session cookie (`name=value`). */
export async function signInCookie(link: string): Promise<string> {
	const secret = new URL(link).pathname.split('/').pop() ?? '';
	const answer = await fetch(new URL('/signin', link), {
		method: 'POST',
		body: new URLSearchParams({link: secret}),
		redirect: 'manual',
	});
	const cookie = answer.headers.get('set-cookie');
	if (answer.status !== 303 || cookie === null) throw new Error(`sign-in answered ${answer.status}`);
	return cookie.split(';')[0] ?? '';
}

/** A page signed in through a sign-in link (its button pressed), at the board. */
export async function signedInPage(
	browser: Browser,
	env: NodeJS.ProcessEnv,
	viewport: {width: number; height: number},
): Promise<Page> {
	// A context of its own (its own cookies), in which a test can open a second tab of the same session.
	const page = await (await browser.newContext({viewport})).newPage();
	await page.goto(signInLink(env));
	await page.getByRole('button', {name: 'Sign in'}).click();
	await page.waitForURL(url => url.pathname === '/');
	await page.waitForFunction(STREAMED);
	return page;
}
