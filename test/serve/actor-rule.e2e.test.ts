import {createHash, randomBytes} from 'node:crypto';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {runAsPerson} from '../helpers/person.ts';
import {mintToken, openConsent, startServe, type Served} from '../helpers/serve.ts';

// No scope approves, accepts or answers anything, and an agent's process cannot let anything in
// (docs/security.md): approving a consent and minting a token are a person's at a terminal; the
// server itself has no door that says yes.

const REDIRECT = 'http://127.0.0.1:9/callback';

describe('serve: the actor rule', () => {
	let home: string;
	let served: Served;
	let code: string;
	let page: URL;

	beforeAll(async () => {
		home = scratchDir('cr-serve-actor-');
		served = await startServe(home);
		const registered = await fetch(new URL('/register', served.base), {
			method: 'POST',
			headers: {'content-type': 'application/json'},
			body: JSON.stringify({client_name: 'Someone', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none'}),
		});
		const {client_id: clientId} = (await registered.json()) as {client_id: string};
		const url = new URL('/authorize', served.base);
		const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
		for (const [key, value] of Object.entries({
			client_id: clientId,
			response_type: 'code',
			redirect_uri: REDIRECT,
			code_challenge: challenge,
			code_challenge_method: 'S256',
		}))
			url.searchParams.set(key, value);
		({code, page} = await openConsent(url));
	});
	afterAll(async () => {
		await served.stop();
	});

	it("refuses an agent's serve approve and serve tokens new, records them, and the consent still waits", async () => {
		const env = {CONTROLROOM_HOME: home};
		// No terminal (an agent's tool runs commands with stdin from /dev/null), and a terminal with an agent's marker.
		const approvals = [
			runCli(['serve', 'approve', code], {env}),
			runAsPerson(['serve', 'approve', code], {env: {...env, CLAUDECODE: '1'}}),
		];
		for (const attempt of approvals) {
			expect(attempt.status).toBe(77);
			expect(attempt.stderr).toContain(`serve approve ${code}: refused: only a person at a terminal says yes`);
		}
		const minted = runCli(['serve', 'tokens', 'new', '--scope', 'work:write'], {env});
		expect(minted.status).toBe(77);
		expect(minted.stderr).toContain('serve tokens new script (write contracts): refused');
		expect(minted.stdout).not.toMatch(/crp_/);
		expect((await fetch(page, {redirect: 'manual'})).status).toBe(200);
		const pending = runCli(['serve', 'approve'], {env});
		expect(pending.stdout).toContain(`${code}  Someone`);
		const snapshot = JSON.parse(runCli(['snapshot', '--json'], {env}).stdout) as {
			queue: {lanes: {name: string; items: {reason: string}[]}[]};
		};
		const needs = snapshot.queue.lanes.find(lane => lane.name === 'needs')?.items.map(item => item.reason) ?? [];
		expect(needs.some(reason => reason.startsWith(`refused: an agent asked to serve approve ${code}`))).toBe(true);
		expect(runCli(['serve', 'tokens', 'list'], {env}).stdout).toContain('no grants');
	});

	it('has no door through the server that approves, accepts or answers', async () => {
		expect(served.child.exitCode, served.stderr()).toBe(null);
		// The consent page takes no answer: a POST to it is not served, and the consent still waits.
		const posted = await fetch(page, {method: 'POST', body: new URLSearchParams({approve: 'yes'}), redirect: 'manual'});
		expect(posted.status).toBe(404);
		expect((await fetch(page, {redirect: 'manual'})).status).toBe(200);
		const token = mintToken(home, ['--scope', 'work:write', '--scope', 'work:read']);
		const client = new Client({name: 'agent', version: '1'});
		await client.connect(
			new StreamableHTTPClientTransport(served.mcp, {requestInit: {headers: {Authorization: `Bearer ${token}`}}}),
		);
		const names = (await client.listTools()).tools.map(tool => tool.name);
		expect(names.filter(name => /accept|approve|decide|answer|ready|ack|send/.test(name))).toEqual([]);
		for (const name of ['accept', 'approve', 'decide', 'contract_ready']) {
			const result = await client.callTool({name, arguments: {}});
			expect(result.isError).toBe(true);
			expect(JSON.stringify(result.content)).toContain(`Tool ${name} not found`);
		}
		await client.close();
	});
});
