import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterEach, describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {loadHumanQueue} from '../../src/ledger/queue.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

type ToolResult = {isError?: boolean; content: {type: string; text?: string}[]; structuredContent?: Record<string, unknown>};

const EVIDENCE = `before: {command: npm test, exit_code: 1, output: "1 failed"}
change: [{file: src/export.ts, reason: apply the filter}]
after:
  - {check: 1, command: "npm test -- export", exit_code: 0, output: "12 passed"}
  - {check: 2, command: make check, exit_code: 0, output: ""}
uncertainty: []
review: {commit: 9a8b7c6, acceptor: lee}
`;

let client: Client | undefined;
afterEach(async () => {
	await client?.close();
	client = undefined;
});

function text(result: ToolResult): string {
	return result.content.map(part => part.text ?? '').join('\n');
}

describe('controlroom mcp', () => {
	it('lists the six verbs and changes the ledger through each of them', async () => {
		// Given a real repository, two contracts, and the real binary serving MCP over stdio
		const repo = makeContractRepo();
		const contract = repo.place('valid-task.yaml');
		const second = repo.place('valid-bug.yaml');
		const evidence = repo.write('evidence.yaml', EVIDENCE);
		const ledgerFile = freshLedgerFile();
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [BIN, 'mcp', '--ledger', ledgerFile, '--as', 'agent-7'],
			cwd: repo.dir,
			env: {...process.env, CONTROLROOM_HOME: scratchDir('cr-home-')} as Record<string, string>,
			stderr: 'pipe',
		});
		client = new Client({name: 'controlroom-test', version: '0.0.0'});
		await client.connect(transport);
		const call = async (name: string, args: Record<string, unknown>) =>
			(await client!.callTool({name, arguments: args})) as ToolResult;

		// When it lists its tools
		const {tools} = await client.listTools();
		// Then each verb is there with an input schema
		expect(tools.map(tool => tool.name).sort()).toEqual([
			'file_bug',
			'hand_in',
			'list_work',
			'pass_back',
			'progress',
			'raise_need',
			'take',
			'write_task',
			'write_transfer',
		]);
		const take = tools.find(tool => tool.name === 'take');
		expect(take?.inputSchema.required).toEqual(['file']);

		// A bad argument is refused by the schema before any verb runs
		const bad = await call('progress', {task: 'x'});
		expect(bad.isError).toBe(true);

		const taken = await call('take', {file: contract});
		expect(taken.isError).toBeFalsy();
		const taskId = taken.structuredContent?.['taskId'] as string;
		expect(taskId).toMatch(/^claim-/);
		expect(text(taken)).toContain('agent-7 took');

		// A server acts only as its own --as: it cannot take for someone else
		const forOther = await call('take', {file: 'valid-task.yaml', as: 'agent-8'});
		expect(forOther.isError).toBe(true);
		expect(text(forOther)).toBe('agent-7 cannot take a contract for agent-8: a worker takes only for itself');
		const again = await call('take', {file: 'valid-task.yaml'});
		expect(again.isError).toBe(true);
		expect(text(again)).toContain('held by agent-7');

		expect((await call('progress', {task: taskId, note: 'query rewritten'})).isError).toBeFalsy();
		expect((await call('raise_need', {task: taskId, message: 'which date format?'})).isError).toBeFalsy();
		expect((await call('hand_in', {task: taskId, evidence_file: evidence})).isError).toBeFalsy();

		const other = await call('take', {file: second});
		const otherId = other.structuredContent?.['taskId'] as string;
		expect((await call('pass_back', {task: otherId, reason: 'needs a database I cannot reach'})).isError).toBeFalsy();

		const work = await call('list_work', {});
		const items = work.structuredContent?.['items'] as {taskId: string; state: string}[];
		expect(items.map(item => [item.taskId, item.state]).sort()).toEqual(
			[
				[otherId, 'passed back'],
				[taskId, 'handed in'],
			].sort(),
		);

		// Then the ledger holds every step, and the hand-in waits for its acceptor
		const ledger = openLedger(ledgerFile);
		try {
			const types = ledger.reader.eventsOf(taskId).map(event => event.type);
			expect(types).toEqual([
				'task.registered',
				'claim.taken',
				'claim.progressed',
				'need.raised',
				'claim.handed_in',
				'need.raised',
			]);
			expect(ledger.reader.eventsOf(otherId).map(event => event.type)).toContain('claim.passed_back');
			expect(ledger.reader.eventsOf(taskId).every(event => event.source === 'mcp')).toBe(true);
			const waiting = loadHumanQueue(ledger.reader, Date.now()).lanes.find(lane => lane.name === 'waiting');
			expect(waiting?.items).toEqual([expect.objectContaining({taskId, reason: 'hand-in waits for lee'})]);
		} finally {
			ledger.close();
		}
	});
});
