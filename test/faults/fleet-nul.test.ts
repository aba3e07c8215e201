import type {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openFleetLedger} from '../../src/ledger/fleet/open-fleet.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {callTool, connectGateway, MEMORY_SERVER, writeOrder} from '../helpers/effects.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {claudePayload} from '../helpers/payloads.ts';
import {every, freshDatabase, onFleetNotice, query, stopOwnPgServer, waitForQuery} from '../helpers/pg.ts';
import {chainHash} from '../../src/ledger/chain.ts';
import {withRawDb} from '../helpers/raw-db.ts';
import {killQuietly, type Started} from '../producers/helpers.ts';
import {fleetEvents, hostIdOf, localEvents, startAs, type TestHost} from '../fleet/helpers.ts';

/** The fleet board's own check found a person at its terminal (docs/fleet.md): only a person's approval is carried out. */
const PERSON_AT_DESK = {isPerson: true, user: 'dana', reason: 'dana at a terminal, no agent above it'};

const background: Started[] = [];
const clients: Client[] = [];
afterAll(async () => {
	await Promise.all(clients.map(client => client.close().catch(() => undefined)));
	for (const started of background) killQuietly(started.child.pid, 'SIGTERM');
	await stopOwnPgServer();
});

/** The fleet's place for a host: the highest seq it holds, as an event or a refused row. */
async function fleetPlace(url: string, hostId: string): Promise<number> {
	const [schema] = await query<{present: boolean}>(url, `SELECT to_regclass('controlroom.rejects') IS NOT NULL AS present`);
	if (!schema?.present) return 0;
	const [row] = await query<{seq: string}>(
		url,
		`SELECT GREATEST(
			(SELECT COALESCE(MAX(seq), 0) FROM controlroom.events WHERE host_id = $1),
			(SELECT COALESCE(MAX(seq), 0) FROM controlroom.rejects WHERE host_id = $1 AND kind = 'event')) AS seq`,
		[hostId],
	);
	return Number(row?.seq ?? 0);
}

async function caughtUp(url: string, host: TestHost): Promise<number> {
	const notices = await onFleetNotice(url);
	try {
		const last = localEvents(host).at(-1)?.seq ?? 0;
		return await waitForQuery(async () => (await fleetPlace(url, hostIdOf(host))) === last && last, {
			what: 'the fleet to catch up with the host',
			timeoutMs: 60_000,
			on: [notices.wakeup, every(500)],
		});
	} finally {
		await notices.close();
	}
}

function localRejects(host: TestHost): {origin: string; reason: string}[] {
	const ledger = openLedger(host.ledgerFile, {isReadonly: true});
	try {
		return ledger.reader.rejects(1000).filter(reject => reject.origin === 'sync:fleet');
	} finally {
		ledger.close();
	}
}

