import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterEach, describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {loadHumanQueue} from '../../src/ledger/queue.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

type ToolResult = {isError?: boolean; content: {type: string; text?: string}[]; structuredContent?: Record<string, unknown>};

let client: Client | undefined;
afterEach(async () => {
	await client?.close();
	client = undefined;
});

describe('a need of kind missing_info', () => {
	it('is offered by raise_need, validated by its schema, taken by need --kind, and recorded with its kind', async () => {
		const repo = makeContractRepo();
		const contract = repo.place('valid-task.yaml');
		const ledgerFile = freshLedgerFile();
		const env = {...process.env, CONTROLROOM_HOME: scratchDir('cr-home-')} as Record<string, string>;
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [BIN, 'mcp', '--ledger', ledgerFile, '--as', 'agent-7'],
			cwd: repo.dir,
			env,
			stderr: 'pipe',
		});
		client = new Client({name: 'controlroom-test', version: '0.0.0'});
		await client.connect(transport);
		const call = async (name: string, args: Record<string, unknown>) =>
			(await client!.callTool({name, arguments: args})) as ToolResult;

		const {tools} = await client.listTools();
		const schema = tools.find(tool => tool.name === 'raise_need')?.inputSchema as {properties: Record<string, {enum?: string[]}>};
		expect(schema.properties['kind']?.enum).toEqual(['missing_info']);

		const taskId = (await call('take', {file: contract})).structuredContent?.['taskId'] as string;
		const wrong = await call('raise_need', {task: taskId, message: 'which table?', kind: 'urgent'});
		expect(wrong.isError).toBe(true);
		expect(
			(await call('raise_need', {task: taskId, message: 'which table holds the totals?', kind: 'missing_info'})).isError,
		).toBeFalsy();
		expect((await call('raise_need', {task: taskId, message: 'may I add an index?'})).isError).toBeFalsy();

		// By hand, with a kind, and a kind it does not know: one line, exit 64, nothing written.
		expect(
			runCli(['need', 'the brief names no date format', '--kind', 'missing_info', '--ledger', ledgerFile], {env}).status,
		).toBe(0);
		const bad = runCli(['need', 'look', '--kind', 'urgent\u001b[31m', '--ledger', ledgerFile], {env});
		expect([bad.status, bad.stderr.trim().split('\n').length]).toEqual([64, 1]);
		expect(bad.stderr).toContain("need: --kind must be missing_info, not 'urgent");
		expect(bad.stderr).not.toContain('\u001b');

		const ledger = openLedger(ledgerFile);
		try {
			const needs = ledger.reader.eventsOfType(['need.raised']).map(need => [need.source, need.data.kind, need.data.message]);
			expect(needs).toEqual([
				['mcp', 'missing_info', 'which table holds the totals?'],
				['mcp', 'agent', 'may I add an index?'],
				['cli', 'missing_info', 'the brief names no date format'],
			]);
			// In the queue it reads as the worker's, like any need it raises.
			const reasons = loadHumanQueue(ledger.reader, Date.now()).lanes.flatMap(lane => lane.items.map(item => item.reason));
			expect(reasons).toContain('the brief names no date format');
			expect(reasons).toContain('agent-7 asks: may I add an index?');
		} finally {
			ledger.close();
		}
	});
});
