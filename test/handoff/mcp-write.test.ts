import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterEach, describe, expect, it} from 'vitest';
import {runCli, BIN, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

// An agent files the bug it found through its own stdio server (controlroom mcp): checked as
// contract check checks a file, stored as a draft written by the agent's --as name, mapped to its
// checkout by repositories.json, and never made ready by the agent.

const textOf = (result: unknown): string =>
	((result as CallToolResult).content ?? []).map(part => (part.type === 'text' ? part.text : '')).join('\n');

let client: Client | undefined;
afterEach(async () => {
	await client?.close();
	client = undefined;
});

function bug(head: string, steps: 'Reproduce' | 'Steps'): string {
	return `---
title: The export ignores the status filter
context: {repository: github.com/ana/shop, base_revision: "${head}"}
---

## Problem

Exporting with status=open also exports closed orders.

## ${steps}

1. Select status=open
2. Export CSV

## Expected

Only open orders; the page shows two (guess).

## What made it hard to see

The table on screen is filtered; only the file is wrong.

## Acceptance

- \`npm test\` passes with a test that exports status=open

## Acceptors

- engineer: lee
`;
}

describe('controlroom mcp: the write tools', () => {
	it('stores a bug an agent files as a draft of its own, refuses Steps, and the agent cannot make it ready', async () => {
		const repo = makeContractRepo();
		const home = scratchDir('cr-home-');
		const map = join(scratchDir('cr-map-'), 'repositories.json');
		writeFileSync(map, JSON.stringify({'https://github.com/ana/shop.git': repo.dir}));
		const ledgerFile = freshLedgerFile();
		const env = {...process.env, CONTROLROOM_HOME: home, CONTROLROOM_REPOSITORIES: map, USER: 'ana'};
		client = new Client({name: 'agent', version: '0'});
		await client.connect(
			new StdioClientTransport({
				command: process.execPath,
				args: [BIN, 'mcp', '--ledger', ledgerFile, '--as', 'agent-7'],
				env: env as Record<string, string>,
				stderr: 'pipe',
			}),
		);
		const refused = await client.callTool({name: 'file_bug', arguments: {contract: bug(repo.head, 'Steps')}});
		expect(refused.isError).toBe(true);
		expect(textOf(refused)).toContain('error steps: a bug says "Reproduce", never "Steps"');
		const filed = await client.callTool({name: 'file_bug', arguments: {contract: bug(repo.head, 'Reproduce')}});
		expect(filed.isError, textOf(filed)).toBeFalsy();
		const {id} = filed.structuredContent as {id: string};
		const snapshot = JSON.parse(runCli(['snapshot', '--json', '--ledger', ledgerFile], {env}).stdout) as {
			contracts: {
				id: string;
				kind: string;
				state: string;
				writer: {client: string; owner: string; via: string};
				guesses: string[];
			}[];
		};
		expect(snapshot.contracts.find(contract => contract.id === id)).toMatchObject({
			kind: 'bug',
			state: 'draft',
			writer: {client: 'agent-7', owner: 'ana', via: 'mcp'},
			guesses: ['expected'],
		});
		// The agent's own `contract ready` (no terminal): refused, recorded, still a draft.
		const ready = runCli(['contract', 'ready', id, '--ledger', ledgerFile], {env: {...env, CLAUDECODE: '1'}});
		expect(ready.status).toBe(77);
		expect(ready.stderr).toContain(`contract ready ${id}: refused: only a person at a terminal says yes`);
		const after = JSON.parse(runCli(['snapshot', '--json', '--ledger', ledgerFile], {env}).stdout) as {
			contracts: {id: string; state: string}[];
		};
		expect(after.contracts.find(contract => contract.id === id)?.state).toBe('draft');
	});
});