describe('what PostgreSQL cannot hold, shipped by sync', () => {
	it('a NUL in a $ref pointer approved from the fleet, and in a need and a title: the fleet catches up, each bad row escaped and told once', async () => {
		// Given a host with a held chain whose second call's $ref pointer holds a NUL
		const url = await freshDatabase();
		const dir = scratchDir('cr-fleet-nul-');
		const home = join(dir, 'home');
		const host: TestHost = {
			name: 'nul',
			ledgerFile: freshLedgerFile(home),
			env: {...process.env, CONTROLROOM_HOME: home, CONTROLROOM_HOST: 'nul'},
		};
		const order = writeOrder(
			dir,
			`order: o-nul
worker: worker-1
budget: {calls: 10}
upstreams:
  mem:
    command: ${process.execPath}
    args: [${MEMORY_SERVER}]
    env: {MEMORY_FILE_PATH: ${join(dir, 'memory.jsonl')}}
    allow: [create_entities, add_observations]
`,
		);
		const client = await connectGateway(order, host.ledgerFile, {CONTROLROOM_HOME: home});
		clients.push(client);
		await callTool(client, 'mem__create_entities', {entities: [{name: 'Ada', entityType: 'person', observations: []}]});
		const pointer = '/structuredContent/entities/0/name\u0000';
		const held = await callTool(client, 'mem__add_observations', {
			observations: [{entityName: {$ref: 'mem/create_entities#1', pointer}, contents: ['born 1815']}],
		});
		expect(held.content[0]?.text).toBe('pending:mem/add_observations#2');
		await client.close();
		// And a need and a session title with a NUL, and an unpaired surrogate, as an agent's hooks can send them
		const history = join(dir, 'history.jsonl');
		const session = '99999999-aaaa-4bbb-8ccc-000000000001';
		writeFileSync(
			history,
			[
				claudePayload('UserPromptSubmit', session, {prompt: 'fix the \u0000 bug \ud800 now'}),
				claudePayload('Stop', session, {
					hook_event_name: 'Notification',
					message: 'needs you: \u0000 in the path',
					notification_type: 'permission_prompt',
				}),
			]
				.map(payload => JSON.stringify({at: new Date().toISOString(), source: 'claude', payload}))
				.join('\n'),
		);
		expect(runCli(['ingest', history, '--ledger', host.ledgerFile], {env: host.env}).status).toBe(0);

		// When the host syncs, and the held chain is approved from the fleet
		const sync = startAs(host, ['sync', '--to', url, '--interval', '1', '--ledger', host.ledgerFile]);
		background.push(sync);
		await caughtUp(url, host);
		const fleet = await openFleetLedger(url, 'test');
		const hostId = hostIdOf(host);
		let outcome;
		try {
			const requestId = await fleet.request({
				hostId,
				taskId: 'o-nul',
				verb: 'approve',
				args: {asker: PERSON_AT_DESK},
				requestedBy: 'test@desk',
			});
			const notices = await onFleetNotice(url);
			try {
				outcome = await waitForQuery(async () => (await fleet.outcomeOf(hostId, requestId)) ?? false, {
					what: "the host's answer, as the fleet holds it",
					timeoutMs: 60_000,
					on: [notices.wakeup, every(500)],
				});
			} finally {
				await notices.close();
			}
		} finally {
			await fleet.close();
		}
		const place = await caughtUp(url, host);

		// Then the fleet holds every event of the host, none refused, and reads the answer (jsonb and all)
		const local = localEvents(host);
		const shipped = await fleetEvents(url, hostId);
		const refused = await query(url, 'SELECT kind, seq FROM controlroom.rejects WHERE host_id = $1', [hostId]);
		const rejects = localRejects(host);
		process.stdout.write(
			`fleet NUL: host at seq ${local.at(-1)?.seq}, fleet at ${place}; ${local.length} events on the host, ${shipped.length} in the fleet, ` +
				`${refused.length} refused; ${rejects.length} rows escaped and told once each: ${rejects.map(reject => reject.reason.split(' holds ')[0]).join(', ')}; answer: ${outcome.outcome}\n`,
		);
		expect(place).toBe(local.at(-1)?.seq);
		expect(shipped).toHaveLength(local.length);
		expect(refused).toEqual([]);
		expect(outcome.outcome).toBe('failed');
		expect(outcome.message).toContain('\\u0000');
		// And what was escaped is each told once, naming the row, never the value
		const bad = local.filter(event => /\\u0000|\\ud800/.test(event.data));
		expect(bad.map(event => event.type)).toEqual(
			expect.arrayContaining([EventType.effectHeld, 'need.raised', 'agent.event', EventType.fleetRequestHandled]),
		);
		expect(rejects.filter(reject => reject.reason.startsWith('event ')).length).toBe(bad.length);
		expect(new Set(rejects.map(reject => reject.reason)).size).toBe(rejects.length);
		// The fleet's copy has the escape where the character was
		const need = shipped.find(event => event.type === 'need.raised');
		expect(JSON.parse(need?.data ?? '{}').message).toBe('needs you: \\u0000 in the path');
		// And another pass tells nothing twice
		expect(runCli(['sync', '--to', url, '--once', '--ledger', host.ledgerFile], {env: host.env}).status).not.toBe(1);
		expect(localRejects(host)).toHaveLength(rejects.length);
	}, 180_000);

	it('a row the server refuses goes to the fleet’s rejects, and every row after it ships', async () => {
		// Given a host whose ledger holds an answer to a request whose data the server cannot read as JSON
		const url = await freshDatabase();
		const home = join(scratchDir('cr-fleet-refused-'), 'home');
		const host: TestHost = {
			name: 'refused',
			ledgerFile: freshLedgerFile(home),
			env: {...process.env, CONTROLROOM_HOME: home, CONTROLROOM_HOST: 'refused'},
		};
		expect(runCli(['run', '--ledger', host.ledgerFile, '--title', 'before', '--', 'true'], {env: host.env}).status).toBe(0);
		// (a row no controlroom writes: put there below the store, as damage or a foreign writer would)
		// (its link in the chain computed as the writer would, so only its data is wrong)
		withRawDb(host.ledgerFile, db => {
			const head = db.prepare('SELECT hash FROM events ORDER BY seq DESC LIMIT 1').pluck().get() as Buffer;
			const row = {
				taskId: 't-x',
				type: 'fleet.request_handled',
				at: 1,
				arrivedAt: null,
				source: 'fleet',
				data: '{not json',
				dedupKey: null,
			};
			db.prepare(
				"INSERT INTO events (task_id, type, at, source, data, hash) VALUES ('t-x', 'fleet.request_handled', 1, 'fleet', '{not json', ?)",
			).run(chainHash(head, row));
		});
		expect(runCli(['run', '--ledger', host.ledgerFile, '--title', 'after', '--', 'true'], {env: host.env}).status).toBe(0);

		// When it syncs once
		const sync = runCli(['sync', '--to', url, '--once', '--ledger', host.ledgerFile], {env: host.env});

		// Then the sync succeeds, the one row is in the fleet's rejects, and every other event shipped
		const hostId = hostIdOf(host);
		const local = localEvents(host);
		const shipped = await fleetEvents(url, hostId);
		const refused = await query<{kind: string; seq: string; reason: string}>(
			url,
			'SELECT kind, seq, reason FROM controlroom.rejects WHERE host_id = $1',
			[hostId],
		);
		process.stdout.write(
			`fleet refusal: ${local.length} events on the host, ${shipped.length} shipped, ${refused.length} refused (${refused.map(row => `${row.kind} ${row.seq}: ${row.reason}`).join('; ')}); sync said: ${sync.stdout.trim()}\n`,
		);
		expect(sync.status, sync.stderr).toBe(0);
		expect(refused.map(row => row.kind)).toEqual(['event']);
		expect(shipped).toHaveLength(local.length - 1);
		expect(await fleetPlace(url, hostId)).toBe(local.at(-1)?.seq);
		expect(sync.stdout).toContain('1 rows refused by the server');
		// And a second sync refuses nothing again and ships what comes after
		expect(runCli(['run', '--ledger', host.ledgerFile, '--title', 'later', '--', 'true'], {env: host.env}).status).toBe(0);
		expect(runCli(['sync', '--to', url, '--once', '--ledger', host.ledgerFile], {env: host.env}).status).toBe(0);
		expect(await fleetEvents(url, hostId)).toHaveLength(localEvents(host).length - 1);
		expect(await query(url, 'SELECT 1 FROM controlroom.rejects WHERE host_id = $1', [hostId])).toHaveLength(1);
	}, 120_000);
});
