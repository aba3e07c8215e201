import {
	MAX_RECORDS_PER_REQUEST,
	OtlpDecodeError,
	type AttrValue,
	type Attrs,
	type OtlpLogRecord,
	type OtlpMetricPoint,
} from './otlp-records.ts';

/**
 * OTLP/protobuf (`application/x-protobuf`) for the two requests the receiver reads, decoded from
 * the wire format by field number (opentelemetry-proto's logs/v1, metrics/v1, common/v1): the
 * agents send it when told `http/protobuf` (Claude Code) or `protocol = "binary"` (Codex).
 * Unknown fields are skipped, as protobuf requires.
 */

type Field = {readonly number: number; readonly wire: number; readonly varint: bigint; readonly bytes: Uint8Array | null};

const utf8 = new TextDecoder('utf-8', {fatal: false});

function* fields(buffer: Uint8Array): Generator<Field> {
	const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
	let at = 0;
	const varint = (): bigint => {
		let result = 0n;
		for (let shift = 0n; shift < 70n; shift += 7n) {
			if (at >= buffer.length) throw new OtlpDecodeError('protobuf: a varint runs past the end');
			const byte = buffer[at++] ?? 0;
			result |= BigInt(byte & 0x7f) << shift;
			if ((byte & 0x80) === 0) return result;
		}
		throw new OtlpDecodeError('protobuf: a varint is too long');
	};
	while (at < buffer.length) {
		const key = Number(varint());
		const number = key >>> 3;
		const wire = key & 7;
		if (wire === 0) yield {number, wire, varint: varint(), bytes: null};
		else if (wire === 1) {
			if (at + 8 > buffer.length) throw new OtlpDecodeError('protobuf: a fixed64 runs past the end');
			yield {number, wire, varint: view.getBigUint64(at, true), bytes: buffer.subarray(at, at + 8)};
			at += 8;
		} else if (wire === 2) {
			const length = Number(varint());
			if (at + length > buffer.length) throw new OtlpDecodeError('protobuf: a field runs past the end');
			yield {number, wire, varint: 0n, bytes: buffer.subarray(at, at + length)};
			at += length;
		} else if (wire === 5) {
			if (at + 4 > buffer.length) throw new OtlpDecodeError('protobuf: a fixed32 runs past the end');
			yield {number, wire, varint: BigInt(view.getUint32(at, true)), bytes: buffer.subarray(at, at + 4)};
			at += 4;
		} else throw new OtlpDecodeError(`protobuf: wire type ${wire} is not supported`);
	}
}

function text(field: Field): string {
	return field.bytes ? utf8.decode(field.bytes) : '';
}

function double(field: Field): number {
	if (!field.bytes || field.bytes.length !== 8) return Number.NaN;
	return new DataView(field.bytes.buffer, field.bytes.byteOffset, 8).getFloat64(0, true);
}

function signed64(value: bigint): number {
	return Number(BigInt.asIntN(64, value));
}

function hex(bytes: Uint8Array | null): string | null {
	if (!bytes || (bytes.length !== 16 && bytes.length !== 8)) return null;
	let out = '';
	for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
	return /^0+$/.test(out) ? null : out;
}

/** common.v1.AnyValue: 1 string, 2 bool, 3 int, 4 double, 5 array, 6 kvlist, 7 bytes. */
function anyValue(buffer: Uint8Array): AttrValue {
	let value: AttrValue = null;
	for (const field of fields(buffer)) {
		if (field.number === 1) value = text(field);
		else if (field.number === 2) value = field.varint !== 0n;
		else if (field.number === 3) value = signed64(field.varint);
		else if (field.number === 4) value = double(field);
		else if (field.number === 5 || field.number === 6) value = '[structured value]';
	}
	return value;
}

/** A list of common.v1.KeyValue (1 key, 2 value), added to `into`. */
function keyValue(buffer: Uint8Array, into: Record<string, AttrValue>): void {
	let key: string | null = null;
	let value: AttrValue = null;
	for (const field of fields(buffer)) {
		if (field.number === 1) key = text(field);
		else if (field.number === 2 && field.bytes) value = anyValue(field.bytes);
	}
	if (key !== null) into[key] = value;
}

/** resource.v1.Resource: 1 attributes. */
function resourceAttrs(buffer: Uint8Array): Attrs {
	const attrs: Record<string, AttrValue> = {};
	for (const field of fields(buffer)) if (field.number === 1 && field.bytes) keyValue(field.bytes, attrs);
	return attrs;
}

function nanos(value: bigint): number {
	return Number(value / 1_000_000n);
}

