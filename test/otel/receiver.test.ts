import {existsSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {gzipSync} from 'node:zlib';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType, newEvent} from '../../src/core/events.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {OTEL_REFUSED_COUNTER} from '../../src/ledger/counters.ts';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {OTEL_KEY_HEADER} from '../../src/core/otel/claude-telemetry.ts';
import {shippedPriceTable} from '../../src/core/price-table.ts';
import {ledgerKey} from '../../src/ledger/secrets.ts';
import {startReceiver, MAX_BODY_BYTES, type Receiver} from '../../src/otel/receiver.ts';
import {scratchDir} from '../helpers/cli.ts';
import {onFileChange, onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {agent, sandbox, startCli} from '../producers/helpers.ts';

const SESSION = '1003621a-d7e4-457f-889e-573f37b24c21';

function attr(key: string, value: string | number): {key: string; value: Record<string, unknown>} {
	return {
		key,
		value:
			typeof value === 'number'
				? Number.isInteger(value)
					? {intValue: String(value)}
					: {doubleValue: value}
				: {stringValue: value},
	};
}

type RecordOptions = {
	readonly session?: string;
	/** The task `run` names in the resource attributes (controlroom.task_id). */
	readonly task?: string;
	readonly cost?: number;
	readonly inputTokens?: number;
	readonly time?: number;
};

/** One Claude `api_request` record, as Claude Code 2.1.328 sends it in OTLP/JSON. */
function apiRequest(requestId: string, extra: {key: string; value: Record<string, unknown>}[] = [], options: RecordOptions = {}) {
	return {
		resourceLogs: [
			{
				resource: {
					attributes: [attr('service.name', 'claude-code'), ...(options.task ? [attr('controlroom.task_id', options.task)] : [])],
				},
				scopeLogs: [
					{
						logRecords: [
							{
								timeUnixNano: options.time === undefined ? '1796177005866000000' : `${options.time}000000`,
								body: {stringValue: 'claude_code.api_request'},
								attributes: [
									attr('session.id', options.session ?? SESSION),
									attr('event.name', 'api_request'),
									attr('model', 'claude-opus-5-5'),
									attr('input_tokens', options.inputTokens ?? 1234),
									attr('output_tokens', 42),
									attr('cache_read_tokens', 50),
									attr('cache_creation_tokens', 100),
									attr('cost_usd', options.cost ?? 0.006286),
									attr('request_id', requestId),
									...extra,
								],
							},
						],
					},
				],
			},
		],
	};
}

/** A wrapped run's task, its session as its hooks told it (or none yet). */
function wrappedTask(ledger: Ledger, id: string, sessionId: string | null): void {
	ledger.writer.append([
		newEvent(
			EventType.registered,
			{title: id, source: 'wrapper', budget: 2000, ...(sessionId ? {sessionId} : {})},
			{taskId: id, at: Date.now(), source: 'wrapper'},
		),
		newEvent(EventType.started, {pid: process.pid}, {taskId: id, at: Date.now(), source: 'wrapper'}),
	]);
}

let ledger: Ledger | null = null;
let receiver: Receiver | null = null;
afterEach(async () => {
	await receiver?.close();
	ledger?.close();
	receiver = null;
	ledger = null;
});

async function start(): Promise<{ledger: Ledger; url: string; key: string}> {
	ledger = openLedger(join(scratchDir('cr-otel-recv-'), 'ledger.db'));
	receiver = await startReceiver(ledger, 0, {prices: shippedPriceTable(), onReport: () => undefined, onError: () => undefined});
	key = ledgerKey(ledger, 'otel');
	return {ledger, url: receiver.url, key};
}

let key = '';

/** A POST of logs as an invited agent sends it: with the ledger's telemetry key, unless the headers say otherwise. */
function post(url: string, body: string | Buffer, headers: Record<string, string> = {'content-type': 'application/json'}) {
	return fetch(`${url}/v1/logs`, {method: 'POST', body, headers: {[OTEL_KEY_HEADER]: key, ...headers}});
}

describe('otel receive', () => {
	it('records a request once, however often it is sent (plain or gzip), on the session’s task', async () => {
		const {ledger, url} = await start();
		const body = JSON.stringify(apiRequest('req_1'));
		expect((await post(url, body)).status).toBe(200);
		expect((await post(url, gzipSync(body), {'content-type': 'application/json', 'content-encoding': 'gzip'})).status).toBe(200);
		const tasks = ledger.reader.tasksForView(null);
		expect(tasks).toHaveLength(1);
		expect(tasks[0]).toMatchObject({
			source: 'claude',
			sessionId: null,
			telemetry: {requests: 1, input: 1384, output: 42, costUsd: 0.006286},
			tokens: {input: 1384, output: 42, total: 1426},
		});
	});

	it('refuses what it cannot read with one status and records nothing of it', async () => {
		const {ledger, url} = await start();
		expect((await post(url, '{not json')).status).toBe(400);
		expect((await post(url, 'x', {'content-type': 'text/plain'})).status).toBe(415);
		expect((await post(url, Buffer.from([0x0a, 0xff, 0xff, 0xff]), {'content-type': 'application/x-protobuf'})).status).toBe(400);
		expect((await post(url, 'x', {'content-type': 'application/json', 'content-encoding': 'br'})).status).toBe(415);
		expect((await post(url, gzipSync('{'), {'content-type': 'application/json', 'content-encoding': 'gzip'})).status).toBe(400);
		expect((await fetch(`${url}/v1/other`, {method: 'POST', body: '{}'})).status).toBe(404);
		const huge = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
		const refused = await post(url, huge).then(
			response => response.status,
			() => 'reset',
		);
		expect([413, 'reset']).toContain(refused);
		expect(ledger.reader.eventCount()).toBe(0);
	});

	it('keeps hostile text as data: escape codes and NUL in a model name, an overlong id cut', async () => {
		const {ledger, url} = await start();
		const hostile = apiRequest('req_2', []);
		const attributes = hostile.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!.attributes;
		const model = attributes.find(entry => entry.key === 'model')!;
		model.value = {stringValue: '\u001b]8;;http://evil\u0007claude\u0000\u001b[2J'};
		const id = attributes.find(entry => entry.key === 'request_id')!;
		id.value = {stringValue: 'r'.repeat(5000)};
		expect((await post(url, JSON.stringify(hostile))).status).toBe(200);
		const [event] = ledger.reader.eventsOfType(['telemetry.request']);
		expect(event?.data.model).toBe('\u001b]8;;http://evil\u0007claude\u0000\u001b[2J');
		expect(event?.data.requestId).toHaveLength(200);
	});

	it('refuses a request without the ledger’s telemetry key, or with another, with 401: nothing recorded, each counted', async () => {
		const {ledger, url} = await start();
		wrappedTask(ledger, 'w-victim', 'victim-session');
		const before = {events: ledger.reader.eventCount(), task: ledger.reader.task('w-victim')};
		// The forgery: a record naming another task's id, its cost absurd, no key
		const forged = JSON.stringify(apiRequest('req_forged', [], {task: 'w-victim', session: 'victim-session', cost: 123456.78}));
		const none = await fetch(`${url}/v1/logs`, {method: 'POST', body: forged, headers: {'content-type': 'application/json'}});
		expect(none.status).toBe(401);
		expect(await none.json()).toMatchObject({code: 16});
		const wrong = await post(url, forged, {'content-type': 'application/json', [OTEL_KEY_HEADER]: 'f'.repeat(64)});
		expect(wrong.status).toBe(401);
		const metrics = await fetch(`${url}/v1/metrics`, {method: 'POST', body: '{}', headers: {'content-type': 'application/json'}});
		expect(metrics.status).toBe(401);
		expect(ledger.reader.eventCount()).toBe(before.events);
		expect(ledger.reader.task('w-victim')).toEqual(before.task);
		expect(ledger.reader.counter(OTEL_REFUSED_COUNTER)).toBe(3);
	});

	it('puts a record naming another session’s task on its own session’s task, and binds a task to the session its telemetry first named', async () => {
		const {ledger, url} = await start();
		wrappedTask(ledger, 'w-other', 'other-session');
		wrappedTask(ledger, 'w-fresh', null);
		// An invited agent names another task, whose hooks told the ledger of another session
		expect((await post(url, JSON.stringify(apiRequest('req_1', [], {task: 'w-other', session: 'mine'})))).status).toBe(200);
		expect(ledger.reader.task('w-other')?.telemetry ?? null).toBeNull();
		// A run whose session no hook told yet: its first telemetry binds it
		expect((await post(url, JSON.stringify(apiRequest('req_2', [], {task: 'w-fresh', session: 'fresh-session'})))).status).toBe(
			200,
		);
		expect(ledger.reader.task('w-fresh')?.telemetry).toMatchObject({requests: 1, sessionId: 'fresh-session'});
		expect((await post(url, JSON.stringify(apiRequest('req_3', [], {task: 'w-fresh', session: 'intruder'})))).status).toBe(200);
		expect(ledger.reader.task('w-fresh')?.telemetry).toMatchObject({requests: 1});
		// Both misnamed records are on their own sessions' tasks
		expect(ledger.reader.task(sessionTaskId('claude', 'mine'))?.telemetry).toMatchObject({requests: 1});
		expect(ledger.reader.task(sessionTaskId('claude', 'intruder'))?.telemetry).toMatchObject({requests: 1});
	});

	it('keeps a cost its tokens cannot back as a claim, not summed; dates a record older than its task by its arrival; moves no status', async () => {
		const {ledger, url} = await start();
		wrappedTask(ledger, 'w-run', 'run-session');
		ledger.writer.append([newEvent(EventType.exited, {exitCode: 0}, {taskId: 'w-run', at: Date.now(), source: 'wrapper'})]);
		expect(ledger.reader.task('w-run')?.status).toBe('done');
		const arrival = Date.now();
		const claim = apiRequest('req_claim', [], {
			task: 'w-run',
			session: 'run-session',
			cost: 123456.78,
			time: Date.parse('2001-01-01T00:00:00Z'),
		});
		expect((await post(url, JSON.stringify(claim))).status).toBe(200);
		const fair = apiRequest('req_fair', [], {task: 'w-run', session: 'run-session'});
		expect((await post(url, JSON.stringify(fair))).status).toBe(200);
		const task = ledger.reader.task('w-run');
		expect(task?.status).toBe('done');
		expect(task?.telemetry).toMatchObject({requests: 2, costUsd: 0.006286, claims: 1});
		const [claimed] = ledger.reader.eventsOfType(['telemetry.request']).filter(event => event.data.requestId === 'req_claim');
		expect(claimed?.data).toMatchObject({costUsd: null, claimedCostUsd: 123456.78});
		// 1234 + 100 + 50 in, 42 out of claude-opus-5-5 could cost a few cents at most
		expect(claimed?.data.costCeilingUsd).toBeGreaterThan(0.006286);
		expect(claimed?.data.costCeilingUsd).toBeLessThan(0.1);
		// Dated 2001, older than its task: dated when it arrived
		expect(claimed?.at).toBeGreaterThanOrEqual(arrival);
	});

	it('never stops a run over its budget on what only its telemetry told: the run ends done', async () => {
		// Given a receiver on a ledger, and a run with a budget of 100 tokens that holds until released
		const box = sandbox();
		const release = join(box.dir, 'release');
		const run = startCli(
			[
				'run',
				'--ledger',
				box.ledgerFile,
				'--title',
				'held',
				'--budget',
				'100',
				'--',
				process.execPath,
				agent('holds-until-released.mjs'),
				release,
			],
			box.env,
		);
		const seen = await waitFor(() => existsSync(box.ledgerFile) && openLedger(box.ledgerFile), {
			what: 'the run to make its ledger',
			on: [onOutput(run.child.stderr), onFileChange(box.ledgerFile)],
		});
		ledger = seen;
		const task = await waitFor(() => seen.reader.tasksWithStatus(['running'])[0], {
			what: 'the run to start',
			on: [onLedgerChange(box.ledgerFile)],
		});
		receiver = await startReceiver(seen, 0, {prices: shippedPriceTable(), onReport: () => undefined, onError: () => undefined});
		key = ledgerKey(seen, 'otel');
		// When its telemetry (with the key, naming it) says it took a million tokens
		const told = apiRequest('req_big', [], {task: task.id, session: 'held-session', inputTokens: 1_000_000});
		expect((await post(receiver.url, JSON.stringify(told))).status).toBe(200);
		await waitFor(() => seen.reader.task(task.id)?.telemetry?.requests === 1, {
			what: 'the telemetry to land',
			on: [onLedgerChange(box.ledgerFile)],
		});
		// Then the run goes on, and ends done when released, not stopped over its budget
		writeFileSync(release, '');
		const end = await run.done;
		expect(end.code, run.stderr()).toBe(0);
		expect(seen.reader.task(task.id)).toMatchObject({status: 'done', tokens: {total: 1_000_192}});
	}, 60_000);
});
