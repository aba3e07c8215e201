import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterEach, describe, expect, it} from 'vitest';
import {handIn, recordProgress, takeContract} from '../../src/handoff/claims.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
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

const clients: Client[] = [];
afterEach(async () => {
	await Promise.all(clients.splice(0).map(async client => client.close()));
});

/** The real binary serving MCP as `name`, driven through the SDK's own client, as an agent would. */
async function agent(name: string, ledgerFile: string, cwd: string) {
	const client = new Client({name: `agent-${name}`, version: '0.0.0'});
	clients.push(client);
	await client.connect(
		new StdioClientTransport({
			command: process.execPath,
			args: [BIN, 'mcp', '--as', name, '--ledger', ledgerFile],
			cwd,
			env: {...process.env, CONTROLROOM_HOME: scratchDir('cr-home-'), CONTROLROOM_WORKER: ''} as Record<string, string>,
			stderr: 'pipe',
		}),
	);
	return async (tool: string, args: Record<string, unknown>) =>
		(await client.callTool({name: tool, arguments: args})) as ToolResult;
}

const text = (result: ToolResult) => result.content.map(part => part.text ?? '').join('\n');

describe('controlroom mcp --as: an agent acts only as itself', () => {
	it("cannot progress, hand in or pass back erin's claim, and every claim event records its actor", async () => {
		// Given erin holding a contract (taken at the terminal) and an agent serving MCP as worker-1
		const repo = makeContractRepo();
		const contract = repo.place('valid-task.yaml');
		const evidence = repo.write('evidence.yaml', EVIDENCE);
		const ledgerFile = freshLedgerFile();
		const terminal = openLedger(ledgerFile);
		const erin = {ledger: terminal, source: 'cli' as const, identity: 'erin'};
		const erinsClaim = takeContract(erin, contract, 'erin').taskId;
		const eventsBefore = terminal.reader.eventsOf(erinsClaim).length;
		const worker = await agent('worker-1', ledgerFile, repo.dir);

		// When worker-1 tries each claim verb on erin's claim
		const attempts = {
			progress: await worker('progress', {task: erinsClaim, note: 'pretending to be erin'}),
			hand_in: await worker('hand_in', {task: erinsClaim, evidence_file: evidence}),
			pass_back: await worker('pass_back', {task: erinsClaim, reason: 'taking it from erin'}),
			take: await worker('take', {file: contract, as: 'erin'}),
			raise_need: await worker('raise_need', {task: erinsClaim, message: 'erin wants the release moved'}),
		};

		// Then each is a tool error naming the holder, and erin's claim did not move
		expect(text(attempts.progress)).toBe(`claim ${erinsClaim} is held by erin; worker-1 cannot progress it`);
		expect(text(attempts.hand_in)).toBe(`claim ${erinsClaim} is held by erin; worker-1 cannot hand it in`);
		expect(text(attempts.pass_back)).toBe(`claim ${erinsClaim} is held by erin; worker-1 cannot pass it back`);
		expect(text(attempts.take)).toBe('worker-1 cannot take a contract for erin: a worker takes only for itself');
		expect(text(attempts.raise_need)).toBe(`claim ${erinsClaim} is held by erin; worker-1 cannot raise a need on it`);
		for (const attempt of Object.values(attempts)) expect(attempt.isError).toBe(true);
		expect(terminal.reader.eventsOf(erinsClaim)).toHaveLength(eventsBefore);
		expect(terminal.reader.task(erinsClaim)?.status).toBe('running');
		// And each refused attempt is kept, with who tried
		const reasons = terminal.reader.rejects(10).map(reject => reject.reason);
		expect(reasons.filter(reason => reason.startsWith('worker-1 refused: claim'))).toHaveLength(4);

		// When worker-1 works on a claim of its own, through every verb
		const own = await worker('take', {file: repo.place('valid-bug.yaml')});
		const ownClaim = own.structuredContent?.['taskId'] as string;
		expect(text(own)).toContain('worker-1 took');
		expect((await worker('progress', {task: ownClaim, note: 'reproduced'})).isError).toBeFalsy();
		expect((await worker('raise_need', {task: ownClaim, message: 'which date format?'})).isError).toBeFalsy();
		// The queue names who asks
		const snapshot = JSON.parse(runCli(['snapshot', '--json', '--ledger', ledgerFile]).stdout) as {
			queue: {lanes: {name: string; items: {taskId: string; reason: string}[]}[]};
		};
		expect(snapshot.queue.lanes.find(lane => lane.name === 'needs')?.items).toEqual([
			expect.objectContaining({taskId: ownClaim, reason: 'worker-1 asks: which date format?'}),
		]);
		expect((await worker('pass_back', {task: ownClaim, reason: 'needs a database I cannot reach'})).isError).toBeFalsy();
		// ...and erin finishes hers at the terminal (the functions `controlroom progress` and `hand-in` call)
		recordProgress(erin, erinsClaim, 'query rewritten');
		expect(handIn(erin, erinsClaim, evidence).acceptor).toBe('lee');

		// Then every claim event records who acted
		const after = terminal;
		try {
			const actors = (taskId: string) =>
				after.reader
					.eventsOf(taskId)
					.filter(event => event.type.startsWith('claim.') || event.type === 'need.raised')
					.map(event => [event.type, (event.data as {actor?: unknown}).actor, event.source]);
			expect(actors(ownClaim)).toEqual([
				['claim.taken', 'worker-1', 'mcp'],
				['claim.progressed', 'worker-1', 'mcp'],
				['need.raised', 'worker-1', 'mcp'],
				['claim.passed_back', 'worker-1', 'mcp'],
			]);
			expect(actors(erinsClaim)).toEqual([
				['claim.taken', 'erin', 'cli'],
				['claim.progressed', 'erin', 'cli'],
				['claim.handed_in', 'erin', 'cli'],
				['need.raised', 'erin', 'cli'],
			]);
		} finally {
			after.close();
		}
	});

	it('lets a second agent take what the first passed back, and refuses the first on it afterwards', async () => {
		const repo = makeContractRepo();
		const contract = repo.place('valid-task.yaml');
		const ledgerFile = freshLedgerFile();
		const first = await agent('worker-1', ledgerFile, repo.dir);
		const second = await agent('worker-2', ledgerFile, repo.dir);
		const one = (await first('take', {file: contract})).structuredContent?.['taskId'] as string;
		const blocked = await second('take', {file: contract});
		expect(text(blocked)).toContain('held by worker-1');
		expect((await first('pass_back', {task: one, reason: 'out of time'})).isError).toBeFalsy();
		const next = await second('take', {file: contract});
		expect(text(next).split('\n')[0]).toBe('passed back by worker-1: out of time');
		const two = next.structuredContent?.['taskId'] as string;
		const refused = await first('progress', {task: two, note: 'still mine?'});
		expect(refused.isError).toBe(true);
		expect(text(refused)).toBe(`claim ${two} is held by worker-2; worker-1 cannot progress it`);
	});

	it('will not start without an identity', () => {
		const result = runCli(['mcp'], {env: {CONTROLROOM_WORKER: ''}, input: ''});
		expect(result.status).toBe(64);
		expect(result.stderr).toBe('controlroom: mcp: --as NAME is required: who the agent is (or set CONTROLROOM_WORKER)\n');
	});

	it('refuses a worker at the terminal (--as, or CONTROLROOM_WORKER) on a claim it does not hold, and lets a person act', () => {
		const repo = makeContractRepo();
		const ledgerFile = freshLedgerFile();
		const taken = runCli(['take', repo.place('valid-task.yaml'), '--as', 'erin', '--ledger', ledgerFile]);
		const claim = /as (claim-\S+)/.exec(taken.stdout)?.[1] ?? '';
		const asWorker = runCli(['pass-back', claim, '--reason', 'mine now', '--ledger', ledgerFile], {
			env: {CONTROLROOM_WORKER: 'worker-1'},
		});
		expect(asWorker.status).toBe(1);
		expect(asWorker.stderr).toBe(`controlroom: claim ${claim} is held by erin; worker-1 cannot pass it back\n`);
		// A person (no worker identity) frees a stalled claim, and is recorded as the actor
		const person = runCli(['pass-back', claim, '--reason', 'erin is away', '--ledger', ledgerFile], {
			env: {CONTROLROOM_WORKER: '', USER: 'lead'},
		});
		expect(person.status).toBe(0);
		const ledger = openLedger(ledgerFile);
		try {
			const [passed] = ledger.reader.latestEventsOf(claim, ['claim.passed_back'], 1);
			expect(passed?.data).toMatchObject({holder: 'erin', actor: 'lead', reason: 'erin is away'});
		} finally {
			ledger.close();
		}
	});
});
