import type {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {spawn, type ChildProcess} from 'node:child_process';
import {chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {REFUSAL_BUDGET} from '../../src/core/effects/refusal-bounds.ts';
import {MAX_MCP_REQUEST_BYTES} from '../../src/core/mcp-limits.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {callTool, connectGateway, MEMORY_SERVER, writeOrder} from '../helpers/effects.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {claudePayload} from '../helpers/payloads.ts';
import {makeReviewRepo} from '../helpers/review-repo.ts';
import {onExit, onOutput, waitFor} from '../helpers/wait-for.ts';

const clients: Client[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
	await Promise.all(clients.map(client => client.close().catch(() => undefined)));
	for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
});

const ORDER = (dir: string): string => `order: o-bounds
worker: worker-1
budget: {calls: 10}
upstreams:
  mem:
    command: ${process.execPath}
    args: [${MEMORY_SERVER}]
    env: {MEMORY_FILE_PATH: ${join(dir, 'memory.jsonl')}}
    allow: [create_entities]
`;

function eventsOf(ledgerFile: string, type: string): {data: Record<string, unknown>; size: number}[] {
	const ledger = openLedger(ledgerFile, {isReadonly: true});
	try {
		return ledger.reader
			.storedEventsSince(0, 100_000)
			.filter(row => row.type === type)
			.map(row => ({data: JSON.parse(row.data) as Record<string, unknown>, size: row.data.length}));
	} finally {
		ledger.close();
	}
}

/** A stdio MCP server of ours, spoken to line by line: what it answers, as parsed lines. */
function rawServer(args: readonly string[], env: NodeJS.ProcessEnv) {
	const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['pipe', 'pipe', 'pipe']});
	children.push(child);
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', chunk => (stdout += String(chunk)));
	child.stderr.on('data', chunk => (stderr += String(chunk)));
	const answers = (): {id?: unknown; result?: unknown; error?: {code: number; message: string}}[] =>
		stdout
			.split('\n')
			.filter(Boolean)
			.map(line => JSON.parse(line) as {id?: unknown});
	const answerTo = (id: number | string) =>
		waitFor(() => answers().find(answer => answer.id === id), {
			what: `the answer to request ${id}`,
			timeoutMs: 30_000,
			on: [onOutput(child.stdout), onExit(child)],
		});
	const send = (message: unknown): void => {
		child.stdin.write(`${JSON.stringify(message)}\n`);
	};
	const initialize = async (): Promise<void> => {
		send({
			jsonrpc: '2.0',
			id: 0,
			method: 'initialize',
			params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'bounds-test', version: '0'}},
		});
		await answerTo(0);
		send({jsonrpc: '2.0', method: 'notifications/initialized'});
	};
	/**
	 * A tools/call line of `bytes` bytes, its id last (as the SDK's client writes it), first, or
	 * between the method and the params (where other clients write it); an `"id"` inside the
	 * arguments, and one inside a string, are not the request's.
	 */
	const sendHuge = (id: number | string, tool: string, bytes: number, where: 'last' | 'first' | 'middle' = 'last'): void => {
		const idText = `"id":${JSON.stringify(id)}`;
		const head = `{${where === 'first' ? `${idText},` : ''}"method":"tools/call",${where === 'middle' ? `${idText},` : ''}"params":{"name":"${tool}","arguments":{"id":99,"note":"\\"id\\":98","blob":"`;
		const tail = `"}},"jsonrpc":"2.0"${where === 'last' ? `,${idText}` : ''}}\n`;
		child.stdin.write(head + 'x'.repeat(bytes - head.length - tail.length + 1) + tail);
	};
	return {child, send, sendHuge, answerTo, answered: answers, initialize, stderr: () => stderr};
}

