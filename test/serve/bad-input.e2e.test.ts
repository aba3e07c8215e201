import {createHash, randomBytes} from 'node:crypto';
import {join} from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {issueBearer} from '../../src/gates/access/tokens.ts';
import {openAccessStore} from '../../src/ledger/access-store.ts';
import {chatTask} from '../helpers/chat-contracts.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo, type ContractRepo} from '../helpers/contract-repo.ts';
import {runAsPerson} from '../helpers/person.ts';
import {mintToken, openConsent, startServe, type Served} from '../helpers/serve.ts';

// Bad input at the remote door (docs/serve.md, "Bad input"): each is one clear MCP or HTTP error,
// recorded where it is a refusal, nothing stored half, and the server keeps serving.

const REDIRECT = 'http://127.0.0.1:9/callback';
const textOf = (result: unknown): string =>
	((result as CallToolResult).content ?? []).map(part => (part.type === 'text' ? part.text : '')).join('\n');

function rejects(home: string): string {
	return runCli(['rejects', '--json'], {env: {CONTROLROOM_HOME: home}}).stdout;
}

function contractCount(home: string): number {
	const result = runCli(['snapshot', '--json'], {env: {CONTROLROOM_HOME: home}});
	return (JSON.parse(result.stdout) as {contracts: unknown[]}).contracts.length;
}

function pkce(): {verifier: string; challenge: string} {
	const verifier = randomBytes(32).toString('base64url');
	return {verifier, challenge: createHash('sha256').update(verifier).digest('base64url')};
}