/** logs.v1.LogRecord: 1 time, 11 observed time, 5 body, 6 attributes, 9 trace id, 10 span id. */
function logRecord(buffer: Uint8Array, resource: Attrs): OtlpLogRecord {
	const attrs: Record<string, AttrValue> = {};
	let at = 0;
	let observed = 0;
	let body: AttrValue = null;
	let traceId: string | null = null;
	let spanId: string | null = null;
	for (const field of fields(buffer)) {
		if (field.number === 1 && field.wire === 1) at = nanos(field.varint);
		else if (field.number === 11 && field.wire === 1) observed = nanos(field.varint);
		else if (field.number === 5 && field.bytes) body = anyValue(field.bytes);
		else if (field.number === 6 && field.bytes) keyValue(field.bytes, attrs);
		else if (field.number === 9) traceId = hex(field.bytes);
		else if (field.number === 10) spanId = hex(field.bytes);
	}
	return {resource, attrs, body: typeof body === 'string' ? body : null, at: at || observed, traceId, spanId};
}

function guard(count: number): void {
	if (count > MAX_RECORDS_PER_REQUEST) throw new OtlpDecodeError(`more than ${MAX_RECORDS_PER_REQUEST} records in one request`);
}

/** collector.logs.v1.ExportLogsServiceRequest: 1 ResourceLogs (1 resource, 2 ScopeLogs (2 LogRecord)). */
export function logsFromProtobuf(buffer: Uint8Array): OtlpLogRecord[] {
	const records: OtlpLogRecord[] = [];
	for (const resourceLogs of fields(buffer)) {
		if (resourceLogs.number !== 1 || !resourceLogs.bytes) continue;
		let resource: Attrs = {};
		const scopes: Uint8Array[] = [];
		for (const field of fields(resourceLogs.bytes)) {
			if (field.number === 1 && field.bytes) resource = resourceAttrs(field.bytes);
			else if (field.number === 2 && field.bytes) scopes.push(field.bytes);
		}
		for (const scope of scopes) {
			for (const field of fields(scope)) {
				if (field.number !== 2 || !field.bytes) continue;
				records.push(logRecord(field.bytes, resource));
				guard(records.length);
			}
		}
	}
	return records;
}

/** metrics.v1.NumberDataPoint: 7 attributes, 3 time, 4 as_double, 6 as_int (sfixed64). */
function numberPoint(buffer: Uint8Array): {attrs: Attrs; value: number; at: number} {
	const attrs: Record<string, AttrValue> = {};
	let value = Number.NaN;
	let at = 0;
	for (const field of fields(buffer)) {
		if (field.number === 7 && field.bytes) keyValue(field.bytes, attrs);
		else if (field.number === 3 && field.wire === 1) at = nanos(field.varint);
		else if (field.number === 4) value = double(field);
		else if (field.number === 6 && field.wire === 1) value = signed64(field.varint);
	}
	return {attrs, value, at};
}

/** metrics.v1.Metric: 1 name, 3 unit, 5 gauge, 7 sum (1 data points, 2 temporality); histograms are skipped. */
function metricPoints(buffer: Uint8Array, resource: Attrs, into: OtlpMetricPoint[]): void {
	let name = '';
	let unit = '';
	let temporality = 0;
	const points: Uint8Array[] = [];
	for (const field of fields(buffer)) {
		if (field.number === 1) name = text(field);
		else if (field.number === 3) unit = text(field);
		else if ((field.number === 5 || field.number === 7) && field.bytes) {
			for (const inner of fields(field.bytes)) {
				if (inner.number === 1 && inner.bytes) points.push(inner.bytes);
				else if (inner.number === 2 && field.number === 7) temporality = Number(inner.varint);
			}
		}
	}
	for (const bytes of points) {
		const point = numberPoint(bytes);
		if (!Number.isFinite(point.value)) continue;
		into.push({resource, name, unit, temporality, ...point});
		guard(into.length);
	}
}

/** collector.metrics.v1.ExportMetricsServiceRequest: 1 ResourceMetrics (1 resource, 2 ScopeMetrics (2 Metric)). */
export function metricsFromProtobuf(buffer: Uint8Array): OtlpMetricPoint[] {
	const points: OtlpMetricPoint[] = [];
	for (const resourceMetrics of fields(buffer)) {
		if (resourceMetrics.number !== 1 || !resourceMetrics.bytes) continue;
		let resource: Attrs = {};
		const scopes: Uint8Array[] = [];
		for (const field of fields(resourceMetrics.bytes)) {
			if (field.number === 1 && field.bytes) resource = resourceAttrs(field.bytes);
			else if (field.number === 2 && field.bytes) scopes.push(field.bytes);
		}
		for (const scope of scopes) {
			for (const field of fields(scope)) if (field.number === 2 && field.bytes) metricPoints(field.bytes, resource, points);
		}
	}
	return points;
}
