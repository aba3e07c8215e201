import {mkdirSync, writeFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli} from '../helpers/cli.ts';
import {agent, isAlive, sandbox, startCli} from './helpers.ts';

const open: Ledger[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
});

const thread = (id: string) => JSON.stringify({type: 'thread.started', thread_id: id});
const turn = (input: number, output: number) =>
	JSON.stringify({
		type: 'turn.completed',
		usage: {input_tokens: input, cached_input_tokens: 0, output_tokens: output, reasoning_output_tokens: 0},
	});

function streamFile(dir: string, name: string, lines: readonly string[]): string {
	const file = join(dir, name);
	writeFileSync(file, `${lines.join('\n')}\n`);
	return file;
}

function codexRun(box: ReturnType<typeof sandbox>, file: string, extra: readonly string[] = [], mode: string[] = []) {
	return runCli(
		[
			'run',
			'--ledger',
			box.ledgerFile,
			'--agent',
			'codex',
			'--grace',
			'0.5',
			...extra,
			'--',
			process.execPath,
			agent('codex-stream.mjs'),
			file,
			...mode,
		],
		{
			env: box.env,
		},
	);
}

describe('budgets', () => {
	it('stops a Codex-shaped stream that goes over --budget and exits 125 with the reason recorded', () => {
		// Given a stream whose cumulative usage passes 2,500 tokens on its second turn, then hangs
		const box = sandbox();
		const file = streamFile(box.dir, 'over.jsonl', [
			thread('t-over'),
			turn(1000, 100),
			'{"type":"turn.started"}',
			turn(3000, 300),
		]);
		// When it runs with a budget of 2,500
		const result = codexRun(box, file, ['--budget', '2500'], ['--hang']);
		// Then the child was stopped, the run exits 125, and the row says why
		expect(result.status).toBe(125);
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		const task = ledger.reader.tasksForView(null)[0]!;
		expect(task.status).toBe('stopped');
		expect(task.endReason).toMatch(/^over budget: 3300 tokens > budget 2500$/);
		expect(task.tokens).toEqual({input: 3000, output: 300, total: 3300});
		expect(isAlive(task.pid!)).toBe(false);
	});

	it('stops a wrapped agent on the tokens its own hooks report onto the run’s task, exit 125', async () => {
		// Given an agent whose only usage report is its hooks' transcript read (as a wrapped Claude's is)
		const box = sandbox();
		// The transcript where Claude keeps one: under projects/ of the config folder its hooks' environment names
		const config = join(box.dir, 'claude');
		mkdirSync(join(config, 'projects', '-repo'), {recursive: true});
		const transcript = join(config, 'projects', '-repo', 'session.jsonl');
		// (written by the agent once it runs: a transcript older than the run would be a resumed session's earlier runs)
		const written = fileURLToPath(new URL('../fixtures/transcripts/session.jsonl', import.meta.url));
		// When it runs under the wrapper with a budget its first turn already passes
		const run = startCli(
			[
				'run',
				'--budget',
				'100',
				'--grace',
				'0.5',
				'--',
				process.execPath,
				agent('hooked-session.mjs'),
				BIN,
				transcript,
				'sess-budget',
				written,
			],
			{...box.env, CLAUDE_CONFIG_DIR: config},
		);
		const {code} = await run.done;
		// Then the wrapper stopped it: exit 125, one task (the run's) holding the session and its tokens
		expect(code, run.stderr()).toBe(125);
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		const tasks = ledger.reader.tasksForView(null);
		expect(tasks.map(task => task.id)).toEqual([expect.stringMatching(/^w-/)]);
		expect(tasks[0]).toMatchObject({source: 'wrapper', status: 'stopped', sessionId: 'sess-budget'});
		expect(tasks[0]?.endReason).toMatch(/^over budget: \d+ tokens > budget 100$/);
		expect(tasks[0]?.tokens.total).toBeGreaterThan(100);
		expect(isAlive(tasks[0]!.pid!)).toBe(false);
	});

	it('counts each turn of a resumed thread once, even when the stream replays a turn', () => {
		const box = sandbox();
		// Given a first run of thread T with one turn
		const first = streamFile(box.dir, 'first.jsonl', [thread('t-resume'), turn(1000, 100)]);
		expect(codexRun(box, first, ['--title', 'first']).status).toBe(0);
		// When `codex exec resume` reports the thread's cumulative totals, one of them replayed
		const resumed = streamFile(box.dir, 'resumed.jsonl', [thread('t-resume'), turn(2500, 250), turn(2500, 250), turn(4000, 400)]);
		expect(codexRun(box, resumed, ['--title', 'resumed']).status).toBe(0);
		// Then each run holds only its own turns, and together they hold the thread's total once
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		const byTitle = new Map(ledger.reader.tasksForView(null).map(task => [task.title, task]));
		expect(byTitle.get('first')?.tokens).toEqual({input: 1000, output: 100, total: 1100});
		expect(byTitle.get('resumed')?.tokens).toEqual({input: 3000, output: 300, total: 3300});
	});

	it('keeps usage unknown when the stream reports none, and keeps a malformed line as a reject', () => {
		const box = sandbox();
		const file = streamFile(box.dir, 'silent.jsonl', [thread('t-silent'), '{"type":"turn.completed"}', '{"type": broken']);
		expect(codexRun(box, file, ['--budget', '1']).status).toBe(0);
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		expect(ledger.reader.tasksForView(null)[0]?.tokens).toEqual({input: null, output: null, total: null});
		// The malformed line is kept as a reject with its reason, not dropped.
		expect(ledger.reader.rejects(5).map(reject => reject.reason)).toEqual(['codex line: not valid JSON']);
	});
});
