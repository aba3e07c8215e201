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
import {OTEL_KEY_HEADER} from '../core/otel/claude-telemetry.ts';
import type {PriceTable} from '../core/price-table.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {OTEL_REFUSED_COUNTER} from '../ledger/counters.ts';
import {isSameKey, ledgerKey} from '../ledger/secrets.ts';
import {writeTelemetry} from '../ledger/telemetry-write.ts';

/**
 * `controlroom otel receive`: an OTLP/HTTP receiver on loopback that writes what Claude Code and
 * Codex report about themselves into the ledger (docs/otel.md, "Ingest"), from the agents it gave
 * the ledger's telemetry key and no one else (401 without it). It reads `/v1/logs` and
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
	/** Records that named a task their session is not (docs/otel.md): recorded on the session's own task instead. */
	readonly misnamed?: number;
	/** Requests' reported costs over what their tokens could cost: kept as claims, not summed. */
	readonly claims?: number;
};

/** A request refused for want of the ledger's telemetry key (401): counted in the ledger for `doctor`. */
export type RefusedReport = {readonly refused: true; readonly path: string; readonly total: number};

/** What a receiver is told, besides the ledger it writes. */
export type ReceiverOptions = {
	/** Prices the reported costs are bounded by (docs/otel.md, "What a cost may be"). */
	readonly prices: PriceTable;
	readonly onReport: (report: ReceiveReport) => void;
	readonly onRefused?: (report: RefusedReport) => void;
	readonly onError: (message: string) => void;
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

/** An error status with an OTLP error body: `code` is gRPC's (3 INVALID_ARGUMENT, 16 UNAUTHENTICATED). */
function refuse(response: ServerResponse, status: number, message: string, code = 3): void {
	response.writeHead(status, {'content-type': 'application/json'});
	response.end(JSON.stringify({code, message}));
}

/**
 * Whether the request carries the ledger's telemetry key (docs/otel.md, "Only agents it invited"):
 * controlroom gives it to the agents it points here and to no one else. Read from the ledger at each
 * request, so a ledger file replaced under the receiver is answered with its own key.
 */
function isInvited(ledger: Ledger, request: IncomingMessage): boolean {
	const given = request.headers[OTEL_KEY_HEADER];
	return isSameKey(typeof given === 'string' ? given : undefined, ledgerKey(ledger, 'otel'));
}

/** Refuses a request without the key, before its body is read: 401, counted in the ledger. */
function refuseUninvited(ledger: Ledger, request: IncomingMessage, response: ServerResponse, options: ReceiverOptions): void {
	let total = 0;
	try {
		ledger.writer.bump(OTEL_REFUSED_COUNTER);
		total = ledger.reader.counter(OTEL_REFUSED_COUNTER);
	} catch {
		// A ledger that cannot count it still refuses it.
	}
	response.setHeader('connection', 'close');
	refuse(response, 401, `no ${OTEL_KEY_HEADER} header with this ledger's telemetry key: nothing recorded (docs/otel.md)`, 16);
	request.resume();
	options.onRefused?.({refused: true, path: (request.url ?? '').split('?')[0]?.slice(0, 100) ?? '', total});
}

async function handle(
	ledger: Ledger,
	request: IncomingMessage,
	response: ServerResponse,
	options: ReceiverOptions,
): Promise<void> {
	const path = (request.url ?? '').split('?')[0] ?? '';
	const signal = SIGNALS[path];
	if (request.method !== 'POST' || signal === undefined) {
		return refuse(response, 404, 'POST /v1/logs, /v1/metrics or /v1/traces');
	}
	if (!isInvited(ledger, request)) return refuseUninvited(ledger, request, response, options);
	const encoding = encodingOf(request);
	const body = inflated(request, await readBody(request));
	if (signal === 'traces') {
		options.onReport({signal, records: 0, appended: 0, sessions: []});
		return answer(response, encoding);
	}
	const {records, facts} = factsOf(signal, encoding, body);
	const written = writeTelemetry(ledger, facts, {prices: options.prices});
	options.onReport({
		signal,
		records,
		appended: written.appended,
		sessions: [...new Set(facts.map(fact => fact.sessionId))],
		...(written.misnamed > 0 ? {misnamed: written.misnamed} : {}),
		...(written.claims > 0 ? {claims: written.claims} : {}),
	});
	answer(response, encoding);
}

/** Starts the receiver on 127.0.0.1:`port` (0: any free port). */
export function startReceiver(ledger: Ledger, port: number, options: ReceiverOptions): Promise<Receiver> {
	const {onError} = options;
	const server: Server = createServer((request, response) => {
		handle(ledger, request, response, options).catch((error: unknown) => {
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
