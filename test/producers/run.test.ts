import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli} from '../helpers/cli.ts';
import {onFileChange, onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {agent, isAlive, killQuietly, ledgerOf, sandbox, startCli} from './helpers.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

const open: Ledger[] = [];
const pids: number[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
	for (const pid of pids.splice(0)) killQuietly(pid);
});

function onlyTask(ledgerFile: string) {
	const ledger = openLedger(ledgerFile);
	open.push(ledger);
	const tasks = ledger.reader.tasksForView(null);
	expect(tasks).toHaveLength(1);
	return {ledger, task: tasks[0]!};
}

describe('controlroom run', () => {
	it('writes the row before the spawn: the blocked agent finds its own row, and registered precedes started', async () => {
		// Given a fake agent that looks itself up in the ledger and then blocks before any output
		const box = sandbox();
		const report = join(box.dir, 'report.json');
		const release = join(box.dir, 'release');
		const run = startCli(
			[
				'run',
				'--ledger',
				box.ledgerFile,
				'--title',
				'blocker',
				'--',
				process.execPath,
				agent('blocks-before-output.mjs'),
				box.ledgerFile,
				report,
				release,
			],
			box.env,
		);
		// When the test reads the ledger while the agent blocks
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksForView(null).find(row => row.title === 'blocker'), {
			what: 'the row',
			on: [onLedgerChange(box.ledgerFile)],
		});
		const seen = await waitFor(
			() => existsSync(report) && (JSON.parse(readFileSync(report, 'utf8')) as {taskId: string; status: string | null}),
			{what: "the agent's report", on: [onFileChange(report)]},
		);
		expect(run.stdout()).toBe('');
		// Then the row was there when the agent's first instruction ran, and registered comes first
		expect(seen.taskId).toBe(task.id);
		expect(['registered', 'running']).toContain(seen.status);
		const types = ledger.reader.eventsOf(task.id).map(event => event.type);
		expect(types.indexOf(EventType.registered)).toBeGreaterThanOrEqual(0);
		expect(types.indexOf(EventType.registered)).toBeLessThan(types.indexOf(EventType.started));
		writeFileSync(release, '');
		expect((await run.done).code).toBe(0);
		expect(run.stdout()).toBe('first output\n');
		expect(ledger.reader.task(task.id)?.status).toBe('done');
	});

	it("exits with the child's own code and records the row failed with it", () => {
		const box = sandbox();
		const result = runCli(['run', '--ledger', box.ledgerFile, '--', 'sh', '-c', 'exit 3'], {env: box.env});
		expect(result.status).toBe(3);
		const {task} = onlyTask(box.ledgerFile);
		expect(task.status).toBe('failed');
		expect(task.exitCode).toBe(3);
	});

	it('exits 127 when the child cannot be spawned, with the row failed, exit 127 and the error', () => {
		const box = sandbox();
		const result = runCli(['run', '--ledger', box.ledgerFile, '--', '/nonexistent'], {env: box.env});
		expect(result.status).toBe(127);
		expect(result.stderr).toContain('ENOENT');
		const {ledger, task} = onlyTask(box.ledgerFile);
		expect(task.status).toBe('failed');
		expect(task.exitCode).toBe(127);
		expect(task.error).toContain('ENOENT');
		expect(ledger.reader.eventsOf(task.id).map(event => event.type)).not.toContain(EventType.started);
	});

	it('forwards SIGTERM to the child: the row says stopped with the signal and the wrapper exits 143', async () => {
		const box = sandbox();
		const run = startCli(['run', '--ledger', box.ledgerFile, '--', process.execPath, agent('sleeper.mjs')], box.env);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
			what: 'running task',
			on: [onLedgerChange(box.ledgerFile)],
		});
		const childPid = task.pid!;
		pids.push(childPid);
		await waitFor(() => run.stdout().includes('pid'), {what: 'child output', on: [onOutput(run.child.stdout)]});
		run.child.kill('SIGTERM');
		expect((await run.done).code).toBe(143);
		const ended = ledger.reader.task(task.id)!;
		expect(ended.status).toBe('stopped');
		expect(ended.signal).toBe('SIGTERM');
		expect(isAlive(childPid)).toBe(false);
	});

	it("passes the child's stdout and stderr through unchanged", () => {
		const box = sandbox();
		freshLedgerFile(box.home);
		const script = "printf 'one\\nPROGRESS 1/2\\n\\303\\251t\\303\\251\\r\\nno newline'; printf 'to stderr\\n' >&2";
		const result = runCli(['run', '--ledger', box.ledgerFile, '--', 'sh', '-c', script], {env: box.env});
		expect(result.status).toBe(0);
		expect(result.stdout).toBe('one\nPROGRESS 1/2\nété\r\nno newline');
		expect(result.stderr).toBe('to stderr\n');
	});

	it("takes the --steps total over the agent's own PROGRESS total, and leaves progress null without any", () => {
		const box = sandbox();
		runCli(['run', '--ledger', box.ledgerFile, '--title', 'declared', '--steps', '10', '--', 'sh', '-c', 'echo PROGRESS 2/4'], {
			env: box.env,
		});
		runCli(['run', '--ledger', box.ledgerFile, '--title', 'own', '--', 'sh', '-c', 'echo PROGRESS 3/4'], {env: box.env});
		runCli(['run', '--ledger', box.ledgerFile, '--title', 'none', '--', 'sh', '-c', 'echo working'], {env: box.env});
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		const byTitle = new Map(ledger.reader.tasksForView(null).map(task => [task.title, task]));
		expect(byTitle.get('declared')?.progress).toEqual({done: 2, total: 10});
		expect(byTitle.get('own')?.progress).toEqual({done: 3, total: 4});
		expect(byTitle.get('none')?.progress).toBeNull();
		expect(byTitle.get('none')?.tokens.total).toBeNull();
	});

	it('reads a Codex stream: todo_list progress and turn usage', () => {
		const box = sandbox();
		const stream = new URL('../fixtures/codex/exec-todo-list.jsonl', import.meta.url).pathname;
		const result = runCli(
			['run', '--ledger', box.ledgerFile, '--agent', 'codex', '--', process.execPath, agent('codex-stream.mjs'), stream],
			{env: box.env},
		);
		expect(result.status).toBe(0);
		const {task} = onlyTask(box.ledgerFile);
		expect(task.progress).toEqual({done: 2, total: 2});
		expect(task.tokens).toEqual({input: 8000, output: 240, total: 8240});
	});

	it('takes a failed Codex turn’s message as the task’s error and the queue’s reason', () => {
		// Given a real `codex exec --json` failure (error, then turn.failed, then exit 1)
		const box = sandbox();
		const stream = new URL('../fixtures/codex/exec-turn-failed.jsonl', import.meta.url).pathname;
		const result = runCli(
			[
				'run',
				'--ledger',
				box.ledgerFile,
				'--agent',
				'codex',
				'--',
				process.execPath,
				agent('codex-stream.mjs'),
				stream,
				'--fail',
			],
			{env: box.env},
		);
		expect(result.status).toBe(1);
		const message = 'stream disconnected before completion: The fake model failed on purpose.';
		const {task} = onlyTask(box.ledgerFile);
		expect(task).toMatchObject({status: 'failed', exitCode: 1, error: message});
		const snapshot = JSON.parse(runCli(['snapshot', '--json', '--ledger', box.ledgerFile], {env: box.env}).stdout) as {
			queue: {lanes: {name: string; items: {taskId: string; reason: string}[]}[]};
		};
		expect(snapshot.queue.lanes.find(lane => lane.name === 'failed')?.items).toEqual([
			expect.objectContaining({taskId: task.id, reason: message}),
		]);
	});

	it('heartbeats at the configured interval while the child lives', async () => {
		// Given a run with a 50 ms heartbeat whose child lives until the test releases it
		const box = sandbox();
		const release = join(box.dir, 'release');
		const run = startCli(
			[
				'run',
				'--ledger',
				box.ledgerFile,
				'--heartbeat',
				'0.05',
				'--',
				process.execPath,
				agent('holds-until-released.mjs'),
				release,
			],
			box.env,
		);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
			what: 'running task',
			on: [onLedgerChange(box.ledgerFile)],
		});
		pids.push(task.pid!);
		const beatsOf = () => ledger.reader.eventsOf(task.id).filter(event => event.type === EventType.heartbeat);
		// Then three beats come while it lives (the default interval would bring none in this test's time)
		await waitFor(() => beatsOf().length >= 3, {what: 'three heartbeats', on: [onLedgerChange(box.ledgerFile)]});
		expect(isAlive(task.pid!)).toBe(true);
		writeFileSync(release, '');
		expect((await run.done).code).toBe(0);
		expect(ledger.reader.task(task.id)?.status).toBe('done');
	});

	it('sends the child output to --log FILE instead of the terminal', () => {
		const box = sandbox();
		const log = join(box.dir, 'run.log');
		const result = runCli(
			['run', '--ledger', box.ledgerFile, '--log', log, '--', 'sh', '-c', 'echo out; echo PROGRESS 1/3; echo err >&2'],
			{env: box.env},
		);
		expect(result.status).toBe(0);
		expect(result.stdout).toBe('');
		expect(readFileSync(log, 'utf8').split('\n').sort()).toEqual(['', 'PROGRESS 1/3', 'err', 'out']);
		expect(onlyTask(box.ledgerFile).task.progress).toEqual({done: 1, total: 3});
	});

	it('records the role and refuses bad flags with a one-line error naming the field', () => {
		const box = sandbox();
		expect(runCli(['run', '--ledger', box.ledgerFile, '--role', 'reviewer', '--', 'true'], {env: box.env}).status).toBe(0);
		expect(onlyTask(box.ledgerFile).task.role).toBe('reviewer');
		const bad = runCli(['run', '--ledger', box.ledgerFile, '--role', 'boss', '--', 'true'], {env: box.env});
		expect(bad.status).toBe(64);
		expect(bad.stderr).toBe("controlroom: --role: expected worker|reviewer|tripwire, got 'boss'\n");
	});
});

describe('the agent environment', () => {
	it.each([
		['unset', undefined, 'undefined'],
		['development', 'development', 'development'],
	])('passes NODE_ENV on as the caller had it (%s), never set by controlroom itself', (_name, callerValue, seen) => {
		// Given a caller whose NODE_ENV is as named, when the wrapper runs a child that prints its own
		const box = sandbox();
		const result = runCli(
			['run', '--ledger', box.ledgerFile, '--', process.execPath, '-e', 'process.stdout.write(String(process.env.NODE_ENV))'],
			{env: {...box.env, NODE_ENV: callerValue}},
		);
		// Then the child saw the caller's value: the board's React mode is fixed at build time, not through the environment
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toBe(seen);
	});
});
