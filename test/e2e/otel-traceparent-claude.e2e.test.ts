import {spawn} from 'node:child_process';
import {afterEach, describe, expect, it} from 'vitest';
import {taskSpanId} from '../../src/core/otel/trace-context.ts';
import {BIN} from '../helpers/cli.ts';
import {OtlpCollector} from '../helpers/otlp-collector.ts';
import {realClientBox, realClientScript} from '../helpers/realclients.ts';

const CLAUDE = realClientScript('claude-offline.sh');
const SLOW = 180_000;

/** `controlroom ARGS` as a child: the collector in this process must keep answering while it runs. */
function cli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{status: number | null; stdout: string; stderr: string}> {
	const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	return new Promise(resolve => child.on('close', status => resolve({status, stdout, stderr})));
}

let collector: OtlpCollector | null = null;
afterEach(async () => {
	await collector?.stop();
	collector = null;
});

describe('run passes TRACEPARENT: a wrapped claude -p puts its own spans in the task’s trace', () => {
	it(
		'Claude’s spans share the exported task span’s trace id, its interaction span hangs under the task span',
		async () => {
			collector = new OtlpCollector();
			await collector.start(0);
			const box = realClientBox({SCENARIO: 'bash'});
			// Claude's spans (a beta) go straight to the collector; run adds TRACEPARENT
			const claudeTraces = {
				CLAUDE_CODE_ENABLE_TELEMETRY: '1',
				CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1',
				OTEL_TRACES_EXPORTER: 'otlp',
				OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
				OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
			};
			const run = await cli(['run', '--', CLAUDE, box.dir, '-p', 'say hi', '--dangerously-skip-permissions'], {
				...box.env,
				...claudeTraces,
			});
			expect(run.status, run.stderr).toBe(0);
			const claudeSpans = collector.spans.filter(span => span.service === 'claude-code');
			expect(claudeSpans.length).toBeGreaterThan(0);
			const exported = await cli(['otel', 'export', '--endpoint', collector.url], box.env);
			expect(exported.status, exported.stderr).toBe(0);
			const task = collector.spans.find(span => span.service === 'controlroom' && span.name.startsWith('invoke_agent'));
			const taskId = String(task?.attributes['controlroom.task.id']);
			expect(task?.spanId).toBe(taskSpanId(taskId));
			expect(new Set(claudeSpans.map(span => span.traceId))).toEqual(new Set([task?.traceId]));
			const interaction = claudeSpans.find(span => span.name === 'claude_code.interaction');
			expect(interaction?.parentSpanId).toBe(task?.spanId);
			expect(interaction?.attributes['parent.source']).toBe('env');
		},
		SLOW,
	);
});
