import {existsSync, mkdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import type {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import type {Snapshot} from '../../src/core/snapshot.ts';
import {UNSIGNED_APPROVAL} from '../../src/fleet/fleet-verbs.ts';
import {openFleetLedger, type FleetLedger} from '../../src/ledger/fleet/open-fleet.ts';
import {runCli} from '../helpers/cli.ts';
import {callTool, connectGateway, FS_SERVER, writeOrder} from '../helpers/effects.ts';
import {every, freshDatabase, onFleetNotice, stopOwnPgServer, waitForQuery} from '../helpers/pg.ts';
import {makeReviewRepo, type ReviewRepo} from '../helpers/review-repo.ts';
import {killQuietly, type Started} from '../producers/helpers.ts';
import {fleetEvents, hostIdOf, localEvents, startAs, type TestHost} from './helpers.ts';

// The gates on a fleet: one host with a review that needs a person and a held effect of a work
// order (the real gateway over the real filesystem server), synced to a real PostgreSQL. The fleet
// snapshot's verdicts, effects and disagreements are the host's own (plus host); `a` and `x` asked
// through the fleet are carried out by the host's own sync loop, and the effect happens.

let url = '';
let repo: ReviewRepo;
let host: TestHost;
let srv = '';
let reviewed = '';
const background: Started[] = [];
const clients: Client[] = [];

function snapshotOf(ledger: string, env: NodeJS.ProcessEnv): Snapshot {
	const result = runCli(['snapshot', '--json', '--ledger', ledger], {env});
	expect(result.status, result.stderr).toBe(0);
	return JSON.parse(result.stdout) as Snapshot;
}

const withoutHost = <T extends object>(entries: readonly T[]) =>
	entries.map(({host: _host, ...rest}: T & {host?: unknown}) => rest);

/** Waits until the fleet holds every event of the host's ledger. */
async function shipped(): Promise<void> {
	const notices = await onFleetNotice(url);
	try {
		const last = localEvents(host).at(-1)?.seq ?? 0;
		await waitForQuery(async () => (await fleetEvents(url, hostIdOf(host))).at(-1)?.seq === last, {
			what: 'the host shipped everything',
			timeoutMs: 30_000,
			on: [notices.wakeup, every(500)],
		});
	} finally {
		await notices.close();
	}
}

/**
 * Who a fleet board found at its terminal, as it sends it with each request (docs/security.md):
 * the host trusts what the fleet database says here, so the test writes it as a board would.
 */
const PERSON_AT_DESK = {isPerson: true, user: 'dana', reason: 'dana at a terminal, no agent above it'};

/** Asks the host, through the fleet, to carry out a verb, and waits for its answer as the fleet holds it. */
async function askHost(taskId: string, verb: string, args: Record<string, unknown>, asker: object | null = PERSON_AT_DESK) {
	const fleet: FleetLedger = await openFleetLedger(url, 'test');
	try {
		const hostId = hostIdOf(host);
		const requestId = await fleet.request({
			hostId,
			taskId,
			verb,
			args: asker === null ? args : {...args, asker},
			requestedBy: 'test@desk',
		});
		const notices = await onFleetNotice(url);
		try {
			return await waitForQuery(async () => (await fleet.outcomeOf(hostId, requestId)) ?? false, {
				what: `the host's answer to ${verb}`,
				timeoutMs: 60_000,
				on: [notices.wakeup, every(500)],
			});
		} finally {
			await notices.close();
		}
	} finally {
		await fleet.close();
	}
}

beforeAll(async () => {
	url = await freshDatabase();
	repo = makeReviewRepo();
	host = {name: 'delta', ledgerFile: repo.ledger, env: {...repo.env, CONTROLROOM_HOST: 'delta'}};
	// A review that needs a person: the reviewer asks for fixes twice
	reviewed = repo.runWorker('fixes twice');
	expect(repo.asPerson(['review', reviewed, '--reviewer', 'cat >/dev/null; echo "1. rename it"']).status).toBe(2);
	// A held effect: a write through the gateway, held for its owner
	srv = join(repo.home, 'srv');
	mkdirSync(srv);
	// Two orders, each with one held write: one to approve from the fleet, one to send back
	for (const [id, file] of [
		['o-fleet', 'out.txt'],
		['o-refuse', 'refused.txt'],
	] as const) {
		const order = writeOrder(
			repo.home,
			`order: ${id}
worker: worker-1
budget: {calls: 5}
expires: 1h
upstreams:
  fs:
    command: ${process.execPath}
    args: [${FS_SERVER}, ${srv}]
    allow: [write_file]
`,
			`${id}.yaml`,
		);
		const client = await connectGateway(order, repo.ledger, {CONTROLROOM_HOME: repo.home});
		clients.push(client);
		const held = await callTool(client, 'fs__write_file', {path: join(srv, file), content: `${id} from the fleet\n`});
		expect(held.content[0]?.text).toBe('pending:fs/write_file#1');
		await client.close();
	}
	// The host's own sync loop, as it runs on that machine
	await restartSync([]);
}, 180_000);

let sync: Started | null = null;

/** Stops the host's sync (if one runs) and starts it again with these flags. */
async function restartSync(flags: readonly string[]): Promise<void> {
	if (sync) {
		const running = sync;
		running.child.kill('SIGTERM');
		await running.done;
	}
	sync = startAs(host, ['sync', '--to', url, '--interval', '1', '--ledger', host.ledgerFile, ...flags]);
	background.push(sync);
	await shipped();
}

afterAll(async () => {
	await Promise.all(clients.map(client => client.close().catch(() => undefined)));
	for (const started of background) killQuietly(started.child.pid, 'SIGTERM');
	await stopOwnPgServer();
});

describe('the gates on a fleet', () => {
	it("shows the host's verdicts, effects and disagreements in the fleet snapshot, as its local snapshot does", () => {
		const local = snapshotOf(host.ledgerFile, host.env);
		const fleet = snapshotOf(url, {...process.env, CONTROLROOM_HOST: 'desk'});
		expect(local.verdicts.length).toBeGreaterThan(0);
		expect(local.effects.map(effect => [effect.order, effect.id, effect.state])).toEqual([
			['o-fleet', 'fs/write_file#1', 'held'],
			['o-refuse', 'fs/write_file#1', 'held'],
		]);
		expect(withoutHost(fleet.verdicts)).toEqual(local.verdicts);
		expect(withoutHost(fleet.effects)).toEqual(local.effects);
		expect(withoutHost(fleet.disagreements)).toEqual(local.disagreements);
		expect(new Set([...fleet.verdicts, ...fleet.effects].map(entry => (entry as {host?: string}).host))).toEqual(
			new Set(['delta']),
		);
		// The queue's reviews and waiting lanes too
		const lanes = (snapshot: Snapshot) =>
			snapshot.queue.lanes.map(lane => [lane.name, lane.total, lane.items.map(item => [item.taskId, item.reason])]);
		expect(lanes(fleet)).toEqual(lanes(local));
		expect(fleet.queue.lanes.find(lane => lane.name === 'reviews')?.items.map(item => item.taskId)).toEqual([reviewed]);
	});

	it("refuses a yes the fleet board did not find a person for: nothing runs, and the host's queue shows the attempt", async () => {
		const agentAsked = {isPerson: false, user: null, reason: 'its environment carries CLAUDECODE'};
		for (const asker of [agentAsked, null]) {
			const answer = await askHost('o-fleet', 'approve', {}, asker);
			expect(answer.outcome).toBe('refused');
			expect(answer.message).toContain('only a person at a terminal says yes');
		}
		expect(existsSync(join(srv, 'out.txt'))).toBe(false);
		const refused = localEvents(host).filter(event => event.type === EventType.gateRefused && event.taskId === 'o-fleet');
		expect(refused.map(event => (JSON.parse(event.data) as {door: string}).door)).toEqual(['fleet', 'fleet']);
		const local = snapshotOf(host.ledgerFile, host.env);
		const needs = local.queue.lanes.find(lane => lane.name === 'needs')?.items.map(item => item.reason) ?? [];
		expect(needs.some(reason => reason.includes('refused: an agent asked to effects approve o-fleet'))).toBe(true);
	}, 120_000);

	it('approves a held effect from the fleet only where the host takes unsigned approvals: its sync runs it once, and both ledgers record it', async () => {
		expect(existsSync(join(srv, 'out.txt'))).toBe(false);
		// A person's approval that no key signed: refused by the host by default, nothing runs
		expect(await askHost('o-fleet', 'approve', {})).toEqual({
			outcome: 'refused',
			message: `o-fleet: nothing ran: ${UNSIGNED_APPROVAL}`,
		});
		expect(existsSync(join(srv, 'out.txt'))).toBe(false);
		// The host's owner opts in: its sync takes unsigned approvals
		await restartSync(['--accept-unsigned-approvals']);
		const answer = await askHost('o-fleet', 'approve', {});
		expect(answer).toEqual({outcome: 'done', message: 'o-fleet: fs/write_file#1 finished'});
		// The effect happened on the host ...
		expect(readFileSync(join(srv, 'out.txt'), 'utf8')).toBe('o-fleet from the fleet\n');
		// ... recorded there as the fleet's doing, and shipped
		const finished = localEvents(host).filter(event => event.type === EventType.effectFinished);
		expect(finished).toHaveLength(1);
		await shipped();
		const fleet = snapshotOf(url, {...process.env, CONTROLROOM_HOST: 'desk'});
		expect(fleet.effects.map(effect => [(effect as {host?: string}).host, effect.order, effect.state])).toEqual([
			['delta', 'o-fleet', 'finished'],
			['delta', 'o-refuse', 'held'],
		]);
		// Asked again, nothing runs twice
		expect(await askHost('o-fleet', 'approve', {})).toEqual({outcome: 'done', message: 'o-fleet: nothing held'});
	}, 120_000);

	it('sends a held effect back from the fleet (x on a held order): the host drops it, nothing runs, both ledgers record it', async () => {
		const answer = await askHost('o-refuse', 'sendBackOrder', {reason: 'not this file'});
		expect(answer).toEqual({outcome: 'done', message: 'sent back fs/write_file#1: not this file'});
		expect(existsSync(join(srv, 'refused.txt'))).toBe(false);
		const sentBack = localEvents(host).filter(event => event.type === EventType.orderSentBack && event.taskId === 'o-refuse');
		expect(sentBack.map(event => JSON.parse(event.data) as unknown)).toEqual([
			{ids: ['fs/write_file#1'], reason: 'not this file', by: 'dana'},
		]);
		await shipped();
		const fleet = snapshotOf(url, {...process.env, CONTROLROOM_HOST: 'desk'});
		expect(fleet.effects.find(effect => effect.order === 'o-refuse')?.state).toBe('rejected');
		// Asked again, there is nothing left to send back: the host refuses, saying so
		expect(await askHost('o-refuse', 'sendBackOrder', {reason: 'again'})).toEqual({
			outcome: 'refused',
			message: 'nothing held in o-refuse',
		});
		// An order the host does not know is refused with the reason, not a failure
		const unknown = await askHost('o-nowhere', 'sendBackOrder', {reason: 'x'});
		expect(unknown.outcome).toBe('refused');
		expect(unknown.message).toContain('no order o-nowhere');
	}, 120_000);

	it('sends a reviewed task back from the fleet: the host records it and its queue entry closes', async () => {
		const answer = await askHost(reviewed, 'sendBack', {reason: 'rename it as the reviewer says', by: 'desk'});
		expect(answer.outcome, answer.message).toBe('done');
		expect(answer.message).toContain(`sent back ${reviewed}`);
		const sentBack = localEvents(host).filter(event => event.type === EventType.workSentBack && event.taskId === reviewed);
		expect(sentBack).toHaveLength(1);
		await shipped();
		const fleet = snapshotOf(url, {...process.env, CONTROLROOM_HOST: 'desk'});
		expect(fleet.queue.lanes.find(lane => lane.name === 'reviews')?.items).toEqual([]);
		// A second send-back of the same task is refused by the host, with its reason
		const again = await askHost(reviewed, 'sendBack', {reason: 'again', by: 'desk'});
		expect(again.outcome).toBe('refused');
		expect(again.message).toContain('is not waiting for a person');
	}, 120_000);
});
