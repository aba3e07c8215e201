import {mkdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {startOtelReceiver, type ReceiverChild} from '../helpers/otel-receiver.ts';
import {realClientBox, realClientScript} from '../helpers/realclients.ts';

const CODEX = realClientScript('codex-offline.sh');
const SLOW = 180_000;

let receiver: ReceiverChild | null = null;
afterEach(async () => {
	await receiver?.stop();
	receiver = null;
});

describe('codex exec 0.169 with [otel] pointing at controlroom otel receive', () => {
	it(
		'lands its responses’ tokens on the wrapped task as telemetry, without counting them twice, and no cost',
		async () => {
			const box = realClientBox({SCENARIO: 'plan'});
			receiver = await startOtelReceiver(box.env);
			// hooks install --codex --otel writes the [otel] table with the receiver's key; codex-offline.sh
			// keeps it and adds its fake provider
			mkdirSync(join(box.dir, 'codex-home'), {recursive: true});
			const install = box.cli(['hooks', 'install', '--codex', '--otel', receiver.url], {CODEX_HOME: join(box.dir, 'codex-home')});
			expect(install.status, install.stderr).toBe(0);
			expect(readFileSync(join(box.dir, 'codex-home', 'config.toml'), 'utf8')).toContain('headers = { "x-controlroom-otel" = "');
			const run = box.cli([
				'run',
				'--agent',
				'codex',
				'--',
				CODEX,
				box.dir,
				'exec',
				'--json',
				'--skip-git-repo-check',
				'-c',
				'tools.update_plan.enabled=true',
				'make a plan',
			]);
			expect(run.status, run.stderr).toBe(0);
			const {tasks} = box.snapshot();
			expect(
				tasks,
				JSON.stringify(tasks.map(({id, sessionId, tokens, telemetry}) => ({id, sessionId, tokens, telemetry}))),
			).toHaveLength(1);
			const task = tasks[0] as {
				tokens: {input: number; output: number};
				telemetry: {requests: number; input: number; output: number; costUsd: null};
			};
			// The plan scenario's 4 responses of 2000 in / 60 out (the fake server's usage)
			expect(task.telemetry).toMatchObject({requests: 4, input: 8000, output: 240});
			expect(task.telemetry.costUsd).toBeNull();
			// Nothing Codex sent was refused: its exporter carried the key
			expect(receiver.output()).not.toContain('refused');
			// The wrapper's count from `exec --json` stands; the telemetry's is beside it, equal
			expect({input: task.tokens.input, output: task.tokens.output}).toEqual({
				input: task.telemetry.input,
				output: task.telemetry.output,
			});
		},
		SLOW,
	);
});