describe('serve: bad input', () => {
	let home: string;
	let repo: ContractRepo;
	let served: Served;
	let token: string;
	let client: Client;

	const post = (body: string, headers: Record<string, string> = {}): Promise<Response> =>
		fetch(served.mcp, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				accept: 'application/json, text/event-stream',
				authorization: `Bearer ${token}`,
				...headers,
			},
			body,
		});
	const form = (path: string, fields: Record<string, string>): Promise<Response> =>
		fetch(new URL(path, served.base), {method: 'POST', body: new URLSearchParams(fields), redirect: 'manual'});

	async function register(name = 'Hand Client'): Promise<string> {
		const answer = await fetch(new URL('/register', served.base), {
			method: 'POST',
			headers: {'content-type': 'application/json'},
			body: JSON.stringify({client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none'}),
		});
		expect(answer.status).toBe(201);
		return ((await answer.json()) as {client_id: string}).client_id;
	}

	function authorizeUrl(clientId: string, params: Record<string, string>): URL {
		const url = new URL('/authorize', served.base);
		for (const [key, value] of Object.entries({client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, ...params}))
			url.searchParams.set(key, value);
		return url;
	}

	beforeAll(async () => {
		home = scratchDir('cr-serve-bad-');
		repo = makeContractRepo();
		served = await startServe(home, ['--repo', `shop=${repo.dir}`]);
		token = mintToken(home, ['--scope', 'work:write', '--scope', 'work:read', '--name', 'tester']);
		client = new Client({name: 'tester', version: '1'});
		await client.connect(
			new StreamableHTTPClientTransport(served.mcp, {requestInit: {headers: {Authorization: `Bearer ${token}`}}}),
		);
	});
	afterAll(async () => {
		await client.close();
		expect(await served.stop()).toBe(143);
	});

	it('refuses a task with a placeholder and no acceptance lines, naming both; the fixed call is stored', async () => {
		const broken = chatTask(repo.head, {goal: 'Export <what the filter shows>', acceptance: null});
		const refused = await client.callTool({name: 'write_task', arguments: {contract: broken}});
		expect(refused.isError).toBe(true);
		const text = textOf(refused);
		expect(text).toContain('contract: invalid task contract, not stored');
		expect(text).toContain('error goal: unresolved placeholder <what the filter shows>');
		expect(text).toContain('error acceptance.checks: required');
		expect(rejects(home)).toContain('goal: unresolved placeholder');
		const before = contractCount(home);
		const fixed = await client.callTool({name: 'write_task', arguments: {contract: chatTask(repo.head, {title: 'Fixed'})}});
		expect(fixed.isError, textOf(fixed)).toBeFalsy();
		expect(contractCount(home)).toBe(before + 1);
		// The same text again from the same writer: stored once.
		const again = await client.callTool({name: 'write_task', arguments: {contract: chatTask(repo.head, {title: 'Fixed'})}});
		expect(textOf(again)).toContain('already stored');
		expect(contractCount(home)).toBe(before + 1);
	});

	it('refuses escape codes and NUL in the contract and the repository, and a bug sent to write_task', async () => {
		const before = contractCount(home);
		const cases: [Record<string, string>, string][] = [
			[
				{contract: chatTask(repo.head, {title: 'Red \u001b[31mtitle\u001b[0m'})},
				'contract: holds an escape code (ESC) (U+001B) on line 3',
			],
			[{contract: chatTask(repo.head, {goal: 'nul\u0000here'})}, 'contract: holds a NUL byte (U+0000)'],
			// Plain text that YAML decodes into control characters: refused by the value, naming its field.
			[{contract: chatTask(repo.head, {title: '"Red \\u001b[31mtitle"'})}, 'contract: title: holds an escape code (ESC)'],
			[{contract: chatTask(repo.head, {title: '"nul \\x00 here"'})}, 'contract: title: holds a NUL byte (U+0000)'],
			[{contract: chatTask(repo.head), repository: 'shop\u001b]8;;http://x\u0007'}, 'repository: holds an escape code (ESC)'],
			[{contract: 'kind: bug\ntitle: x\n'}, 'this is a bug contract; this tool writes a task: use file_bug'],
			[{contract: '   '}, 'contract: empty'],
		];
		for (const [args, line] of cases) {
			const refused = await client.callTool({name: 'write_task', arguments: args});
			expect(refused.isError).toBe(true);
			expect(textOf(refused)).toContain(line);
			expect(textOf(refused)).not.toContain('\u001b');
		}
		expect(contractCount(home)).toBe(before);
	});

	it('answers a 10 MiB call 413 without reading it, records it, and keeps serving', async () => {
		const huge = JSON.stringify({
			jsonrpc: '2.0',
			id: 7,
			method: 'tools/call',
			params: {name: 'write_task', arguments: {contract: 'x'.repeat(10 * 1024 * 1024)}},
		});
		const answer = await post(huge);
		expect(answer.status).toBe(413);
		expect(await answer.json()).toMatchObject({jsonrpc: '2.0', error: {code: -32600}});
		expect(rejects(home)).toContain('POST /mcp: 413 -32600 request over 2097152 bytes, not read');
		expect((await client.listTools()).tools.length).toBe(5);
	});

	it('answers JSON that does not parse, and JSON that is no JSON-RPC, with one JSON-RPC error each', async () => {
		const garbled = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
		expect(garbled.status).toBe(400);
		expect(await garbled.json()).toMatchObject({error: {code: -32700}});
		const notRpc = await post(JSON.stringify({hello: 'world'}));
		expect(notRpc.status).toBe(400);
		expect(((await notRpc.json()) as {error: {code: number}}).error.code).toBeLessThan(0);
		expect(rejects(home)).toContain('POST /mcp: 400 -32700 parse error');
		expect((await client.listTools()).tools.length).toBe(5);
	});

	it('answers a forged token and an expired one 401 invalid_token, and records both', async () => {
		const forged = await post(JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list'}), {
			authorization: `Bearer cra_${randomBytes(32).toString('base64url')}`,
		});
		expect(forged.status).toBe(401);
		expect(forged.headers.get('www-authenticate')).toContain('error="invalid_token", error_description="unknown token"');
		// A script's token whose days are over: minted by the store itself a month ago, for one day.
		const store = openAccessStore(join(home, 'ledger.access.db'));
		const monthAgo = Date.now() - 30 * 24 * 3600 * 1000;
		store.createGrant({
			id: 'g-000000000001',
			kind: 'script',
			clientId: null,
			clientName: 'old script',
			owner: 'ana',
			scopes: ['work:read'],
			resource: null,
			isReadyAtOnce: false,
			createdAt: monthAgo,
			createdBy: 'ana',
		});
		const old = issueBearer(store, {...store.grant('g-000000000001')!}, monthAgo, 1);
		store.close();
		const expired = await post(JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list'}), {authorization: `Bearer ${old}`});
		expect(expired.status).toBe(401);
		expect(expired.headers.get('www-authenticate')).toContain('error_description="token expired"');
		const kept = rejects(home);
		expect(kept).toContain('POST /mcp: 401 invalid_token');
		expect(kept).not.toContain(old);
	});

	it('refuses a redirect URI not registered, PKCE without S256, and control characters in a registration', async () => {
		const clientId = await register();
		const {challenge} = pkce();
		const elsewhere = await fetch(
			authorizeUrl(clientId, {redirect_uri: 'https://evil.example/cb', code_challenge: challenge, code_challenge_method: 'S256'}),
			{redirect: 'manual'},
		);
		expect(elsewhere.status).toBe(400);
		expect(await elsewhere.json()).toMatchObject({error: 'invalid_request', error_description: 'Unregistered redirect_uri'});
		const withoutS256: Record<string, string>[] = [{code_challenge: challenge, code_challenge_method: 'plain'}, {}];
		for (const params of withoutS256) {
			const plain = await fetch(authorizeUrl(clientId, params), {redirect: 'manual'});
			expect(plain.status).toBe(302);
			const location = new URL(plain.headers.get('location') ?? '');
			expect(location.origin + location.pathname).toBe(REDIRECT);
			expect(location.searchParams.get('error')).toBe('invalid_request');
		}
		const escaped = await fetch(new URL('/register', served.base), {
			method: 'POST',
			headers: {'content-type': 'application/json'},
			body: JSON.stringify({client_name: 'Evil\u001b[2J', redirect_uris: [REDIRECT]}),
		});
		expect(escaped.status).toBe(400);
		expect(await escaped.json()).toMatchObject({error: 'invalid_client_metadata'});
		const javascript = await fetch(new URL('/register', served.base), {
			method: 'POST',
			headers: {'content-type': 'application/json'},
			body: JSON.stringify({client_name: 'x', redirect_uris: ['http://evil.example/cb']}),
		});
		expect(javascript.status).toBe(400);
		const kept = rejects(home);
		expect(kept).toContain('GET /authorize: 400 invalid_request');
		expect(kept).toContain('GET /authorize: redirected with invalid_request');
		expect(kept).toContain('POST /register: 400 invalid_client_metadata');
	});

	it('refuses a replayed code and revokes the tokens issued with it', async () => {
		const clientId = await register('Replay Client');
		const {verifier, challenge} = pkce();
		const consent = await openConsent(
			authorizeUrl(clientId, {code_challenge: challenge, code_challenge_method: 'S256', state: 's1', scope: 'work:read'}),
		);
		const approved = runAsPerson(['serve', 'approve', consent.code], {env: {CONTROLROOM_HOME: home}});
		expect(approved.status, approved.stderr).toBe(0);
		const back = await fetch(consent.page, {redirect: 'manual'});
		const code = new URL(back.headers.get('location') ?? '').searchParams.get('code') ?? '';
		expect(code).toMatch(/^crc_/);
		const exchange = (): Promise<Response> =>
			form('/token', {
				grant_type: 'authorization_code',
				code,
				code_verifier: verifier,
				client_id: clientId,
				redirect_uri: REDIRECT,
			});
		const first = await exchange();
		expect(first.status).toBe(200);
		const tokens = (await first.json()) as {access_token: string; scope: string};
		expect(tokens.scope).toBe('work:read');
		const replay = await exchange();
		expect(replay.status).toBe(400);
		expect(await replay.json()).toMatchObject({error: 'invalid_grant'});
		const after = await post(JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list'}), {
			authorization: `Bearer ${tokens.access_token}`,
		});
		expect(after.status).toBe(401);
		expect(after.headers.get('www-authenticate')).toContain('token revoked');
		const wrongVerifier = await form('/token', {grant_type: 'password', username: 'a', password: 'b', client_id: clientId});
		expect(wrongVerifier.status).toBe(400);
		expect(await wrongVerifier.json()).toMatchObject({error: 'unsupported_grant_type'});
		const list = runCli(['serve', 'tokens', 'list'], {env: {CONTROLROOM_HOME: home}});
		expect(list.stdout).toMatch(/Replay Client for root +work:read +revoked by serve/);
	});
});
