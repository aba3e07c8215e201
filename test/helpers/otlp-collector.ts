import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {EventEmitter} from 'node:events';

/** One span as the collector read it from OTLP/JSON. */
export type CollectedSpan = {
	traceId: string;
	spanId: string;
	parentSpanId?: string;
	name: string;
	startTimeUnixNano: string;
	endTimeUnixNano: string;
	status?: {code?: number; message?: string};
	attributes: Record<string, unknown>;
	service: string | null;
};

type AnyValue = {stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean};

function plain(value: AnyValue | undefined): unknown {
	if (!value) return null;
	if (value.stringValue !== undefined) return value.stringValue;
	if (value.intValue !== undefined) return Number(value.intValue);
	if (value.doubleValue !== undefined) return value.doubleValue;
	if (value.boolValue !== undefined) return value.boolValue;
	return null;
}

function attributesOf(list: {key: string; value: AnyValue}[] | undefined): Record<string, unknown> {
	return Object.fromEntries((list ?? []).map(kv => [kv.key, plain(kv.value)]));
}

/**
 * A loopback OTLP/HTTP collector for tests: reads /v1/traces with JSON.parse (the export's JSON
 * encoding), keeps every span, emits 'spans' on each request; stoppable and startable again on
 * the same port (a collector that goes down and comes back).
 */
export class OtlpCollector extends EventEmitter {
	readonly spans: CollectedSpan[] = [];
	private server: Server | null = null;
	port = 0;

	get url(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	async start(port = this.port): Promise<void> {
		const server = createServer((request, response) => {
			const chunks: Buffer[] = [];
			request.on('data', (chunk: Buffer) => chunks.push(chunk));
			request.on('end', () => {
				if (request.url === '/v1/traces' && String(request.headers['content-type']).startsWith('application/json')) {
					const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
					for (const resourceSpans of body.resourceSpans ?? []) {
						const service = attributesOf(resourceSpans.resource?.attributes)['service.name'] as string | undefined;
						for (const scopeSpans of resourceSpans.scopeSpans ?? [])
							for (const span of scopeSpans.spans ?? [])
								this.spans.push({...span, attributes: attributesOf(span.attributes), service: service ?? null});
					}
				}
				response.writeHead(200, {'content-type': 'application/json'});
				response.end('{}');
				this.emit('spans');
			});
		});
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(port, '127.0.0.1', () => resolve());
		});
		this.server = server;
		this.port = (server.address() as AddressInfo).port;
	}

	async stop(): Promise<void> {
		const server = this.server;
		this.server = null;
		if (!server) return;
		await new Promise<void>(resolve => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
	}
}
