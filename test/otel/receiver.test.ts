import {join} from 'node:path';
import {gzipSync} from 'node:zlib';
import {afterEach, describe, expect, it} from 'vitest';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {startReceiver, MAX_BODY_BYTES, type Receiver} from '../../src/otel/receiver.ts';
import {scratchDir} from '../helpers/cli.ts';

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

/** One Claude `api_request` record, as Claude Code 2.1.328 sends it in OTLP/JSON. */
function apiRequest(requestId: string, extra: {key: string; value: Record<string, unknown>}[] = []) {
	return {
		resourceLogs: [
			{
				resource: {attributes: [attr('service.name', 'claude-code')]},
				scopeLogs: [
					{
						logRecords: [
							{
								timeUnixNano: '1796177005866000000',
								body: {stringValue: 'claude_code.api_request'},
								attributes: [
									attr('session.id', SESSION),
									attr('event.name', 'api_request'),
									attr('model', 'claude-opus-5-5'),
									attr('input_tokens', 1234),
									attr('output_tokens', 42),
									attr('cache_read_tokens', 50),
									attr('cache_creation_tokens', 100),
									attr('cost_usd', 0.006286),
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

let ledger: Ledger | null = null;
let receiver: Receiver | null = null;
afterEach(async () => {
	await receiver?.close();
	ledger?.close();
	receiver = null;
	ledger = null;
});

async function start(): Promise<{ledger: Ledger; url: string}> {
	ledger = openLedger(join(scratchDir('cr-otel-recv-'), 'ledger.db'));
	receiver = await startReceiver(
		ledger,
		0,
		() => undefined,
		() => undefined,
	);
	return {ledger, url: receiver.url};
}

function post(url: string, body: string | Buffer, headers: Record<string, string> = {'content-type': 'application/json'}) {
	return fetch(`${url}/v1/logs`, {method: 'POST', body, headers});
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
});
