import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {auth, UnauthorizedError} from '@modelcontextprotocol/sdk/client/auth.js';
import {StreamableHTTPClientTransport, StreamableHTTPError} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {chatTask} from '../helpers/chat-contracts.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo, type ContractRepo} from '../helpers/contract-repo.ts';
import {runAsPerson} from '../helpers/person.ts';
import {connectorProvider, consentOutcome, mintToken, openConsent, startServe, type Served} from '../helpers/serve.ts';

// The whole connector flow, driven by the MCP SDK's own HTTP client and its OAuth client provider,
// as a chat assistant's connector runs it: discovery from the 401, dynamic registration, the
// authorization with PKCE, a person's approval at a terminal (a pty), the token, the call, the
// refresh. What the assistant wrote shows on snapshot --json as a draft with its writer.

const textOf = (result: unknown): string =>
	((result as CallToolResult).content ?? []).map(part => (part.type === 'text' ? part.text : '')).join('\n');

type Snapshot = {
	contracts: {id: string; state: string; writer: {client: string; owner: string; via: string}; readiedBy: string | null}[];
};

function snapshot(home: string): Snapshot {
	const result = runCli(['snapshot', '--json'], {env: {CONTROLROOM_HOME: home}});
	expect(result.status, result.stderr).toBe(0);
	return JSON.parse(result.stdout) as Snapshot;
}

describe('serve: a connector through the SDK client', () => {
	let home: string;
	let repo: ContractRepo;
	let served: Served;

	beforeAll(async () => {
		home = scratchDir('cr-serve-home-');
		repo = makeContractRepo();
		served = await startServe(home, ['--repo', `shop=${repo.dir}`]);
	});
	afterAll(async () => {
		expect(await served.stop()).toBe(143);
	});

	it('registers, is approved by a person at a terminal, writes a draft, refreshes, and a person makes it ready', async () => {
		const {provider, redirects} = connectorProvider('Chat Assistant');
		const client = new Client({name: 'chat-assistant', version: '1.0.0'});
		// No token yet: the SDK reads the 401's resource metadata, registers, and sends the browser to authorize.
		await expect(client.connect(new StreamableHTTPClientTransport(served.mcp, {authProvider: provider}))).rejects.toThrow(
			UnauthorizedError,
		);
		expect(provider.clientInformation()?.client_id).toBeTruthy();
		const authorization = redirects[0];
		expect(authorization?.searchParams.get('code_challenge_method')).toBe('S256');
		const consent = await openConsent(authorization as URL);
		expect(consent.html).toContain('Chat Assistant');

		const approved = runAsPerson(['serve', 'approve', consent.code, '--as', 'ana'], {env: {CONTROLROOM_HOME: home}});
		expect(approved.stderr).toBe('');
		expect(approved.status).toBe(0);
		expect(approved.stdout).toContain(`approved ${consent.code}: Chat Assistant may write and read contracts for ana`);

		const back = await consentOutcome(consent.page);
		expect(back.origin + back.pathname).toBe('http://127.0.0.1:9/callback');
		expect(back.searchParams.get('state')).toBe(authorization?.searchParams.get('state'));
		const code = back.searchParams.get('code') ?? '';
		const transport = new StreamableHTTPClientTransport(served.mcp, {authProvider: provider});
		await transport.finishAuth(code);
		const first = provider.tokens();
		expect(first?.access_token).toMatch(/^cra_/);
		expect(first?.refresh_token).toMatch(/^crr_/);
		await client.connect(new StreamableHTTPClientTransport(served.mcp, {authProvider: provider}));
		const tools = (await client.listTools()).tools.map(tool => tool.name).sort();
		expect(tools).toEqual(['file_bug', 'get_work', 'list_work', 'write_task', 'write_transfer']);

		const written = await client.callTool({name: 'write_task', arguments: {contract: chatTask(repo.head)}});
		expect(written.isError, textOf(written)).toBeFalsy();
		const id = (written.structuredContent as {id: string}).id;
		expect(textOf(written)).toContain(`stored ${id} "Keep the status filter in the CSV export" as a draft`);

		const draft = snapshot(home).contracts.find(contract => contract.id === id);
		expect(draft).toMatchObject({
			state: 'draft',
			writer: {client: 'Chat Assistant', owner: 'ana', via: 'serve'},
			readiedBy: null,
		});

		// The refresh: the SDK's auth() with tokens in hand refreshes them; the new pair works, the old refresh token is spent.
		expect(await auth(provider, {serverUrl: served.mcp})).toBe('AUTHORIZED');
		const second = provider.tokens();
		expect(second?.access_token).not.toBe(first?.access_token);
		expect(second?.refresh_token).not.toBe(first?.refresh_token);
		const listed = await client.callTool({name: 'list_work', arguments: {}});
		expect(textOf(listed)).toContain(`${id} draft task`);

		const ready = runAsPerson(['contract', 'ready', id, '--as', 'ana'], {env: {CONTROLROOM_HOME: home}});
		expect(ready.stderr).toBe('');
		expect(ready.status).toBe(0);
		expect(snapshot(home).contracts.find(contract => contract.id === id)).toMatchObject({state: 'ready', readiedBy: 'ana'});
		await client.close();
	});

	it('answers a call without a token 401 with the resource metadata header', async () => {
		const answer = await fetch(served.mcp, {
			method: 'POST',
			headers: {'content-type': 'application/json', accept: 'application/json, text/event-stream'},
			body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list'}),
		});
		expect(answer.status).toBe(401);
		expect(answer.headers.get('www-authenticate')).toContain(
			`resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', served.base).href}"`,
		);
		const metadata = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', served.base))).json()) as {
			resource: string;
			scopes_supported: string[];
		};
		expect(metadata).toMatchObject({resource: served.mcp.href, scopes_supported: ['work:read', 'work:write']});
	});

	it('refuses write_task to a work:read token, and lets it list', async () => {
		const token = mintToken(home, ['--scope', 'work:read', '--name', 'dashboard']);
		const client = new Client({name: 'dashboard', version: '1.0.0'});
		await client.connect(
			new StreamableHTTPClientTransport(served.mcp, {requestInit: {headers: {Authorization: `Bearer ${token}`}}}),
		);
		const refusal = await client.callTool({name: 'write_task', arguments: {contract: chatTask(repo.head)}}).then(
			() => null,
			(error: unknown) => error,
		);
		expect(refusal).toBeInstanceOf(StreamableHTTPError);
		expect((refusal as StreamableHTTPError).code).toBe(403);
		expect(textOf(await client.callTool({name: 'list_work', arguments: {}}))).toContain('(written by Chat Assistant for ana)');
		await client.close();
		const rejects = runCli(['rejects', '--json'], {env: {CONTROLROOM_HOME: home}});
		expect(rejects.stdout).toContain('POST /mcp: 403 insufficient_scope');
	});
});
