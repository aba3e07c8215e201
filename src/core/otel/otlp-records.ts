/**
 * OTLP log records and metric points as the receiver reads them, whichever encoding they came in
 * (OTLP/JSON or protobuf): flat attribute maps of plain values. Only what the telemetry mapping
 * reads is kept (docs/otel.md, "Ingest").
 */

/** An attribute value: OTLP's AnyValue reduced to a plain value (arrays and maps as JSON text). */
export type AttrValue = string | number | boolean | null;

export type Attrs = Readonly<Record<string, AttrValue>>;

export type OtlpLogRecord = {
	/** The resource's attributes (service.name tells Claude Code from Codex). */
	readonly resource: Attrs;
	readonly attrs: Attrs;
	/** The body when it is a string (`claude_code.api_request`). */
	readonly body: string | null;
	/** Milliseconds since the epoch (0 when the record had no time). */
	readonly at: number;
	readonly traceId: string | null;
	readonly spanId: string | null;
};

export type OtlpMetricPoint = {
	readonly resource: Attrs;
	readonly name: string;
	readonly unit: string;
	/** 1 delta, 2 cumulative, 0 unknown or a gauge. */
	readonly temporality: number;
	readonly attrs: Attrs;
	readonly value: number;
	readonly at: number;
};

/** The most records one request may carry: past it the request is refused whole (413-like). */
export const MAX_RECORDS_PER_REQUEST = 10_000;

export class OtlpDecodeError extends Error {}

function asRecord(value: unknown): Record<string, unknown> | null {
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function asArray(value: unknown): readonly unknown[] {
	return Array.isArray(value) ? value : [];
}

/** An OTLP/JSON AnyValue: int64 may arrive as a string (`"69"`), so numbers are read from both. */
function jsonAnyValue(value: unknown): AttrValue {
	const any = asRecord(value);
	if (!any) return null;
	if (typeof any['stringValue'] === 'string') return any['stringValue'];
	if (typeof any['boolValue'] === 'boolean') return any['boolValue'];
	if (any['intValue'] !== undefined) {
		const number = Number(any['intValue']);
		return Number.isFinite(number) ? number : null;
	}
	if (any['doubleValue'] !== undefined) {
		const number = Number(any['doubleValue']);
		return Number.isFinite(number) ? number : null;
	}
	if (any['arrayValue'] !== undefined || any['kvlistValue'] !== undefined) {
		return JSON.stringify(any['arrayValue'] ?? any['kvlistValue']);
	}
	return null;
}

function jsonAttrs(list: unknown): Attrs {
	const attrs: Record<string, AttrValue> = {};
	for (const entry of asArray(list)) {
		const kv = asRecord(entry);
		if (kv && typeof kv['key'] === 'string') attrs[kv['key']] = jsonAnyValue(kv['value']);
	}
	return attrs;
}

/** Nanoseconds (a decimal string or a number) to milliseconds. */
export function nanosToMs(value: unknown): number {
	if (typeof value === 'bigint') return Number(value / 1_000_000n);
	if (typeof value === 'number') return Number.isFinite(value) ? Math.floor(value / 1e6) : 0;
	if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return Number(BigInt(value) / 1_000_000n);
	return 0;
}

function hexId(value: unknown): string | null {
	return typeof value === 'string' && /^[0-9a-fA-F]{16,32}$/.test(value) ? value.toLowerCase() : null;
}

function counted<T>(records: T[]): T[] {
	if (records.length > MAX_RECORDS_PER_REQUEST) {
		throw new OtlpDecodeError(`more than ${MAX_RECORDS_PER_REQUEST} records in one request`);
	}
	return records;
}

/** An OTLP/JSON ExportLogsServiceRequest, already JSON.parse'd. */
export function logsFromJson(body: unknown): OtlpLogRecord[] {
	const root = asRecord(body);
	if (!root) throw new OtlpDecodeError('the body is not a JSON object');
	const records: OtlpLogRecord[] = [];
	for (const resourceLogs of asArray(root['resourceLogs'])) {
		const rl = asRecord(resourceLogs);
		const resource = jsonAttrs(asRecord(rl?.['resource'])?.['attributes']);
		for (const scopeLogs of asArray(rl?.['scopeLogs'])) {
			for (const item of asArray(asRecord(scopeLogs)?.['logRecords'])) {
				const record = asRecord(item);
				if (!record) continue;
				const body = jsonAnyValue(record['body']);
				records.push({
					resource,
					attrs: jsonAttrs(record['attributes']),
					body: typeof body === 'string' ? body : null,
					at: nanosToMs(record['timeUnixNano']) || nanosToMs(record['observedTimeUnixNano']),
					traceId: hexId(record['traceId']),
					spanId: hexId(record['spanId']),
				});
				counted(records);
			}
		}
	}
	return records;
}

/** An OTLP/JSON ExportMetricsServiceRequest: the number points of sums and gauges (histograms are skipped). */
export function metricsFromJson(body: unknown): OtlpMetricPoint[] {
	const root = asRecord(body);
	if (!root) throw new OtlpDecodeError('the body is not a JSON object');
	const points: OtlpMetricPoint[] = [];
	for (const resourceMetrics of asArray(root['resourceMetrics'])) {
		const rm = asRecord(resourceMetrics);
		const resource = jsonAttrs(asRecord(rm?.['resource'])?.['attributes']);
		for (const scopeMetrics of asArray(rm?.['scopeMetrics'])) {
			for (const item of asArray(asRecord(scopeMetrics)?.['metrics'])) {
				const metric = asRecord(item);
				if (!metric || typeof metric['name'] !== 'string') continue;
				const data = asRecord(metric['sum']) ?? asRecord(metric['gauge']);
				const temporality = Number(asRecord(metric['sum'])?.['aggregationTemporality'] ?? 0) || 0;
				for (const pointItem of asArray(data?.['dataPoints'])) {
					const point = asRecord(pointItem);
					if (!point) continue;
					const value = Number(point['asDouble'] ?? point['asInt']);
					if (!Number.isFinite(value)) continue;
					points.push({
						resource,
						name: metric['name'],
						unit: typeof metric['unit'] === 'string' ? metric['unit'] : '',
						temporality,
						attrs: jsonAttrs(point['attributes']),
						value,
						at: nanosToMs(point['timeUnixNano']),
					});
					counted(points);
				}
			}
		}
	}
	return points;
}
