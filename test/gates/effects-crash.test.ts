import type {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {existsSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {callTool, connectGateway, orderInLedger, SLOW_SERVER, writeOrder} from '../helpers/effects.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {runAsPerson, spawnAsPerson} from '../helpers/person.ts';
import {onFileChange, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// Each test starts several real processes one after another (the gateway, its upstream, one CLI
// run per step, each a fresh Node): about 2.5 s apiece on the shared 2-core machine under load,
// so the budget is per process started, not a guess at a race. Every wait inside is on an event.
const SPAWNS_TIMEOUT_MS = 120_000;

let client: Client | undefined;
afterEach(async () => {
	await client?.close();
	client = undefined;
});

/** An order over the slow upstream, which logs each call it receives in `calls` and writes lines to `out`. */
function slowOrder(prefix: string, id: string) {
	const dir = scratchDir(prefix);
	const calls = join(dir, 'calls.log');
	const out = join(dir, 'out.txt');
	const ledger = freshLedgerFile(dir);
	const order = writeOrder(
		dir,
		`order: ${id}
worker: worker-9
budget: {calls: 10}
upstreams:
  slow:
    command: ${process.execPath}
    args: [${SLOW_SERVER}]
    env: {CALLS_LOG: ${calls}}
    allow: [append_line, slow_append]
`,
	);
	return {dir, calls, out, ledger, order};
}

describe('at most once, across a crash', {timeout: SPAWNS_TIMEOUT_MS}, () => {
	it('shows an effect killed mid-call as outcome unknown, never sends it again, and still runs the others once', async () => {
		// Given an order over our slow upstream, which logs every call it receives and holds
		// slow_append until a release file appears (the test never makes it)
		const {dir, calls, out, ledger, order} = slowOrder('cr-effects-crash-', 'o-crash');
		client = await connectGateway(order, ledger);
		for (const [tool, line] of [
			['append_line', 'a'],
			['slow_append', 'b'],
			['append_line', 'c'],
		] as const) {
			const args = tool === 'slow_append' ? {file: out, line, release: join(dir, 'never')} : {file: out, line};
			expect((await callTool(client, `slow__${tool}`, args)).content[0]?.text).toMatch(/^pending:slow\//);
		}

		// When an approval is killed after the slow effect's start is recorded, before its end
		const approver = spawnAsPerson(['effects', 'approve', 'o-crash', '--ledger', ledger]);
		await waitFor(
			() => orderInLedger(ledger, 'o-crash').order?.effects.find(effect => effect.id === 'slow/slow_append#2')?.startedAt,
			{
				what: 'the approval to record the start of slow/slow_append#2',
				on: [onLedgerChange(ledger)],
				timeoutMs: 20_000,
			},
		);
		await waitFor(() => existsSync(calls) && readFileSync(calls, 'utf8').includes('slow_append b'), {
			what: 'the upstream to receive slow_append',
			on: [onFileChange(calls)],
			timeoutMs: 20_000,
		});
		process.kill(await approver.pid(), 'SIGKILL');
		await approver.done;

		// Then that effect shows as outcome unknown
		const listed = runCli(['effects', 'list', 'o-crash', '--json', '--ledger', ledger]);
		const states = Object.fromEntries(
			(JSON.parse(listed.stdout) as {effects: {id: string; state: string}[]}).effects.map(effect => [effect.id, effect.state]),
		);
		expect(states).toEqual({
			'slow/append_line#1': 'finished',
			'slow/slow_append#2': 'outcome unknown',
			'slow/append_line#3': 'held',
		});

		// When a person approves again: the unknown one is not sent, the other held one runs once
		const again = runAsPerson(['effects', 'approve', 'o-crash', '--ledger', ledger]);
		expect(again.status, again.stdout + again.stderr).toBe(0);
		expect(again.stdout).toContain('slow/slow_append#2: outcome unknown (started, never finished), not sent again');
		expect(again.stdout).toContain('slow/append_line#3: finished');
		const third = runAsPerson(['effects', 'approve', 'o-crash', '--ledger', ledger]);
		expect(third.stdout).toContain('nothing held in o-crash');

		// Then the upstream received each call exactly once, and only the two that finished took effect
		expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual(['append_line a', 'slow_append b', 'append_line c']);
		expect(readFileSync(out, 'utf8')).toBe('a\nc\n');
		const {types, order: record} = orderInLedger(ledger, 'o-crash');
		expect(types.filter(type => type === 'effect.outcome_unknown')).toHaveLength(1);
		expect(record?.effects.find(effect => effect.id === 'slow/slow_append#2')?.finishedAt).toBeNull();
	});

	it('an approval waiting behind the lock re-reads the order: the effect before it ended outcome unknown, so the later one does not run', async () => {
		// Given an order with a slow effect and a later one, and an approval stuck in the slow one's call
		const {dir, calls, out, ledger, order} = slowOrder('cr-effects-wait-', 'o-wait');
		client = await connectGateway(order, ledger);
		expect(
			(await callTool(client, 'slow__slow_append', {file: out, line: 'b', release: join(dir, 'never')})).content[0]?.text,
		).toBe('pending:slow/slow_append#1');
		expect((await callTool(client, 'slow__append_line', {file: out, line: 'c'})).content[0]?.text).toBe(
			'pending:slow/append_line#2',
		);
		const first = spawnAsPerson(['effects', 'approve', 'o-wait', '--ledger', ledger]);
		await waitFor(() => existsSync(calls) && readFileSync(calls, 'utf8').includes('slow_append b'), {
			what: 'the upstream to receive slow_append',
			on: [onFileChange(calls)],
			timeoutMs: 20_000,
		});

		// When a second approval of everything waits for the order's lock, and the first dies in its call
		const second = spawnAsPerson(['effects', 'approve', 'o-wait', '--ledger', ledger]);
		await waitFor(() => second.stderr().includes('waiting for another approval of o-wait to finish'), {
			what: 'the second approval to wait for the lock',
			on: [second.onStderr],
			timeoutMs: 20_000,
		});
		process.kill(await first.pid(), 'SIGKILL');
		await first.done;
		const result = await second.done;

		// Then the second records the first call as outcome unknown and runs nothing after it
		expect(result.status, result.stdout + result.stderr).toBe(1);
		expect(result.stdout).toContain('slow/slow_append#1: outcome unknown (started, never finished), not sent again');
		expect(result.stdout).toContain(
			"slow/append_line#2: not run (slow/slow_append#1 ended outcome unknown while this approval waited for the order's lock: check what it did, then approve again)",
		);
		expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual(['slow_append b']);
		const listed = runCli(['effects', 'list', 'o-wait', '--json', '--ledger', ledger]);
		const states = Object.fromEntries(
			(JSON.parse(listed.stdout) as {effects: {id: string; state: string}[]}).effects.map(effect => [effect.id, effect.state]),
		);
		expect(states).toEqual({'slow/slow_append#1': 'outcome unknown', 'slow/append_line#2': 'held'});
		// The order's own timeline (its events carry its id) shows what happened, as docs/effects.md says
		const timeline = runCli(['timeline', 'o-wait', '--ledger', ledger]);
		expect(timeline.status, timeline.stderr).toBe(0);
		expect(timeline.stdout).toMatch(/^o-wait {2}work order of worker-9/);
		expect(timeline.stdout).toContain('started slow/slow_append#1 (sent upstream)');
		expect(timeline.stdout).toContain('outcome unknown slow/slow_append#1');
		expect(JSON.parse(runCli(['timeline', 'o-wait', '--json', '--ledger', ledger]).stdout)).toMatchObject({
			order: {id: 'o-wait', worker: 'worker-9'},
		});
		expect(runCli(['timeline', 'o-nope', '--ledger', ledger]).stderr).toBe(
			`controlroom: timeline: no task 'o-nope' (nor work order) in ${ledger}\n`,
		);

		// And a person who now approves again, knowing, runs it once
		const again = runAsPerson(['effects', 'approve', 'o-wait', '--ledger', ledger]);
		expect(again.status, again.stdout + again.stderr).toBe(0);
		expect(readFileSync(out, 'utf8')).toBe('c\n');
	});
});
