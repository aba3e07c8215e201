import {spawn, type ChildProcess} from 'node:child_process';
import {InMemoryOAuthClientProvider} from '@modelcontextprotocol/sdk/examples/client/simpleOAuthClientProvider.js';
import {BIN} from './cli.ts';
import {runAsPerson} from './person.ts';
import {onExit, onOutput, waitFor} from './wait-for.ts';

/** A running `controlroom serve`: its URLs, what it wrote, and how to stop it. */
export type Served = {
	readonly child: ChildProcess;
	readonly base: URL;
	readonly mcp: URL;
	stderr(): string;
	/** Sends SIGTERM and resolves with its exit code. */
	stop(): Promise<number | null>;
};

/** Starts `controlroom serve --listen 127.0.0.1:0 ARGS` in `home`, and waits for the line naming its URL. */
export async function startServe(home: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Served> {
	const child = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0', ...args], {
		env: {...process.env, CONTROLROOM_HOME: home, ...env},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout?.on('data', chunk => (stdout += String(chunk)));
	child.stderr?.on('data', chunk => (stderr += String(chunk)));
	const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
	const mcp = await waitFor(
		() => {
			if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${stderr}`);
			const match = stdout.match(/connector URL (\S+)/);
			return match?.[1] ? new URL(match[1]) : null;
		},
		{what: 'serve to listen', on: [onOutput(child.stdout), onExit(child)]},
	);
	return {
		child,
		base: new URL('/', mcp),
		mcp,
		stderr: () => stderr,
		async stop() {
			if (child.exitCode === null) child.kill('SIGTERM');
			return exited;
		},
	};
}

/** The SDK's own OAuth client provider (its example's in-memory one), as a connector would use it, capturing where it is sent. */
export function connectorProvider(
	name: string,
	redirect = 'http://127.0.0.1:9/callback',
): {
	provider: InMemoryOAuthClientProvider;
	redirects: URL[];
} {
	const redirects: URL[] = [];
	const provider = new InMemoryOAuthClientProvider(
		redirect,
		{
			client_name: name,
			redirect_uris: [redirect],
			grant_types: ['authorization_code', 'refresh_token'],
			response_types: ['code'],
			token_endpoint_auth_method: 'client_secret_post',
		},
		url => void redirects.push(url),
	);
	return {provider, redirects};
}

/**
 * What a person's browser does with the authorization URL: follows it to the consent page, reads
 * the approval code there. Returns the consent page's URL and the code.
 */
export async function openConsent(authorization: URL): Promise<{page: URL; code: string; html: string}> {
	const first = await fetch(authorization, {redirect: 'manual'});
	const location = first.headers.get('location');
	if (first.status !== 302 || location === null) throw new Error(`authorize answered ${first.status}: ${await first.text()}`);
	const page = new URL(location, authorization);
	const html = await (await fetch(page, {redirect: 'manual'})).text();
	const code = html.match(/serve approve ([0-9A-Z]{4}-[0-9A-Z]{4})/)?.[1];
	if (code === undefined) throw new Error(`no approval code on the consent page: ${html.slice(0, 300)}`);
	return {page, code, html};
}

/** The browser's next look at the consent page after a person's answer: where it is sent. */
export async function consentOutcome(page: URL): Promise<URL> {
	const answer = await fetch(page, {redirect: 'manual'});
	const location = answer.headers.get('location');
	if (answer.status !== 302 || location === null) throw new Error(`the consent page answered ${answer.status}, not a redirect`);
	return new URL(location);
}

/** A person mints a script's token at a terminal; the token is the last word printed. */
export function mintToken(home: string, args: readonly string[]): string {
	const result = runAsPerson(['serve', 'tokens', 'new', ...args], {env: {CONTROLROOM_HOME: home}});
	if (result.status !== 0) throw new Error(`serve tokens new exited ${result.status}: ${result.stderr}`);
	const token = result.stdout.trim().split(/\s+/).at(-1);
	if (!token) throw new Error('no token printed');
	return token;
}
