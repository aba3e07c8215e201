import {claudeTelemetryEnv, headersWithKey, resourceAttributesWithTask} from '../../core/otel/claude-telemetry.ts';
import {ledgerKey} from '../../ledger/secrets.ts';
import {taskSpanId, traceparentOf} from '../../core/otel/trace-context.ts';
import type {WrapperOptions} from './options.ts';

/**
 * What the agent's environment gets for tracing (docs/otel.md): TRACEPARENT naming the task's own
 * span, so `claude -p` and `codex exec` put their spans in the task's trace; the task id among the
 * resource attributes, so whatever telemetry the agent sends lands on this task; and with `--otel`,
 * Claude's telemetry settings (for a Claude agent, or a script that runs one), the receiver's key
 * among the headers. A variable the user
 * set themselves for the run (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, ...) is kept.
 */
export function agentTraceEnv(
	options: Pick<WrapperOptions, 'trace' | 'otelEndpoint' | 'agent' | 'env' | 'ledger'>,
	taskId: string,
	env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
	const own = {...env, ...options.env};
	const result: Record<string, string> = {};
	if (options.trace) result['TRACEPARENT'] = traceparentOf({traceId: options.trace.traceId, spanId: taskSpanId(taskId)});
	if (options.otelEndpoint && options.agent !== 'codex') {
		const key = ledgerKey(options.ledger, 'otel');
		for (const [name, value] of Object.entries(claudeTelemetryEnv(options.otelEndpoint, key))) {
			const mine = own[name];
			// The endpoint and the switch are run's to set; the user's own choice wins for the rest,
			// but for the receiver's key, which joins the headers the user gave (docs/otel.md).
			if (name === 'OTEL_EXPORTER_OTLP_HEADERS') result[name] = headersWithKey(mine, key);
			else if (mine === undefined || name === 'OTEL_EXPORTER_OTLP_ENDPOINT' || name === 'CLAUDE_CODE_ENABLE_TELEMETRY')
				result[name] = value;
		}
	}
	// Always: whatever telemetry the agent sends (Codex's from its own config too) names its task.
	result['OTEL_RESOURCE_ATTRIBUTES'] = resourceAttributesWithTask(own['OTEL_RESOURCE_ATTRIBUTES'], taskId);
	return result;
}
