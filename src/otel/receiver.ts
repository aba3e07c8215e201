import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {gunzipSync} from 'node:zlib';
import {
	OtlpDecodeError,
	logsFromJson,
	metricsFromJson,
	type OtlpLogRecord,
	type OtlpMetricPoint,
} from '../core/otel/otlp-records.ts';
import {logsFromProtobuf, metricsFromProtobuf} from '../core/otel/otlp-protobuf.ts';
import {factOfLogRecord, factOfMetricPoint, type TelemetryFact} from '../core/otel/telemetry-map.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {writeTelemetry} from '../ledger/telemetry-write.ts';

/**
 * `controlroom otel receive`: an OTLP/HTTP receiver on loopback that writes what Claude Code and
 * Codex report about themselves into the ledger (docs/otel.md, "Ingest"). It reads `/v1/logs` and
 * `/v1/metrics` in OTLP/JSON or protobuf, plain or gzip; `/v1/traces` is answered and dropped
 * (the agents' spans belong in a tracing backend, and `otel export` sends controlroom's own).
 */

/** The largest request body read (compressed or not, and once inflated). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** What one request brought: its signal and how many events it added. */
export type ReceiveReport = {
	readonly signal: 'logs' | 'metrics' | 'traces';
	readonly records: number;
	readonly appended: number;
	readonly sessions: readonly string[];
};

export type Receiver = {
	readonly url: string;
	readonly port: number;
	close(): Promise<void>;
};

class BadRequest extends Error {
	readonly status: number;
	constructor(message: string, status = 400) {
		super(message);
		this.status = status;
	}
}

function readBody(request: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		request.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				reject(new BadRequest(`the body is over ${MAX_BODY_BYTES} bytes`, 413));
				request.destroy();
				return;
			}
			chunks.push(chunk);
		});
		request.on('end', () => resolve(Buffer.concat(chunks)));
		request.on('error', reject);
	});
}

function inflated(request: IncomingMessage, body: Buffer): Buffer {
	const encoding = String(request.headers['content-encoding'] ?? '').toLowerCase();
	if (encoding === '' || encoding === 'identity') return body;
	if (encoding !== 'gzip') throw new BadRequest(`content-encoding ${encoding.slice(0, 40)} is not supported (gzip is)`, 415);
	try {
		return gunzipSync(body, {maxOutputLength: MAX_BODY_BYTES});
	} catch {
		throw new BadRequest('the gzip body does not inflate (or is over the size limit)');
	}
}

type Encoding = 'json' | 'protobuf';

function encodingOf(request: IncomingMessage): Encoding {
	const type = String(request.headers['content-type'] ?? '').toLowerCase();
	if (type.startsWith('application/json')) return 'json';
	if (type.startsWith('application/x-protobuf') || type.startsWith('application/protobuf')) return 'protobuf';
	throw new BadRequest('content-type must be application/json or application/x-protobuf', 415);
}

function parsedJson(body: Buffer): unknown {
	try {
		return JSON.parse(body.toString('utf8'));
	} catch {
		throw new BadRequest('the body is not JSON');
	}
}

function factsOf(signal: 'logs' | 'metrics', encoding: Encoding, body: Buffer): {records: number; facts: TelemetryFact[]} {
	const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
	if (signal === 'logs') {
		const records: OtlpLogRecord[] = encoding === 'json' ? logsFromJson(parsedJson(body)) : logsFromProtobuf(bytes);
		return {records: records.length, facts: records.map(factOfLogRecord).filter(fact => fact !== null)};
	}
	const points: OtlpMetricPoint[] = encoding === 'json' ? metricsFromJson(parsedJson(body)) : metricsFromProtobuf(bytes);
	return {records: points.length, facts: points.map(factOfMetricPoint).filter(fact => fact !== null)};
}

const SIGNALS: Readonly<Record<string, ReceiveReport['signal']>> = {
	'/v1/logs': 'logs',
	'/v1/metrics': 'metrics',
	'/v1/traces': 'traces',
};

/** An empty Export*ServiceResponse: `{}` in JSON, zero bytes in protobuf (full success). */
function answer(response: ServerResponse, encoding: Encoding): void {
	if (encoding === 'json') {
		response.writeHead(200, {'content-type': 'application/json'});
		response.end('{}');
	} else {
		response.writeHead(200, {'content-type': 'application/x-protobuf'});
		response.end();
	}
}

function refuse(response: ServerResponse, status: number, message: string): void {
	response.writeHead(status, {'content-type': 'application/json'});
	response.end(JSON.stringify({code: 3, message}));
}

async function handle(
	ledger: Ledger,
	request: IncomingMessage,
	response: ServerResponse,
	onReport: (report: ReceiveReport) => void,
): Promise<void> {
	const path = (request.url ?? '').split('?')[0] ?? '';
	const signal = SIGNALS[path];
	if (request.method !== 'POST' || signal === undefined) {
		return refuse(response, 404, 'POST /v1/logs, /v1/metrics or /v1/traces');
	}
	const encoding = encodingOf(request);
	const body = inflated(request, await readBody(request));
	if (signal === 'traces') {
		onReport({signal, records: 0, appended: 0, sessions: []});
		return answer(response, encoding);
	}
	const {records, facts} = factsOf(signal, encoding, body);
	const written = writeTelemetry(ledger, facts);
	onReport({signal, records, appended: written.appended, sessions: [...new Set(facts.map(fact => fact.sessionId))]});
	answer(response, encoding);
}

/** Starts the receiver on 127.0.0.1:`port` (0: any free port). */
export function startReceiver(
	ledger: Ledger,
	port: number,
	onReport: (report: ReceiveReport) => void,
	onError: (message: string) => void,
): Promise<Receiver> {
	const server: Server = createServer((request, response) => {
		handle(ledger, request, response, onReport).catch((error: unknown) => {
			const known = error instanceof BadRequest || error instanceof OtlpDecodeError;
			const status = error instanceof BadRequest ? error.status : known ? 400 : 500;
			const message = known ? (error as Error).message : 'the ledger could not record the request';
			if (!known) onError(`${message}: ${error instanceof Error ? error.message : String(error)}`);
			if (!response.headersSent) refuse(response, status, message);
			else response.end();
		});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => {
			server.off('error', reject);
			const {port: bound} = server.address() as AddressInfo;
			resolve({
				url: `http://127.0.0.1:${bound}`,
				port: bound,
				close: () =>
					new Promise(done => {
						server.close(() => done());
						server.closeAllConnections();
					}),
			});
		});
	});
}
