import type {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {callTool, connectGateway, FS_SERVER, orderInLedger, SLOW_SERVER, writeOrder} from '../helpers/effects.ts';
import {runAsPerson, spawnAsPerson} from '../helpers/person.ts';
import {onFileChange, waitFor} from '../helpers/wait-for.ts';

// What the worker cannot change about a work order, and approvals taking turns: an order id names
// one order (its first file, recorded), held calls run only under it, a held effect the gateway
// could not have held never runs, and two approvals of one order never overlap.

const clients: Client[] = [];
afterEach(async () => {
	await Promise.all(clients.splice(0).map(client => client.close().catch(() => undefined)));
});

const fsOrder = (id: string, srv: string, extra = '') => `order: ${id}
worker: worker-1
budget: {calls: 10}
upstreams:
  fs:
    command: ${process.execPath}
    args: [${FS_SERVER}, ${srv}]
    allow: [read_text_file, write_file]
${extra}`;

describe('work orders are immutable', {timeout: 120_000}, () => {
	it('refuses a second gateway with the same id and another file; the held call runs through its own upstream', async () => {
		const dir = scratchDir('cr-orders-');
		const ledger = freshLedgerFile(dir);
		const [first, second] = [join(dir, 'first'), join(dir, 'second')];
		for (const folder of [first, second]) mkdirSync(folder);
		const client = await connectGateway(writeOrder(dir, fsOrder('o-dup', first), 'first.yaml'), ledger);
		clients.push(client);
		expect((await callTool(client, 'fs__write_file', {path: join(first, 'a.txt'), content: 'first\n'})).content[0]?.text).toBe(
			'pending:fs/write_file#1',
		);

		// A second gateway for o-dup over another folder, with nothing staged (writes would pass at once)
		const other = writeOrder(
			dir,
			fsOrder('o-dup', second).replace('allow: [read_text_file, write_file]', 'allow: [write_file]\n    staged: []'),
			'second.yaml',
		);
		const refused = runCli(['gateway', '--order', other, '--ledger', ledger], {input: ''});
		expect(refused.status).toBe(1);
		expect(refused.stderr).toMatch(
			/^controlroom: order o-dup is already in the ledger as another order \(.*first\.yaml, sha256 \w{12}; this is .*second\.yaml, sha256 \w{12}\): give this order an id of its own\n$/,
		);
		expect(orderInLedger(ledger, 'o-dup').types.filter(type => type === EventType.orderOpened)).toHaveLength(1);

		// Even the first file rewritten to point at the other folder changes nothing: the order is what its gateway opened
		writeFileSync(join(dir, 'first.yaml'), fsOrder('o-dup', second));
		const approved = runAsPerson(['effects', 'approve', 'o-dup', '--ledger', ledger]);
		expect(approved.status, approved.stderr).toBe(0);
		expect(readFileSync(join(first, 'a.txt'), 'utf8')).toBe('first\n');
		expect(existsSync(join(second, 'a.txt'))).toBe(false);
	});

	it('refuses at approval a held effect the gateway could not have held, with the reason, and runs nothing', async () => {
		const dir = scratchDir('cr-orders-');
		const ledger = freshLedgerFile(dir);
		const srv = join(dir, 'srv');
		mkdirSync(srv);
		writeFileSync(join(srv, 'notes.txt'), 'notes\n');
		const client = await connectGateway(writeOrder(dir, fsOrder('o-forged', srv)), ledger);
		clients.push(client);
		await callTool(client, 'fs__write_file', {path: join(srv, 'held.txt'), content: 'held\n'});
		// Rows written into the ledger by hand: a tool outside allow, and an allowed read the order never holds
		const open = openLedger(ledger);
		try {
			const forged = (seq: number, tool: string, args: object) => ({
				taskId: 'o-forged',
				type: EventType.effectHeld,
				at: Date.now(),
				source: 'gateway',
				data: {id: `fs/${tool}#${seq}`, seq, upstream: 'fs', tool, args, expiresAt: Date.now() + 3_600_000},
			});
			open.writer.append([
				forged(8, 'move_file', {source: join(srv, 'notes.txt'), destination: join(srv, 'gone.txt')}),
				forged(9, 'read_text_file', {path: join(srv, 'notes.txt')}),
			]);
		} finally {
			open.close();
		}
		const approval = runAsPerson(['effects', 'approve', 'o-forged', '--ledger', ledger]);
		expect(approval.status).toBe(1);
		expect(approval.stdout).toContain('nothing ran: the approval of o-forged was refused:');
		expect(approval.stdout).toContain(
			'fs/move_file#8: fs/move_file is not a tool o-forged holds for approval (the order as its gateway opened it): refused, nothing runs',
		);
		expect(approval.stdout).toContain('fs/read_text_file#9: fs/read_text_file is not a tool o-forged holds for approval');
		expect(existsSync(join(srv, 'held.txt'))).toBe(false);
		expect(existsSync(join(srv, 'gone.txt'))).toBe(false);
		expect(orderInLedger(ledger, 'o-forged').types).toContain(EventType.orderApprovalRefused);
		// Only the effect the gateway held runs, when named alone
		const alone = runAsPerson(['effects', 'approve', 'o-forged', '--only', 'fs/write_file#1', '--ledger', ledger]);
		expect(alone.status, alone.stdout + alone.stderr).toBe(0);
		expect(readFileSync(join(srv, 'held.txt'), 'utf8')).toBe('held\n');
	});
});

describe('approvals of one order take turns', {timeout: 120_000}, () => {
	it('starts #2 only after #1 finished, across processes (the upstream’s own log says so)', async () => {
		const dir = scratchDir('cr-orders-');
		const ledger = freshLedgerFile(dir);
		const calls = join(dir, 'calls.log');
		const out = join(dir, 'out.txt');
		const release = join(dir, 'release');
		const order = writeOrder(
			dir,
			`order: o-turns
worker: worker-1
budget: {calls: 10}
upstreams:
  slow:
    command: ${process.execPath}
    args: [${SLOW_SERVER}]
    env: {CALLS_LOG: ${calls}, CALLS_LOG_ENDS: "1"}
    allow: [append_line, slow_append]
`,
		);
		const client = await connectGateway(order, ledger);
		clients.push(client);
		await callTool(client, 'slow__slow_append', {file: out, line: 'one', release});
		await callTool(client, 'slow__append_line', {file: out, line: 'two'});

		// A person approves #1 (slow: it holds until released), and, while it is upstream, another approves #2
		const one = spawnAsPerson(['effects', 'approve', 'o-turns', '--only', 'slow/slow_append#1', '--ledger', ledger]);
		const log = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : []);
		await waitFor(() => log().includes('slow_append one'), {
			what: '#1 to reach the upstream',
			on: [onFileChange(calls)],
			timeoutMs: 30_000,
		});
		const two = spawnAsPerson(['effects', 'approve', 'o-turns', '--only', 'slow/append_line#2', '--ledger', ledger]);
		// #2's approval says it waits: it blocks in the kernel on the order's lock while #1 is upstream
		await waitFor(() => two.stderr().includes('waiting for another approval of o-turns to finish'), {
			what: "#2's approval to wait its turn",
			on: [two.onStderr],
			timeoutMs: 30_000,
		});
		expect(log()).toEqual(['slow_append one']);
		writeFileSync(release, '');
		const [first, second] = await Promise.all([one.done, two.done]);
		expect(first.status, first.stderr).toBe(0);
		expect(second.status, second.stderr).toBe(0);
		expect(second.stderr).toContain('controlroom: waiting for another approval of o-turns to finish');
		expect(log()).toEqual(['slow_append one', 'end slow_append one', 'append_line two', 'end append_line two']);
		expect(readFileSync(out, 'utf8')).toBe('one\ntwo\n');
	});
});
