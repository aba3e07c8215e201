import {spawn} from 'node:child_process';
import {afterEach, describe, expect, it} from 'vitest';
import {boardAdapters} from '../../src/cli/commands/board.ts';
import {EventType} from '../../src/core/events.ts';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {groupMembers, processesWithEnv, readProcess} from '../../src/producers/proc-table.ts';
import {stopTask} from '../../src/producers/stop.ts';
import {runCli} from '../helpers/cli.ts';
import {onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {agent, isAlive, killQuietly, ledgerOf, sandbox, startCli} from './helpers.ts';

const open: Ledger[] = [];
const groups: number[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
	for (const pgid of groups.splice(0)) killQuietly(-pgid);
});

/** Runs `sh -c SCRIPT` in the background, detached (a process of nobody's task), and returns its PID. */
function unrelated(script: string): number {
	const child = spawn('sh', ['-c', script], {detached: true, stdio: 'ignore'});
	child.unref();
	groups.push(child.pid!);
	return child.pid!;
}

describe('controlroom stop', () => {
	it('ends a wrapped task whose child ignores SIGTERM with no process of its group left alive', async () => {
		// Given a wrapped agent that ignores SIGTERM and has a helper in its group that ignores it too
		const box = sandbox();
		const run = startCli(['run', '--ledger', box.ledgerFile, '--', process.execPath, agent('ignores-sigterm.mjs')], box.env);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
			what: 'running task',
			on: [onLedgerChange(box.ledgerFile)],
		});
		groups.push(task.pgid!);
		const helperPid = Number(
			await waitFor(() => /ready (\d+)/.exec(run.stdout())?.[1], {what: 'helper pid', on: [onOutput(run.child.stdout)]}),
		);
		expect(
			groupMembers(task.pgid!)
				.map(process => process.pid)
				.sort(),
		).toEqual([task.pid!, helperPid].sort());
		// When it is stopped with a short grace period
		const result = runCli(['stop', task.id.slice(0, 6), '--grace', '0.3', '--ledger', box.ledgerFile], {env: box.env});
		// Then SIGTERM was escalated to SIGKILL and nothing of the group survives
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toMatch(
			new RegExp(`^stopped ${task.id}: 2 processes \\(\\d+, \\d+\\) ended by SIGKILL after 300 ms grace`),
		);
		expect(groupMembers(task.pgid!)).toEqual([]);
		expect(isAlive(helperPid)).toBe(false);
		expect((await run.done).code).toBe(137);
		const ended = ledger.reader.task(task.id)!;
		expect(ended.status).toBe('stopped');
		expect(ended.signal).toBe('SIGKILL');
		expect(ledger.reader.eventsOf(task.id).map(event => event.type)).toContain('task.stop_requested');
	});

	it('stops a task whose child obeys SIGTERM without escalating', async () => {
		const box = sandbox();
		const run = startCli(['run', '--ledger', box.ledgerFile, '--', process.execPath, agent('sleeper.mjs')], box.env);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
			what: 'running task',
			on: [onLedgerChange(box.ledgerFile)],
		});
		groups.push(task.pgid!);
		const result = await stopTask(ledger, task.id, {graceMs: 5000});
		expect(result).toMatchObject({outcome: 'stopped', taskId: task.id, signal: 'SIGTERM', escalated: false});
		expect((await run.done).code).toBe(143);
		expect(ledger.reader.task(task.id)).toMatchObject({status: 'stopped', signal: 'SIGTERM'});
	});

	it("records a stop made from the board as the board's, not the CLI's", async () => {
		const box = sandbox();
		const run = startCli(['run', '--ledger', box.ledgerFile, '--', process.execPath, agent('sleeper.mjs')], box.env);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
			what: 'running task',
			on: [onLedgerChange(box.ledgerFile)],
		});
		groups.push(task.pgid!);
		// The function the board's `s` key calls, wired as `controlroom board` wires it.
		const outcome = await boardAdapters(ledger).stop?.(task.id);
		expect(outcome).toMatchObject({isStopped: true});
		expect((await run.done).code).toBe(143);
		const requests = ledger.reader.eventsOf(task.id).filter(event => event.type === EventType.stopRequested);
		expect(requests.map(event => event.source)).toEqual(['board']);
	});

	it('refuses a task whose PID is unknown, and says why', async () => {
		const box = sandbox();
		const payload = {session_id: 'no-pid', hook_event_name: 'SessionStart', cwd: '/repo', source: 'startup'};
		expect(
			runCli(['ingest', '--ledger', box.ledgerFile, '--agent', 'claude'], {env: box.env, input: `${JSON.stringify(payload)}\n`})
				.status,
		).toBe(0);
		const result = runCli(['stop', 'no-pid', '--ledger', box.ledgerFile], {env: box.env});
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/cannot be stopped: no producer reported its PID/);
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		const task = ledger.reader.resolveTask('no-pid')!;
		expect(task.status).toBe('running');
		expect(await stopTask(ledger, 'no-pid')).toMatchObject({outcome: 'refused', reason: 'pid-unknown', taskId: task.id});
		expect(await stopTask(ledger, 'nothing-like-this')).toMatchObject({outcome: 'refused', reason: 'not-found', taskId: null});
	});

	it('never signals a PID an ingested envelope names unless its start time matches and it is the agent', async () => {
		// Given an unrelated `sleep`, and three hook sessions whose envelopes name its PID: without a
		// start time, with another start time, and with its true start time (but it is no claude)
		const box = sandbox();
		const sleeper = unrelated('exec sleep 60');
		await waitFor(() => readProcess(sleeper)?.name === 'sleep', {what: 'the sleep running'});
		const truth = readProcess(sleeper)!;
		const envelope = (session: string, extra: Record<string, unknown>) =>
			JSON.stringify({
				at: new Date().toISOString(),
				source: 'claude',
				pid: sleeper,
				payload: {session_id: session, hook_event_name: 'SessionStart', cwd: '/repo'},
				...extra,
			});
		const lines = [
			envelope('no-start', {}),
			envelope('other-start', {ancestors: [{pid: sleeper, startTime: truth.startTime + 7, name: 'claude'}]}),
			envelope('true-start', {ancestors: [{pid: sleeper, startTime: truth.startTime, name: 'sleep'}]}),
		];
		const ingest = runCli(['ingest', '--ledger', box.ledgerFile], {env: box.env, input: `${lines.join('\n')}\n`});
		expect(ingest.status, ingest.stderr).toBe(0);
		// When each is stopped
		const outcomes = ['no-start', 'other-start', 'true-start'].map(session =>
			runCli(['stop', session, '--grace', '0', '--json', '--ledger', box.ledgerFile], {env: box.env}),
		);
		// Then each is refused, saying why, and the sleep lives on
		expect(outcomes.map(run => run.status)).toEqual([1, 1, 1]);
		expect(outcomes.map(run => JSON.parse(run.stdout).reason)).toEqual(['pid-reused', 'pid-reused', 'pid-reused']);
		expect(outcomes[0]?.stdout).toContain('was recorded without its start time');
		expect(outcomes[1]?.stdout).toContain('start time differs');
		expect(outcomes[2]?.stdout).toContain('is not the agent');
		expect(isAlive(sleeper)).toBe(true);
	});

	it('ends processes the wrapped child moved to another process group or session, and says so only when all are gone', async () => {
		// Given a wrapped shell with job control (its job gets a group of its own) that also starts a setsid grandchild
		const box = sandbox();
		const script = `set -m; ${process.execPath} ${agent('sleeper.mjs')} & setsid ${process.execPath} ${agent('sleeper.mjs')} & wait`;
		const run = startCli(['run', '--ledger', box.ledgerFile, '--', 'sh', '-c', script], box.env);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
			what: 'running task',
			on: [onLedgerChange(box.ledgerFile)],
		});
		groups.push(task.pgid!);
		const marked = () => processesWithEnv('CONTROLROOM_TASK_ID', task.id).map(process => process.pid);
		// A job leaves the shell's group only once its setpgid/setsid has run: wait for that, not just for the processes.
		const groupsOf = (pids: number[]) => new Set(pids.map(pid => readProcess(pid)?.pgid));
		const sleepers = await waitFor(
			() => {
				const pids = marked();
				return pids.length >= 3 && groupsOf(pids).size > 1 ? pids : undefined;
			},
			{what: 'shell and two sleepers, in more than one process group'},
		);
		expect(groupsOf(sleepers).size).toBeGreaterThan(1);
		// When it is stopped
		const result = await stopTask(ledger, task.id, {graceMs: 2000});
		// Then every one of them is gone, and the stop names them
		expect(result).toMatchObject({outcome: 'stopped', signal: 'SIGTERM'});
		expect(sleepers.filter(isAlive)).toEqual([]);
		expect(result.outcome === 'stopped' ? [...result.pids].sort() : []).toEqual(expect.arrayContaining(sleepers.sort()));
		await run.done;
	});
});
