import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {rewriteChainFrom} from '../helpers/rewrite-chain.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {freshDatabase, query, stopOwnPgServer} from '../helpers/pg.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {withRawDb} from '../helpers/raw-db.ts';
import {hostIdOf, testHost, type TestHost} from './helpers.ts';

afterAll(stopOwnPgServer);

/** The grants docs/fleet.md gives a host's role: read, insert what is shipped and anchored, keep task rows; never change an event or an anchor. */
const HOST_ROLE_GRANTS = (role: string) => `
	GRANT USAGE ON SCHEMA controlroom TO ${role};
	GRANT SELECT ON ALL TABLES IN SCHEMA controlroom TO ${role};
	GRANT INSERT ON controlroom.events, controlroom.anchors, controlroom.rejects TO ${role};
	GRANT INSERT, UPDATE ON controlroom.hosts, controlroom.tasks, controlroom.status_counts TO ${role};
	GRANT INSERT, UPDATE ON controlroom.contracts, controlroom.contract_claims TO ${role};`;

/** Payload lines of a few sessions, each with a need, a minute apart up to a few minutes ago. */
function ingestSessions(host: TestHost, sessions: number): void {
	const lines: string[] = [];
	for (let index = 0; index < sessions; index += 1) {
		const base = {session_id: `chain-${index}`, cwd: '/repo', transcript_path: `/tmp/chain-${index}.jsonl`};
		const at = (step: number) => new Date(Date.now() - 600_000 + index * 10_000 + step * 1000).toISOString();
		lines.push(
			JSON.stringify({at: at(0), source: 'claude', payload: {...base, hook_event_name: 'SessionStart', source: 'startup'}}),
		);
		lines.push(
			JSON.stringify({
				at: at(1),
				source: 'claude',
				payload: {...base, hook_event_name: 'UserPromptSubmit', prompt: `task ${index}`},
			}),
		);
		lines.push(
			JSON.stringify({
				at: at(2),
				source: 'claude',
				payload: {...base, hook_event_name: 'Notification', message: 'may I?', notification_type: 'permission_prompt'},
			}),
		);
		if (index % 2 === 0)
			lines.push(
				JSON.stringify({at: at(3), source: 'claude', payload: {...base, hook_event_name: 'SessionEnd', reason: 'other'}}),
			);
	}
	const file = join(scratchDir('cr-history-'), 'history.jsonl');
	writeFileSync(file, `${lines.join('\n')}\n`);
	expect(runCli(['ingest', file, '--ledger', host.ledgerFile], {env: host.env}).status).toBe(0);
}

describe('the chain on the fleet', () => {
	it("ships each event's link, anchors the head through an insert-only role, and names the first seq rewritten since", async () => {
		// Given a fleet made by its owner, and a host whose sync connects as a role that may only insert events and anchors
		const owner = await freshDatabase();
		const role = `cr_host_${process.pid}_${Date.now().toString(36)}`;
		const host = testHost('chained');
		ingestSessions(host, 6);
		// The owner makes the schema (a first sync of an empty ledger); the host's role could not.
		expect(runCli(['sync', '--once', '--to', owner, '--ledger', freshLedgerFile()]).status).toBe(0);
		await query(owner, `CREATE ROLE ${role} LOGIN; ${HOST_ROLE_GRANTS(role)}`);
		const hostUrl = new URL(owner);
		hostUrl.username = role;
		const sync = runCli(['sync', '--once', '--to', hostUrl.toString(), '--ledger', host.ledgerFile], {env: host.env});
		expect(sync.stderr).toBe('');
		expect(sync.status).toBe(0);
		const hostId = hostIdOf(host);
		const local = withRawDb(host.ledgerFile, db =>
			db.prepare('SELECT seq, lower(hex(hash)) AS hash, arrived_at AS arrivedAt FROM events ORDER BY seq').all(),
		) as {seq: number; hash: string; arrivedAt: number}[];
		// Then the fleet holds every event's link and arrival as the host wrote them, and an anchor of the head
		const shipped = await query<{seq: string; hash: string; arrived_at: string}>(
			owner,
			'SELECT seq, hash, arrived_at FROM controlroom.events WHERE host_id = $1 ORDER BY seq',
			[hostId],
		);
		expect(shipped.map(row => ({seq: Number(row.seq), hash: row.hash, arrivedAt: Number(row.arrived_at)}))).toEqual(local);
		const head = local.at(-1)!;
		expect(await query(owner, 'SELECT seq::int, hash FROM controlroom.anchors WHERE host_id = $1', [hostId])).toEqual([
			{seq: head.seq, hash: head.hash},
		]);
		// And the host's role can change neither an anchor nor an event, nor take the triggers away
		for (const sql of [
			'UPDATE controlroom.anchors SET hash = $1',
			'DELETE FROM controlroom.anchors WHERE hash <> $1',
			'UPDATE controlroom.events SET data = $1',
			'DELETE FROM controlroom.events WHERE data = $1',
		]) {
			await expect(query(hostUrl.toString(), sql, ['x'])).rejects.toThrow(/permission denied/);
		}
		await expect(query(hostUrl.toString(), 'DROP TRIGGER anchors_append_only ON controlroom.anchors')).rejects.toThrow(
			/must be owner/,
		);
		await expect(query(hostUrl.toString(), 'TRUNCATE controlroom.anchors')).rejects.toThrow(/permission denied/);

		// When the fleet's --at shows a moment, it is the host's own --at of it
		const moment = new Date(head.arrivedAt).toISOString();
		const fromFleet = JSON.parse(runCli(['snapshot', '--json', '--all', '--at', moment, '--ledger', owner]).stdout) as {
			tasks: unknown[];
			counts: unknown;
			queue: unknown;
		};
		const fromHost = JSON.parse(
			runCli(['snapshot', '--json', '--all', '--at', moment, '--ledger', host.ledgerFile], {env: host.env}).stdout,
		) as typeof fromFleet;
		expect(fromFleet.tasks).toEqual(fromHost.tasks);
		expect(fromFleet.counts).toEqual(fromHost.counts);
		expect(runCli(['snapshot', '--at', '3', '--ledger', owner])).toMatchObject({status: 64});

		// When the agent's user rewrites the local ledger from seq N on, links and all
		const rewrittenFrom = 9;
		rewriteChainFrom(host.ledgerFile, rewrittenFrom, data => `${data.slice(0, -1)},"quiet":true}`);
		// Then the ledger's own chain still holds, but against the fleet verify names N
		expect(runCli(['verify', '--ledger', host.ledgerFile]).status).toBe(0);
		const against = runCli(['verify', '--against', owner, '--ledger', host.ledgerFile]);
		expect(against.stdout).toMatch(new RegExp(`^tampered: seq ${rewrittenFrom} rewritten: `));
		expect(against.status).toBe(1);
		// And the anchor the fleet kept, printed as a person would keep it, is not reached either
		const kept = `${head.seq}:${head.hash}`;
		expect(runCli(['verify', '--against', kept, '--ledger', host.ledgerFile])).toMatchObject({status: 1});
		// An untouched copy is clean against the same fleet
		const clean = testHost('other');
		ingestSessions(clean, 2);
		expect(runCli(['verify', '--against', owner, '--ledger', clean.ledgerFile])).toMatchObject({status: 69});
	}, 180_000);
});
