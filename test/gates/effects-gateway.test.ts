import type {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {runAsPerson} from '../helpers/person.ts';
import {callTool, connectGateway, FS_SERVER, MEMORY_SERVER, orderInLedger, resultText, writeOrder} from '../helpers/effects.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

// Each test starts several real processes one after another (the gateway, its upstream, one CLI
// run per step, each a fresh Node): about 2.5 s apiece on the shared 2-core machine under load,
// so the budget is per process started, not a guess at a race. Every wait inside is on an event.
const SPAWNS_TIMEOUT_MS = 120_000;

const clients: Client[] = [];
afterEach(async () => {
	await Promise.all(clients.splice(0).map(client => client.close()));
});

async function gateway(orderFile: string, ledgerFile: string): Promise<Client> {
	const client = await connectGateway(orderFile, ledgerFile);
	clients.push(client);
	return client;
}

/** A scratch folder with a ledger, a folder the filesystem server may touch, and an order for it. */
function fsOrder(extra = ''): {dir: string; srv: string; ledger: string; order: string} {
	const dir = scratchDir('cr-effects-');
	const srv = join(dir, 'srv');
	mkdirSync(srv);
	const order = writeOrder(
		dir,
		`order: o-42
worker: worker-1
budget: {calls: 20}
expires: 1h
upstreams:
  fs:
    command: ${process.execPath}
    args: [${FS_SERVER}, ${srv}]
    allow: [read_text_file, list_directory, write_file, move_file]
${extra}`,
	);
	return {dir, srv, ledger: freshLedgerFile(dir), order};
}

describe('the effect gateway against the real filesystem server', {timeout: SPAWNS_TIMEOUT_MS}, () => {
	it('passes a read and records it, holds a write (file untouched), runs it once on approval and never again', async () => {
		// Given an order over the real filesystem server and a file to read
		const {srv, ledger, order} = fsOrder();
		writeFileSync(join(srv, 'notes.txt'), 'hello\n');
		const client = await gateway(order, ledger);

		// Then only the allowed tools are offered, namespaced by upstream
		const {tools} = await client.listTools();
		expect(tools.map(tool => tool.name).sort()).toEqual([
			'fs__list_directory',
			'fs__move_file',
			'fs__read_text_file',
			'fs__write_file',
		]);

		// When the worker reads: it passes through, and the ledger records it with its result
		const read = await callTool(client, 'fs__read_text_file', {path: join(srv, 'notes.txt')});
		expect(read.isError).toBeFalsy();
		expect(resultText(read)).toContain('hello');

		// When it writes: the call is held, answered with a placeholder, and the file is untouched
		const target = join(srv, 'out.txt');
		const write = await callTool(client, 'fs__write_file', {path: target, content: 'written by the agent\n'});
		expect(write.isError).toBeFalsy();
		expect(write.content[0]?.text).toBe('pending:fs/write_file#2');
		expect(existsSync(target)).toBe(false);

		// And a tool outside the order is refused with a clear tool error
		const outside = await callTool(client, 'fs__edit_file', {path: target, edits: []});
		expect(outside.isError).toBe(true);
		expect(resultText(outside)).toContain('not in order o-42');

		const before = orderInLedger(ledger, 'o-42');
		expect(before.types).toEqual(['order.opened', 'effect.read', 'effect.finished', 'effect.held', 'effect.refused']);
		const readEffect = before.order?.effects.find(effect => effect.id === 'fs/read_text_file#1');
		expect(readEffect?.kind).toBe('read');
		expect(JSON.stringify(readEffect?.result)).toContain('hello');
		expect(before.order?.effects.find(effect => effect.id === 'fs/write_file#2')?.args).toEqual({
			path: target,
			content: 'written by the agent\n',
		});

		// When a person approves: the file is written, once
		const approved = runAsPerson(['effects', 'approve', 'o-42', '--ledger', ledger]);
		expect(approved.status, approved.stderr).toBe(0);
		expect(approved.stdout).toContain('fs/write_file#2: finished');
		expect(readFileSync(target, 'utf8')).toBe('written by the agent\n');

		// When someone changes the file and approves again: nothing is sent, the change stays
		writeFileSync(target, 'changed by a person\n');
		const again = runAsPerson(['effects', 'approve', 'o-42', '--ledger', ledger]);
		expect(again.status, again.stderr).toBe(0);
		expect(again.stdout).toContain('nothing held in o-42');
		const named = runAsPerson(['effects', 'approve', 'o-42', '--only', 'pending:fs/write_file#2', '--ledger', ledger]);
		expect(named.status).toBe(0);
		expect(named.stdout).toContain('fs/write_file#2: finished, not sent again');
		expect(readFileSync(target, 'utf8')).toBe('changed by a person\n');
		const after = orderInLedger(ledger, 'o-42');
		expect(after.types.filter(type => type === 'effect.started')).toHaveLength(1);
	});

	it('runs nothing when the report lists an effect the log lacks, and says which', async () => {
		const {dir, srv, ledger, order} = fsOrder();
		const client = await gateway(order, ledger);
		const target = join(srv, 'report.txt');
		const held = await callTool(client, 'fs__write_file', {path: target, content: 'x'});
		expect(held.content[0]?.text).toBe('pending:fs/write_file#1');
		// The worker's report claims a second effect the gateway never held
		const report = join(dir, 'report.yaml');
		writeFileSync(report, 'effects:\n  - pending:fs/write_file#1\n  - pending:fs/move_file#2\n');

		const refused = runAsPerson(['effects', 'approve', 'o-42', '--report', report, '--ledger', ledger]);

		expect(refused.status).toBe(1);
		expect(refused.stdout).toContain('nothing ran');
		expect(refused.stdout).toContain("fs/move_file#2: the gateway's log for o-42 has no such effect");
		expect(existsSync(target)).toBe(false);
		const {types, order: record} = orderInLedger(ledger, 'o-42');
		expect(types).toContain('order.approval_refused');
		expect(types).not.toContain('effect.started');
		expect(record?.effects.find(effect => effect.id === 'fs/write_file#1')?.startedAt).toBeNull();

		// A report that matches the log lets the approval run
		writeFileSync(report, 'effects:\n  - {effect: "pending:fs/write_file#1", tool: write_file}\n');
		const ok = runAsPerson(['effects', 'approve', 'o-42', '--report', report, '--ledger', ledger]);
		expect(ok.status, ok.stdout + ok.stderr).toBe(0);
		expect(readFileSync(target, 'utf8')).toBe('x');
	});

	it('refuses a call past the budget with a clear tool error', async () => {
		const dir = scratchDir('cr-effects-');
		const srv = join(dir, 'srv');
		mkdirSync(srv);
		const order = writeOrder(
			dir,
			`order: o-budget
worker: worker-2
budget: {calls: 2}
upstreams:
  fs: {command: ${process.execPath}, args: [${FS_SERVER}, ${srv}], allow: [list_directory, write_file]}
`,
		);
		const ledger = freshLedgerFile(dir);
		const client = await gateway(order, ledger);
		expect((await callTool(client, 'fs__list_directory', {path: srv})).isError).toBeFalsy();
		expect((await callTool(client, 'fs__write_file', {path: join(srv, 'a'), content: 'a'})).content[0]?.text).toBe(
			'pending:fs/write_file#2',
		);

		const third = await callTool(client, 'fs__list_directory', {path: srv});

		expect(third.isError).toBe(true);
		expect(resultText(third)).toContain("the order's budget of 2 calls is spent");
		const {types} = orderInLedger(ledger, 'o-budget');
		expect(types.filter(type => type === 'effect.refused')).toHaveLength(1);
	});
});

describe('the effect gateway against the real memory server', {timeout: SPAWNS_TIMEOUT_MS}, () => {
	it('fills the second call of a $ref chain from the first call’s result', async () => {
		// Given an order over the real knowledge-graph server, its store in a scratch file
		const dir = scratchDir('cr-effects-');
		const memory = join(dir, 'memory.jsonl');
		const order = writeOrder(
			dir,
			`order: o-mem
worker: worker-3
budget: {calls: 10}
upstreams:
  mem:
    command: ${process.execPath}
    args: [${MEMORY_SERVER}]
    env: {MEMORY_FILE_PATH: ${memory}}
    allow: [create_entities, add_observations, read_graph]
`,
		);
		const ledger = freshLedgerFile(dir);
		const client = await gateway(order, ledger);

		// When the worker creates an entity, then adds an observation to whatever the first call created
		const first = await callTool(client, 'mem__create_entities', {
			entities: [{name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first program']}],
		});
		expect(first.content[0]?.text).toBe('pending:mem/create_entities#1');
		const second = await callTool(client, 'mem__add_observations', {
			observations: [
				{
					entityName: {$ref: 'mem/create_entities#1', pointer: '/structuredContent/entities/0/name'},
					contents: ['born 1815'],
				},
			],
		});
		expect(second.content[0]?.text).toBe('pending:mem/add_observations#2');
		// Nothing is in the graph yet
		const empty = await callTool(client, 'mem__read_graph', {});
		expect(empty.structuredContent?.['entities']).toEqual([]);

		// Then approving runs both, in order, the second with the name the first returned
		const approved = runAsPerson(['effects', 'approve', 'o-mem', '--ledger', ledger]);
		expect(approved.status, approved.stdout + approved.stderr).toBe(0);
		const graph = await callTool(client, 'mem__read_graph', {});
		expect(graph.structuredContent?.['entities']).toEqual([
			{name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first program', 'born 1815']},
		]);
		const {order: record} = orderInLedger(ledger, 'o-mem');
		expect(record?.effects.find(effect => effect.id === 'mem/add_observations#2')?.sentArgs).toEqual({
			observations: [{entityName: 'Ada Lovelace', contents: ['born 1815']}],
		});
	});
});

describe('derived orders', {timeout: SPAWNS_TIMEOUT_MS}, () => {
	it('never carry staged tools: the sub-agent does not see them and is refused when it calls one', async () => {
		// Given a worker's order and an order derived from it for a sub-agent
		const {dir, srv, ledger, order} = fsOrder();
		writeFileSync(join(srv, 'notes.txt'), 'shared\n');
		const derivedFile = join(dir, 'sub.yaml');
		const derive = runCli(['order', 'derive', order, '--worker', 'sub-1', '--out', derivedFile, '--ledger', ledger]);
		expect(derive.status, derive.stderr).toBe(0);
		const derivedYaml = readFileSync(derivedFile, 'utf8');
		expect(derivedYaml).toContain('derived_from: o-42');
		expect(derivedYaml).not.toContain('staged:');
		// The parent staged by inference (no staged: list), so the file says how its allow list is read
		expect(derivedYaml).toContain(
			'# fs: staged by inference in o-42; the gateway hides and refuses every tool not annotated readOnlyHint: true.',
		);

		const sub = await gateway(derivedFile, ledger);

		// Then the staged tools are not offered, reads are
		const {tools} = await sub.listTools();
		expect(tools.map(tool => tool.name).sort()).toEqual(['fs__list_directory', 'fs__read_text_file']);
		expect((await callTool(sub, 'fs__read_text_file', {path: join(srv, 'notes.txt')})).isError).toBeFalsy();
		// And a sub-agent calling one anyway is refused, and nothing is held
		const refused = await callTool(sub, 'fs__write_file', {path: join(srv, 'sub.txt'), content: 'nope'});
		expect(refused.isError).toBe(true);
		expect(resultText(refused)).toContain('a derived order never carries staged tools');
		expect(existsSync(join(srv, 'sub.txt'))).toBe(false);
		const {types} = orderInLedger(ledger, 'o-42.sub-1');
		expect(types).toContain('effect.refused');
		expect(types).not.toContain('effect.held');
	});

	it('are refused when they claim a parent the ledger does not know', () => {
		const {dir, ledger} = fsOrder();
		const forged = writeOrder(
			dir,
			`order: o-forged
worker: sub-2
derived_from: o-unknown
budget: {calls: 5}
upstreams:
  fs: {command: ${process.execPath}, args: [${FS_SERVER}, ${dir}], allow: [write_file]}
`,
			'forged.yaml',
		);
		const result = runCli(['gateway', '--order', forged, '--ledger', ledger], {input: ''});
		expect(result.status).toBe(1);
		expect(result.stderr).toContain('derived from o-unknown, which the ledger does not know');
	});
});