describe('bounds', {timeout: 120_000}, () => {
	it('refused calls keep a bounded excerpt, and past the refusal budget every call is refused without its arguments', async () => {
		// Given a gateway for an order that allows one tool
		const dir = scratchDir('cr-bounds-refused-');
		const ledgerFile = freshLedgerFile(dir);
		const client = await connectGateway(writeOrder(dir, ORDER(dir)), ledgerFile);
		clients.push(client);
		const before = statSync(ledgerFile).size;
		// When a worker makes 25 calls of 4 MB each to a tool outside the order, then one allowed call
		const blob = 'x'.repeat(4 * 1024 * 1024);
		const told: string[] = [];
		for (let call = 0; call < 25; call += 1)
			told.push((await callTool(client, 'mem__delete_entities', {entityNames: [blob]})).content[0]?.text ?? '');
		const allowed = await callTool(client, 'mem__create_entities', {
			entities: [{name: 'Ada', entityType: 'p', observations: []}],
		});
		await client.close();
		// Then each is recorded, small, and the budget refuses the rest
		const refused = eventsOf(ledgerFile, EventType.effectRefused);
		const grown = statSync(ledgerFile).size + (statSync(`${ledgerFile}-wal`, {throwIfNoEntry: false})?.size ?? 0) - before;
		process.stdout.write(
			`refused calls: 26 in (25 of ${blob.length} chars, 1 allowed), ${refused.length} recorded, largest ${Math.max(...refused.map(event => event.size))} chars; ledger grew ${grown} bytes; budget ${REFUSAL_BUDGET}\n`,
		);
		expect(refused).toHaveLength(26);
		expect(Math.max(...refused.map(event => event.size))).toBeLessThan(2048);
		expect(refused[0]?.data.args).toMatchObject({chars: expect.any(Number), excerpt: expect.stringMatching(/…$/)});
		expect(refused.at(-1)?.data.args).toMatchObject({omitted: true});
		expect(told[REFUSAL_BUDGET - 1]).toContain('is not in order o-bounds');
		expect(told[REFUSAL_BUDGET]).toContain('refusal budget of 20');
		expect(allowed.isError).toBe(true);
		expect(allowed.content[0]?.text).toContain('refusal budget of 20');
		expect(grown).toBeLessThan(1024 * 1024);
	});

	it('an MCP request over 10 MiB gets a JSON-RPC error and a record, and the server goes on (gateway and mcp)', async () => {
		const dir = scratchDir('cr-bounds-huge-');
		const ledgerFile = freshLedgerFile(dir);
		const env = {...process.env, CONTROLROOM_HOME: join(dir, 'home')};
		const counts: string[] = [];
		for (const server of [
			{
				name: 'gateway',
				args: ['gateway', '--order', writeOrder(dir, ORDER(dir)), '--ledger', ledgerFile],
				tool: 'mem__create_entities',
			},
			{name: 'mcp', args: ['mcp', '--as', 'worker-1', '--ledger', ledgerFile], tool: 'progress'},
		]) {
			// Given our server on stdio, initialized
			const raw = rawServer(server.args, env);
			await raw.initialize();
			// When one request is 11 MiB, its id last, then first, then in the middle (a string), then a normal one follows
			raw.sendHuge(7, server.tool, MAX_MCP_REQUEST_BYTES + 1024 * 1024);
			const huge = await raw.answerTo(7);
			raw.sendHuge(5, server.tool, MAX_MCP_REQUEST_BYTES + 1024 * 1024, 'first');
			const first = await raw.answerTo(5);
			raw.sendHuge('mid-6', server.tool, MAX_MCP_REQUEST_BYTES + 1024 * 1024, 'middle');
			const middle = await raw.answerTo('mid-6');
			raw.send({jsonrpc: '2.0', id: 8, method: 'tools/list', params: {}});
			const next = await raw.answerTo(8);
			for (const answer of [first, middle]) expect(answer.error?.message).toContain('over the limit of 10485760 bytes');
			// The ids inside the arguments got nothing
			expect(raw.answered().some(answer => answer.id === 99 || answer.id === 98)).toBe(false);
			raw.child.stdin.end();
			await waitFor(() => raw.child.exitCode !== null, {what: `${server.name} to end`, on: [onExit(raw.child)]});
			// Then the huge one was answered with an error naming the limit, and the next one served
			expect(huge.error?.code).toBe(-32600);
			expect(huge.error?.message).toContain('over the limit of 10485760 bytes');
			expect(next.result).toBeDefined();
			expect(raw.stderr()).toContain('over the limit');
			counts.push(`${server.name}: 4 in, 3 errors ${huge.error?.code} then ${next.result ? 'a result' : 'nothing'}`);
		}
		// And each is recorded: a refused call of the order, a reject of the mcp server
		const refused = eventsOf(ledgerFile, EventType.effectRefused);
		const ledger = openLedger(ledgerFile, {isReadonly: true});
		const rejects = ledger.reader.rejects(100).filter(reject => reject.origin === 'mcp');
		ledger.close();
		process.stdout.write(
			`oversized requests: ${counts.join('; ')}; ${refused.length} refused call recorded, ${rejects.length} mcp reject\n`,
		);
		expect(refused).toHaveLength(3);
		expect(refused[0]?.data.reason).toMatch(/request of \d+ bytes is over the limit/);
		expect(refused[0]?.size).toBeLessThan(2048);
		expect(rejects).toHaveLength(3);
		expect(rejects[0]?.reason).toContain('progress');
	});

	it.each<{what: string; args: string[]; env?: Record<string, string>; exit: number; says: RegExp}>([
		{
			what: 'run --title of 100,000 characters',
			args: ['run', '--title', 'x'.repeat(100_000), '--', 'true'],
			exit: 64,
			says: /^controlroom: --title: 100000 characters, over the limit of 500$/,
		},
		{
			what: 'need of 100,000 characters',
			args: ['need', 'y'.repeat(100_000)],
			exit: 1,
			says: /need: 100000 characters, over the limit of 4000/,
		},
		...[
			['progress', 'TASK', 'x'.repeat(5000)],
			['pass-back', 'TASK', '--reason', 'x'.repeat(5000)],
			['send-back', 'TASK', '--reason', 'x'.repeat(5000)],
			['effects', 'reject', 'o-1', '--reason', 'x'.repeat(5000)],
			['accept', 'TASK', '--note', 'x'.repeat(5000)],
		].map(args => ({
			what: `${args.slice(0, 2).join(' ')} with a text of 5,000 characters`,
			args,
			exit: 64,
			says: /: 5000 characters, over the limit of 4000$/,
		})),
		{
			what: 'reconcile --interval 1e-9',
			args: ['reconcile', '--interval', '1e-9'],
			exit: 64,
			says: /^controlroom: --interval: expected at least 0.05 seconds, got '1e-9'$/,
		},
		{
			what: 'sync --interval 0.001',
			args: ['sync', '--to', 'postgres://127.0.0.1:1/x', '--interval', '0.001'],
			exit: 64,
			says: /^controlroom: --interval: expected at least 0.05 seconds/,
		},
		{
			what: 'run --heartbeat 0.001',
			args: ['run', '--heartbeat', '0.001', '--', 'true'],
			exit: 64,
			says: /^controlroom: --heartbeat: expected at least 0.05 seconds,/,
		},
		{
			what: 'CONTROLROOM_HEARTBEAT_SECONDS=0.001',
			args: ['run', '--', 'true'],
			env: {CONTROLROOM_HEARTBEAT_SECONDS: '0.001'},
			exit: 78,
			says: /CONTROLROOM_HEARTBEAT_SECONDS: expected at least 0.05 seconds, got 0.001/,
		},
		{what: 'snapshot --ledger /dev/null', args: ['snapshot', '--ledger', '/dev/null'], exit: 64, says: /\/dev\/null/},
		{
			what: 'snapshot --ledger of a path that does not exist',
			args: ['snapshot', '--ledger', 'LEDGER'],
			exit: 64,
			says: /no ledger at/,
		},
	])('$what: one line, exit $exit, nothing written', ({args, env, exit, says}) => {
		const dir = scratchDir('cr-bounds-table-');
		const ledgerFile = freshLedgerFile(dir);
		const typo = join(dir, 'typo.db');
		const result = runCli(
			args.map(arg => (arg === 'LEDGER' ? typo : arg)),
			{env: {CONTROLROOM_HOME: dir, CONTROLROOM_LEDGER: ledgerFile, ...env}},
		);
		const lines = result.stderr.trim().split('\n');
		process.stdout.write(`bounds table: ${args[0]} → exit ${result.status}, ${lines.length} line: ${lines[0]?.slice(0, 100)}\n`);
		expect(result.status).toBe(exit);
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatch(says);
		expect(existsSync(typo)).toBe(false);
		expect(existsSync('/dev/null-journal')).toBe(false);
	});

	it('an agent’s need of 100,000 characters is kept whole and shown cut with …; run --ledger of a new path creates it and says so', () => {
		const dir = scratchDir('cr-bounds-need-');
		const ledgerFile = join(dir, 'new.db');
		const long = `need ${'z'.repeat(100_000)}`;
		const history = join(dir, 'history.jsonl');
		writeFileSync(
			history,
			JSON.stringify({
				at: new Date().toISOString(),
				source: 'claude',
				payload: claudePayload('Stop', '99999999-aaaa-4bbb-8ccc-000000000002', {
					hook_event_name: 'Notification',
					message: long,
					notification_type: 'permission_prompt',
				}),
			}),
		);
		const run = runCli(['run', '--ledger', ledgerFile, '--title', 'first', '--', 'true'], {env: {CONTROLROOM_HOME: dir}});
		expect(run.status).toBe(0);
		expect(run.stderr).toContain(`created a new, empty ledger at ${ledgerFile}`);
		expect(runCli(['ingest', history, '--ledger', ledgerFile], {env: {CONTROLROOM_HOME: dir}}).status).toBe(0);
		const snapshot = runCli(['snapshot', '--ledger', ledgerFile], {env: {CONTROLROOM_HOME: dir}});
		const needLine = snapshot.stdout.split('\n').find(line => line.includes('need zzz')) ?? '';
		const kept = eventsOf(ledgerFile, 'need.raised')[0]?.data.message as string;
		process.stdout.write(`agent need: ${long.length} chars in, ${kept.length} kept, shown as a line of ${needLine.length}\n`);
		expect(kept).toBe(long);
		expect(needLine.length).toBeLessThan(300);
		expect(needLine.endsWith('…')).toBe(true);
	});

	it('modes: a review’s folder and packet are the owner’s only, and doctor names one that is not', () => {
		// Given a review run under umask 022
		const r = makeReviewRepo();
		const taskId = r.runWorker('modes');
		const review = r.asPerson(['review', taskId, '--reviewer', 'cat >/dev/null; echo APPROVE']);
		expect(review.status, review.stderr).toBe(0);
		const reviews = join(r.home, 'reviews');
		const modes = (path: string): string[] =>
			readdirSync(path, {withFileTypes: true}).flatMap(entry => {
				const full = join(path, entry.name);
				const line = `${full.slice(reviews.length)} ${(statSync(full).mode & 0o777).toString(8)}`;
				return entry.isDirectory() ? [line, ...modes(full)] : [line];
			});
		const found = [`/ ${(statSync(reviews).mode & 0o777).toString(8)}`, ...modes(reviews)];
		chmodSync(r.home, 0o700); // made by the test's helper, not by controlroom
		expect(r.cli(['doctor']).stdout).toMatch(/ok +permissions/);
		// When a packet is made readable by others, and a folder listable
		const packet = found.find(line => line.endsWith('.md 600'))?.split(' ')[0] ?? '';
		const planted = join(reviews, 'planted');
		mkdirSync(planted, {mode: 0o755});
		chmodSync(join(reviews, packet), 0o644);
		const doctor = r.cli(['doctor']);
		process.stdout.write(
			`modes: ${found.length} entries under reviews/ (${found.join(', ')}); doctor after two loosened: ${doctor.stdout.split('\n').find(line => line.includes('permissions'))}\n`,
		);
		// Then every entry was private, and doctor names both loosened ones, exit 1
		expect(found.every(line => line.endsWith(' 700') || line.endsWith(' 600'))).toBe(true);
		expect(found.some(line => line.endsWith('.md 600'))).toBe(true);
		expect(doctor.status).toBe(1);
		expect(doctor.stdout).toContain(`${packet.split('/').at(-1)} is 0644`);
		expect(doctor.stdout).toContain('planted is 0755');
	});
});
