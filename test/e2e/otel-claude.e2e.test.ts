import {spawn} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {realClientBox, realClientScript, installClaudeHooks} from '../helpers/realclients.ts';
import {otelClaudeRun, startOtelReceiver, type ReceiverChild} from '../helpers/otel-receiver.ts';
import {onOutput, waitFor} from '../helpers/wait-for.ts';

const CLAUDE = realClientScript('claude-offline.sh');
const SLOW = 180_000;

type TimelineEntry = {type: string; data: Record<string, unknown>};

let receiver: ReceiverChild | null = null;
afterEach(async () => {
	await receiver?.stop();
	receiver = null;
});

describe('a wrapped claude -p with --otel, its telemetry received by controlroom otel receive', () => {
	for (const protocol of ['http/json', 'http/protobuf']) {
		it(
			`(${protocol}) has the transcript's tokens and, as its cost, the sum of Claude's cost_usd (= total_cost_usd)`,
			async () => {
				const box = realClientBox({SCENARIO: 'bash'});
				installClaudeHooks(box);
				receiver = await startOtelReceiver(box.env);
				const run = box.cli(
					otelClaudeRun(receiver.url, CLAUDE, box.dir, true),
					// A protocol the user chose for the run is kept; the endpoint is run's.
					{OTEL_EXPORTER_OTLP_PROTOCOL: protocol},
				);
				expect(run.status, run.stderr).toBe(0);
				const result = JSON.parse(run.stdout) as {total_cost_usd: number};
				const {tasks} = box.snapshot();
				expect(tasks).toHaveLength(1);
				const task = tasks[0] as {id: string; tokens: unknown; telemetry: {requests: number; costUsd: number}};
				// The transcript's count (2 answers of 1234 + 100 + 50 in, 42 out), not twice it
				expect(task.tokens).toMatchObject({input: 2768, output: 84, total: 2852});
				const timeline = JSON.parse(box.cli(['timeline', task.id, '--json']).stdout) as {entries: TimelineEntry[]};
				const requests = timeline.entries.filter(entry => entry.type === 'telemetry.request');
				expect(requests.map(entry => entry.data['requestId'])).toEqual(['req_fake_msg_fake0001', 'req_fake_msg_fake0002']);
				const costSum = requests.reduce((total, entry) => total + Number(entry.data['costUsd']), 0);
				expect(task.telemetry).toMatchObject({requests: 2, input: 2768, output: 84});
				expect(task.telemetry.costUsd).toBeCloseTo(costSum, 9);
				expect(task.telemetry.costUsd).toBeCloseTo(result.total_cost_usd, 9);
				// Claude's tool events are there too, and its own cost counter agrees
				const tools = timeline.entries.filter(entry => entry.type === 'telemetry.tool').map(entry => entry.data['event']);
				expect(tools).toEqual(expect.arrayContaining(['tool_decision', 'tool_result']));
				const costCounter = timeline.entries
					.filter(entry => entry.type === 'telemetry.metric' && entry.data['name'] === 'claude_code.cost.usage')
					.reduce((total, entry) => total + Number(entry.data['value']), 0);
				expect(costCounter).toBeCloseTo(result.total_cost_usd, 9);
			},
			SLOW,
		);
	}

	it(
		'without hooks: the telemetry alone gives the task its tokens and cost',
		async () => {
			const box = realClientBox({SCENARIO: 'bash'});
			receiver = await startOtelReceiver(box.env);
			const run = box.cli(otelClaudeRun(receiver.url, CLAUDE, box.dir, false));
			expect(run.status, run.stderr).toBe(0);
			const {tasks} = box.snapshot();
			expect(tasks).toHaveLength(1);
			expect(tasks[0]).toMatchObject({
				tokens: {input: 2768, output: 84, total: 2852},
				telemetry: {requests: 2, input: 2768, output: 84, costUsd: 0.012572},
			});
			// Claude sent its key with every request: nothing of it was refused
			expect(receiver.output()).not.toContain('refused');
			// The forgery: a POST naming this task's id and its session, a cost of $123,456.78, without the key
			const task = tasks[0] as {id: string; sessionId: string | null; telemetry: {sessionId?: string}};
			const forged = forgedRequest(task.id, task.telemetry.sessionId ?? 'x', 123456.78);
			const answer = await fetch(`${receiver.url}/v1/logs`, {
				method: 'POST',
				body: forged,
				headers: {'content-type': 'application/json'},
			});
			expect(answer.status).toBe(401);
			expect(box.snapshot().tasks).toEqual(tasks.map(before => ({...before, idleSeconds: expect.any(Number)})));
			await waitFor(() => receiver?.output().includes('refused a request to /v1/logs'), {
				what: 'the receiver to say it refused',
				on: [onOutput(receiver.child.stderr)],
			});
			expect(box.cli(['doctor']).stdout).toMatch(/telemetry refused: 1 request\(s\) to the telemetry receiver came without/);
		},
		SLOW,
	);
});

/** A Claude api_request record as a forger would write it, naming a task and a session. */
function forgedRequest(taskId: string, sessionId: string, costUsd: number): string {
	const attr = (key: string, value: string | number) => ({
		key,
		value: typeof value === 'number' ? {doubleValue: value} : {stringValue: value},
	});
	return JSON.stringify({
		resourceLogs: [
			{
				resource: {attributes: [attr('controlroom.task_id', taskId)]},
				scopeLogs: [
					{
						logRecords: [
							{
								timeUnixNano: `${Date.now()}000000`,
								attributes: [
									attr('event.name', 'api_request'),
									attr('session.id', sessionId),
									attr('model', 'claude-opus-5-5'),
									attr('input_tokens', 1),
									attr('output_tokens', 1),
									attr('cost_usd', costUsd),
									attr('request_id', 'req_forged'),
								],
							},
						],
					},
				],
			},
		],
	});
}

describe('hooks install --claude --otel URL', () => {
	it(
		'writes the telemetry settings into Claude’s settings env: an unwrapped claude -p lands its requests and exact cost on its session',
		async () => {
			const box = realClientBox({SCENARIO: 'bash'});
			receiver = await startOtelReceiver(box.env);
			const claudeDir = join(box.dir, 'home', '.claude');
			const install = box.cli(['hooks', 'install', '--claude', '--otel', receiver.url], {
				HOME: join(box.dir, 'another-home'),
				CLAUDE_CONFIG_DIR: claudeDir,
			});
			expect(install.status, install.stderr).toBe(0);
			expect(install.stdout).toContain('CLAUDE_CODE_ENABLE_TELEMETRY');
			const settings = JSON.parse(readFileSync(join(claudeDir, 'settings.json'), 'utf8'));
			expect(settings.env).toMatchObject({CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url});
			expect(settings.env.OTEL_EXPORTER_OTLP_HEADERS).toMatch(/^x-controlroom-otel=[0-9a-f]{64}$/);
			expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
			// Claude itself, not under run: only its settings file tells it where to send
			const claude = spawn(CLAUDE, [box.dir, '-p', 'say hi', '--dangerously-skip-permissions'], {env: box.env, stdio: 'ignore'});
			expect(await new Promise(resolve => claude.on('exit', resolve))).toBe(0);
			const {tasks} = box.snapshot();
			expect(tasks).toHaveLength(1);
			expect(tasks[0]).toMatchObject({
				source: 'claude',
				tokens: {input: 2768, output: 84, total: 2852},
				telemetry: {requests: 2, costUsd: 0.012572},
			});
		},
		SLOW,
	);
});
