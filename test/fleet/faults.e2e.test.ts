import {copyFileSync, mkdirSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {
	connection,
	every,
	freshDatabase,
	onFleetNotice,
	query,
	startPgServer,
	stopOwnPgServer,
	waitForQuery,
	type PgServer,
} from '../helpers/pg.ts';
import {onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {agent, killQuietly, type Started} from '../producers/helpers.ts';
import {fleetCount, fleetEvents, hostIdOf, localEvents, startAs, testHost, type TestHost} from './helpers.ts';

const running: Started[] = [];
const servers: PgServer[] = [];
afterAll(async () => {
	for (const started of running) killQuietly(started.child.pid);
	for (const server of servers) server.stop();
	await stopOwnPgServer();
});

/** A history of `sessions` agent sessions (a few thousand events), ingested into the host's ledger. */
function ingestHistory(host: TestHost, sessions: number, offset = 0): void {
	const lines: string[] = [];
	for (let index = offset; index < offset + sessions; index += 1) {
		const base = {session_id: `fault-${index}`, cwd: `/repo/${index % 5}`, transcript_path: `/tmp/fault-${index}.jsonl`};
		const at = (step: number): string => new Date(Date.now() - 3_600_000 + index * 1000 + step).toISOString();
		lines.push(
			JSON.stringify({at: at(0), source: 'claude', payload: {...base, hook_event_name: 'SessionStart', source: 'startup'}}),
		);
		for (let call = 0; call < 8; call += 1)
			lines.push(
				JSON.stringify({
					at: at(call + 1),
					source: 'claude',
					payload: {...base, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {command: `echo ${call}`}},
				}),
			);
		lines.push(
			JSON.stringify({at: at(20), source: 'claude', payload: {...base, hook_event_name: 'SessionEnd', reason: 'other'}}),
		);
	}
	const file = join(scratchDir('cr-history-'), 'history.jsonl');
	writeFileSync(file, `${lines.join('\n')}\n`);
	const result = runCli(['ingest', file, '--ledger', host.ledgerFile], {env: host.env});
	expect(result.status, result.stderr).toBe(0);
}

/** Every local event is in the fleet, exactly once, as the host holds it. */
async function expectSameHistory(url: string, host: TestHost): Promise<void> {
	const local = localEvents(host);
	const fleet = await fleetEvents(url, hostIdOf(host));
	expect(fleet.length).toBe(local.length);
	expect(new Set(fleet.map(event => event.seq)).size).toBe(fleet.length);
	expect(fleet).toEqual(local);
}

describe('sync when things go wrong', () => {
	it('keeps local work going while the server is down for 10 s, then ships every event exactly once', async () => {
		// Given a host running a busy agent and a sync, against a server of this test's own
		const server = await startPgServer();
		servers.push(server);
		const url = await freshDatabase(server.url);
		const host = testHost('faulty');
		const agentRun = startAs(host, [
			'run',
			'--ledger',
			host.ledgerFile,
			'--title',
			'busy',
			'--',
			process.execPath,
			agent('progress-ticker.mjs'),
		]);
		running.push(agentRun);
		await waitFor(() => localEvents(host).length > 3, {what: 'the agent to start', on: [onLedgerChange(host.ledgerFile)]});
		const sync = startAs(host, ['sync', '--to', url, '--interval', '1', '--ledger', host.ledgerFile]);
		running.push(sync);
		const hostId = hostIdOf(host);
		// The first shipment starts a process and creates the schema: on a loaded machine that alone can take 10 s
		await waitForQuery(async () => (await fleetCount(url, hostId)) > 10, {
			what: 'the first events shipped',
			on: [every(100)],
			timeoutMs: 30_000,
		});
		// When the server stops for 10 s while the agent keeps reporting
		server.stop();
		await waitFor(() => sync.stderr().includes('cannot reach PostgreSQL'), {
			what: 'sync to notice',
			on: [onOutput(sync.child.stderr)],
		});
		const seqAtStop = localEvents(host).at(-1)?.seq ?? 0;
		// The outage itself is the scenario's input (10 s of downtime), not a wait for a result.
		await new Promise(resolve => setTimeout(resolve, 10_000));
		const seqAtRestart = localEvents(host).at(-1)?.seq ?? 0;
		server.start();
		// Then local work went on (the agent kept recording while the server was down) ...
		expect(seqAtRestart - seqAtStop).toBeGreaterThan(20);
		expect(sync.child.exitCode).toBeNull();
		// ... and once the agent is stopped, every event reaches the server, none twice
		const busyTask = localEvents(host)[0]?.taskId ?? '';
		const stopped = runCli(['stop', busyTask, '--ledger', host.ledgerFile], {env: host.env});
		expect(stopped.status, stopped.stderr).toBe(0);
		await agentRun.done;
		const localCount = localEvents(host).length;
		const notices = await onFleetNotice(url);
		try {
			await waitForQuery(async () => (await fleetCount(url, hostId)) === localCount, {
				what: 'every event to arrive after the restart',
				timeoutMs: 30_000,
				on: [notices.wakeup, every(250)],
			});
		} finally {
			await notices.close();
		}
		await expectSameHistory(url, host);
		expect(sync.stderr()).toContain('reached');
		sync.child.kill('SIGTERM');
		expect((await sync.done).code).toBe(143);
	}, 90_000);

	it('loses and duplicates nothing when sync is killed in the middle of a batch', async () => {
		// Given a host whose first events are shipped, then a few thousand more
		const url = await freshDatabase();
		const host = testHost('killed');
		ingestHistory(host, 20);
		expect(runCli(['sync', '--to', url, '--once', '--ledger', host.ledgerFile], {env: host.env}).status).toBe(0);
		const hostId = hostIdOf(host);
		const before = await fleetCount(url, hostId);
		ingestHistory(host, 400, 20);
		// And a transaction of the test's that holds the host's row, so a batch stops just before its commit
		const holder = await connection(url);
		await holder.query('BEGIN');
		await holder.query('SELECT 1 FROM controlroom.hosts WHERE id = $1 FOR NO KEY UPDATE', [hostId]);
		// When a sync has written its first batch's rows and waits there, and is SIGKILLed
		const sync = startAs(host, ['sync', '--to', url, '--once', '--ledger', host.ledgerFile]);
		await waitForQuery(
			async () =>
				(
					await query(
						url,
						`SELECT 1 FROM pg_stat_activity WHERE application_name LIKE 'controlroom sync killed%' AND wait_event_type = 'Lock'`,
					)
				).length > 0,
			{what: 'the batch to wait on the row lock', on: [every(50)]},
		);
		sync.child.kill('SIGKILL');
		await sync.done;
		await holder.query('ROLLBACK');
		await holder.end();
		// Then nothing of the half-done batch is there
		await waitForQuery(
			async () =>
				(await query(url, `SELECT 1 FROM pg_stat_activity WHERE application_name LIKE 'controlroom sync killed%'`)).length === 0,
			{what: "the killed sync's session to end", on: [every(50)]},
		);
		expect(await fleetCount(url, hostId)).toBe(before);
		// And killed again at any moment while it catches up, then run to the end, every event is there once
		for (let kill = 0; kill < 2; kill += 1) {
			const again = startAs(host, ['sync', '--to', url, '--once', '--ledger', host.ledgerFile]);
			const notices = await onFleetNotice(url);
			const reached = await fleetCount(url, hostId);
			await waitForQuery(async () => (await fleetCount(url, hostId)) > reached, {
				what: 'a batch to land',
				on: [notices.wakeup],
			}).catch(() => undefined);
			again.child.kill('SIGKILL');
			await again.done;
			await notices.close();
		}
		const last = runCli(['sync', '--to', url, '--once', '--ledger', host.ledgerFile], {env: host.env});
		expect(last.status, last.stderr).toBe(0);
		await expectSameHistory(url, host);
		const tasks = await query<{n: string}>(url, 'SELECT COUNT(*) AS n FROM controlroom.tasks WHERE host_id = $1', [hostId]);
		const ledger = openLedger(host.ledgerFile);
		expect(Number(tasks[0]?.n)).toBe(ledger.reader.tasksForView(null).length);
		ledger.close();
	}, 90_000);

	it('lets one of two syncs of the same host run, and the other says who holds it', async () => {
		const url = await freshDatabase();
		const host = testHost('twice');
		ingestHistory(host, 5);
		const first = startAs(host, ['sync', '--to', url, '--interval', '30', '--ledger', host.ledgerFile]);
		running.push(first);
		await waitFor(() => first.stdout().includes('synced twice'), {
			what: 'the first sync to ship',
			on: [onOutput(first.child.stdout)],
		});
		const second = runCli(['sync', '--to', url, '--once', '--ledger', host.ledgerFile], {env: host.env});
		expect(second.status).toBe(75);
		expect(second.stderr).toMatch(
			new RegExp(
				`^controlroom: sync: another sync of host twice \\(id [0-9a-f]{32}\\) holds its lock: controlroom sync twice \\(pid ${first.child.pid}\\)`,
			),
		);
		first.child.kill('SIGTERM');
		// Stopped by a signal, it exits 128 + 15 as every long-running command does, and frees the lock.
		expect((await first.done).code).toBe(143);
		expect(runCli(['sync', '--to', url, '--once', '--ledger', host.ledgerFile], {env: host.env}).status).toBe(0);
	});

	it('refuses to ship a ledger whose history differs from what the fleet holds under its id (a copied ledger)', async () => {
		// Given a synced host, and a copy of its ledger file made on another machine
		const url = await freshDatabase();
		const host = testHost('original');
		ingestHistory(host, 3);
		expect(runCli(['sync', '--to', url, '--once', '--ledger', host.ledgerFile], {env: host.env}).status).toBe(0);
		const copy = testHost('copy');
		mkdirSync(dirname(copy.ledgerFile), {recursive: true});
		copyFileSync(host.ledgerFile, copy.ledgerFile);
		expect(hostIdOf(copy)).toBe(hostIdOf(host));
		// When both go on, each with its own history, and both sync
		ingestHistory(host, 3, 300);
		ingestHistory(copy, 2, 200);
		expect(runCli(['sync', '--to', url, '--once', '--ledger', host.ledgerFile], {env: host.env}).status).toBe(0);
		const refused = runCli(['sync', '--to', url, '--once', '--ledger', copy.ledgerFile], {env: copy.env});
		// Then the copy is refused, and the fleet holds the original's history only
		expect(refused.status).toBe(1);
		expect(refused.stderr).toMatch(/that this ledger \(.*\) does not have: was the ledger copied from another machine/);
		await expectSameHistory(url, host);
	});
});
