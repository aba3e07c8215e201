import {TASK_ATTRIBUTE} from './telemetry-map.ts';

/**
 * The settings that point Claude Code's own OpenTelemetry at a receiver (docs/otel.md, "Claude's
 * telemetry settings"), as environment variables: what `run --otel URL` gives a Claude agent and
 * what `hooks install --claude --otel URL` writes into the settings file's `env`. Logs and
 * metrics only: Claude's spans (a beta) are the user's to turn on, and TRACEPARENT already puts
 * them in the task's trace.
 */

/** Logs every 2 s and metrics every 10 s, so the board sees requests as they happen; `-p` flushes at exit anyway. */
const LOGS_INTERVAL_MS = '2000';
const METRICS_INTERVAL_MS = '10000';

/** A receiver's base URL (`http://127.0.0.1:4318`), or null when it is not an http(s) URL. */
export function otlpBaseUrl(url: string): string | null {
	const trimmed = url.trim();
	if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(trimmed)) return null;
	return trimmed.replace(/\/+$/, '');
}

/**
 * The header the receiver asks every request for (docs/otel.md, "Only agents it invited"): the
 * ledger's telemetry key, which controlroom gives only to the agents it points at its receiver.
 */
export const OTEL_KEY_HEADER = 'x-controlroom-otel';

/** OTEL_EXPORTER_OTLP_HEADERS with our header set to `key`, the other pairs kept as they were. */
export function headersWithKey(existing: string | undefined, key: string): string {
	const kept = (existing ?? '')
		.split(',')
		.map(pair => pair.trim())
		.filter(pair => pair !== '' && pair.split('=')[0]?.trim().toLowerCase() !== OTEL_KEY_HEADER);
	return [...kept, `${OTEL_KEY_HEADER}=${key}`].join(',');
}

/** Claude's telemetry settings for a receiver at `endpoint` whose ledger's telemetry key is `key`. */
export function claudeTelemetryEnv(endpoint: string, key: string): Record<string, string> {
	return {
		CLAUDE_CODE_ENABLE_TELEMETRY: '1',
		OTEL_LOGS_EXPORTER: 'otlp',
		OTEL_METRICS_EXPORTER: 'otlp',
		OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
		OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
		OTEL_EXPORTER_OTLP_HEADERS: headersWithKey(undefined, key),
		OTEL_LOGS_EXPORT_INTERVAL: LOGS_INTERVAL_MS,
		OTEL_METRIC_EXPORT_INTERVAL: METRICS_INTERVAL_MS,
	};
}

/** OTEL_RESOURCE_ATTRIBUTES with the task's id added to what was there (a key of ours given twice: ours wins). */
export function resourceAttributesWithTask(existing: string | undefined, taskId: string): string {
	const kept = (existing ?? '')
		.split(',')
		.map(pair => pair.trim())
		.filter(pair => pair !== '' && !pair.startsWith(`${TASK_ATTRIBUTE}=`));
	return [...kept, `${TASK_ATTRIBUTE}=${encodeURIComponent(taskId)}`].join(',');
}
