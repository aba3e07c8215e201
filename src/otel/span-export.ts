import {ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Context} from '@opentelemetry/api';
import {ExportResultCode, type ExportResult} from '@opentelemetry/core';
import {OTLPTraceExporter as JsonExporter} from '@opentelemetry/exporter-trace-otlp-http';
import {OTLPTraceExporter as ProtobufExporter} from '@opentelemetry/exporter-trace-otlp-proto';
import {resourceFromAttributes} from '@opentelemetry/resources';
import {
	AlwaysOnSampler,
	BasicTracerProvider,
	InMemorySpanExporter,
	SimpleSpanProcessor,
	type IdGenerator,
	type ReadableSpan,
	type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import {ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION} from '@opentelemetry/semantic-conventions';
import type {PlannedSpan} from '../core/otel/span-plan.ts';

/**
 * Planned spans made into OpenTelemetry spans with the official SDK and sent with its OTLP/HTTP
 * exporter (docs/otel.md, "Export"). The ids are the planned ones (an id generator that hands
 * out what the plan says), so the same ledger gives the same spans in every export.
 */

export type Protocol = 'json' | 'protobuf';

export type SpanSender = {
	/** Sends the spans; resolves with null when the collector took them, else why not. */
	send(spans: readonly PlannedSpan[]): Promise<string | null>;
	close(): Promise<void>;
};

/** How long one export request may take before it counts as failed (the cursor then stays). */
const EXPORT_TIMEOUT_MS = 10_000;

export function createSpanSender(options: {
	readonly endpoint: string;
	readonly protocol: Protocol;
	readonly serviceVersion: string;
	readonly host: string;
}): SpanSender {
	const next = {traceId: '', spanId: ''};
	const idGenerator: IdGenerator = {generateTraceId: () => next.traceId, generateSpanId: () => next.spanId};
	const memory = new InMemorySpanExporter();
	const provider = new BasicTracerProvider({
		resource: resourceFromAttributes({
			[ATTR_SERVICE_NAME]: 'controlroom',
			[ATTR_SERVICE_VERSION]: options.serviceVersion,
			'host.name': options.host,
		}),
		idGenerator,
		sampler: new AlwaysOnSampler(),
		spanProcessors: [new SimpleSpanProcessor(memory)],
	});
	const tracer = provider.getTracer('controlroom', options.serviceVersion);
	const config = {url: `${options.endpoint}/v1/traces`, timeoutMillis: EXPORT_TIMEOUT_MS};
	const exporter: SpanExporter = options.protocol === 'json' ? new JsonExporter(config) : new ProtobufExporter(config);

	const made = async (spans: readonly PlannedSpan[]): Promise<ReadableSpan[]> => {
		for (const planned of spans) {
			next.traceId = planned.traceId;
			next.spanId = planned.spanId;
			const parent: Context =
				planned.parentSpanId === null
					? ROOT_CONTEXT
					: trace.setSpanContext(ROOT_CONTEXT, {
							traceId: planned.traceId,
							spanId: planned.parentSpanId,
							traceFlags: TraceFlags.SAMPLED,
							isRemote: true,
						});
			const span = tracer.startSpan(
				planned.name,
				{kind: SpanKind.INTERNAL, startTime: planned.startMs, attributes: planned.attributes},
				parent,
			);
			span.setStatus(
				planned.isError
					? {code: SpanStatusCode.ERROR, ...(planned.statusMessage ? {message: planned.statusMessage} : {})}
					: {code: SpanStatusCode.OK},
			);
			span.end(planned.endMs);
		}
		await provider.forceFlush();
		const finished = memory.getFinishedSpans();
		memory.reset();
		return finished;
	};

	return {
		async send(spans) {
			if (spans.length === 0) return null;
			const readable = await made(spans);
			const result = await new Promise<ExportResult>(resolve => exporter.export(readable, resolve));
			if (result.code === ExportResultCode.SUCCESS) return null;
			return result.error?.message ?? 'the collector did not take the spans';
		},
		async close() {
			await provider.shutdown();
			await exporter.shutdown();
		},
	};
}
