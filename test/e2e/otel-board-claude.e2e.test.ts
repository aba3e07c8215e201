import {spawn} from 'node:child_process';
import {createServer, type Server} from 'node:net';
import {existsSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {realClientBox, realClientScript, installClaudeHooks} from '../helpers/realclients.ts';
import {otelClaudeRun} from '../helpers/otel-receiver.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onFileChange, waitFor} from '../helpers/wait-for.ts';

// `board --otel-port` (docs/otel.md, "Ingest"): the board alone receives a wrapped Claude's
// telemetry and shows its exact cost, with the real Claude Code offline.

const CLAUDE = realClientScript('claude-offline.sh');
const SLOW = 180_000;

let tmux: Tmux | undefined;
let holder: Server | undefined;
afterEach(async () => {
	tmux?.kill();
	tmux = undefined;
	await new Promise<void>(resolve => (holder ? holder.close(() => resolve()) : resolve()));
	holder = undefined;
});

type TimelineEntry = {type: string; data: Record<string, unknown>};

/** A port some other program holds on 127.0.0.1. */
async function takenPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>(resolve => server.listen(0, '127.0.0.1', () => resolve()));
	holder = server;
	const address = server.address();
	return typeof address === 'object' && address ? address.port : 0;
}

/** `controlroom ARGS` in this home, to its end (a child: nothing here blocks the event loop). */
async function cliDone(args: readonly string[], home: string): Promise<{code: number | null; stderr: string}> {
	const child = spawn(process.execPath, [BIN, ...args], {
		env: {...process.env, CONTROLROOM_HOME: home},
		stdio: ['ignore', 'ignore', 'pipe'],
	});
	let stderr = '';
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const code = await new Promise<number | null>(resolve => child.on('close', resolve));
	return {code, stderr};
}

describe('board --otel-port', () => {
	it(
		"receives a wrapped claude -p's telemetry while it is open: the task's cost is the sum of Claude's cost_usd, on the board too",
		async () => {
			const box = realClientBox({SCENARIO: 'bash'});
			installClaudeHooks(box);
			expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
			tmux = new Tmux();
			// The board's own reconciler looks for no real agent of this machine: only the wrapped run is a task
			tmux.start('board', 170, 45, {
				PATH: String(box.env['PATH']),
				CONTROLROOM_HOME: String(box.env['CONTROLROOM_HOME']),
				CONTROLROOM_AGENT_NAMES: 'cr-no-such-agent',
			});
			tmux.type('board', `node ${BIN} board --otel-port 0; echo "board exit $?"`);
			tmux.send('board', 'Enter');
			// The notice line names the port it picked
			const {pane: first} = await tmux.waitFor(
				'board',
				pane => pane.includes('NEEDS YOU') && /listening on http/.test(pane),
				20_000,
			);
			const url = /otel receive: listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(first)?.[1];
			expect(url, first).toBeDefined();
			const run = box.cli(otelClaudeRun(String(url), CLAUDE, box.dir, true));
			expect(run.status, run.stderr).toBe(0);
			const result = JSON.parse(run.stdout) as {total_cost_usd: number};
			const {tasks} = box.snapshot();
			expect(tasks).toHaveLength(1);
			const task = tasks[0] as {
				id: string;
				tokens: unknown;
				telemetry: {requests: number; costUsd: number};
				cost: {amount: number; priced: string};
			};
			const timeline = JSON.parse(box.cli(['timeline', task.id, '--json']).stdout) as {entries: TimelineEntry[]};
			const costSum = timeline.entries
				.filter(entry => entry.type === 'telemetry.request')
				.reduce((total, entry) => total + Number(entry.data['costUsd']), 0);
			expect(task.tokens).toMatchObject({input: 2768, output: 84, total: 2852});
			expect(task.telemetry.requests).toBe(2);
			expect(task.telemetry.costUsd).toBeCloseTo(costSum, 9);
			expect(task.telemetry.costUsd).toBeCloseTo(result.total_cost_usd, 9);
			expect(task.cost).toMatchObject({priced: 'reported'});
			expect(task.cost.amount).toBeCloseTo(result.total_cost_usd, 9);
			// The board shows it (a reported cost has its *), and still answers its keys
			const shown = `$${result.total_cost_usd.toFixed(3)}*`;
			await tmux.waitFor('board', pane => pane.includes(task.id) && pane.includes(shown), 20_000);
			tmux.send('board', '?');
			await tmux.waitFor('board', pane => /keys/i.test(pane) && !pane.includes('NEEDS YOU'), 10_000);
			tmux.send('board', 'Escape');
			await tmux.waitFor('board', pane => pane.includes('NEEDS YOU'), 10_000);
			const {pane: last} = await tmux.waitFor('board', pane => pane.includes(task.id));
			expect(last).not.toMatch(/at .+\.(js|ts):\d+/);
			tmux.send('board', 'q');
			await tmux.waitFor('board', pane => pane.includes('board exit 0'), 10_000);
			// The receiver ended with the board: its port is free again
			const port = Number(new URL(String(url)).port);
			const probe = createServer();
			await new Promise<void>((resolve, reject) => {
				probe.once('error', reject);
				probe.listen(port, '127.0.0.1', () => resolve());
			});
			await new Promise<void>(resolve => probe.close(() => resolve()));
		},
		SLOW,
	);

	it('a port that is taken: one line before the board draws, exit 69 (reconcile --otel-port the same)', async () => {
		const home = scratchDir('cr-otel-board-');
		const port = await takenPort();
		tmux = new Tmux();
		tmux.start('taken', 120, 20, {PATH: String(process.env['PATH']), CONTROLROOM_HOME: home});
		// A ledger to open: the board refuses a missing one before it looks at the port
		expect((await cliDone(['reconcile', '--once', '--agents', 'cr-no-such-agent'], home)).code).toBe(0);
		// On a terminal (the board needs one), its stderr kept in a file to read it whole
		const errFile = join(home, 'board.err');
		const codeFile = join(home, 'board.code');
		tmux.type('taken', `node ${BIN} board --otel-port ${port} 2>${errFile}; echo $? >${codeFile}`);
		tmux.send('taken', 'Enter');
		const code = await waitFor(() => (existsSync(codeFile) && readFileSync(codeFile, 'utf8').trim()) || null, {
			what: 'the board to exit',
			timeoutMs: 20_000,
			on: [onFileChange(codeFile)],
		});
		expect(code).toBe('69');
		expect(readFileSync(errFile, 'utf8')).toBe(`controlroom: board: --otel-port: port ${port} on 127.0.0.1 is taken\n`);
		// It never took the screen: the shell's prompt is all there is besides the command
		expect(tmux.capture('taken')).not.toContain('NEEDS YOU');

		const reconcile = await cliDone(['reconcile', '--otel-port', String(port)], home);
		expect(reconcile.code).toBe(69);
		expect(reconcile.stderr).toBe(`controlroom: reconcile: --otel-port: port ${port} on 127.0.0.1 is taken\n`);
		// A port that is not a number is named by its flag
		const bad = await cliDone(['board', '--otel-port', 'x'], home);
		expect(bad.code).toBe(64);
		expect(bad.stderr).toBe("controlroom: --otel-port: expected a port number 0-65535, got 'x'\n");
	});
});
