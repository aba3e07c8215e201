import {afterEach, describe, expect, it} from 'vitest';
import {boardAdapters} from '../../src/cli/commands/board.ts';
import {EventType} from '../../src/core/events.ts';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {groupMembers} from '../../src/producers/proc-table.ts';
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
		expect(result.stdout).toContain(`stopped ${task.id}: process group ${task.pgid} ended by SIGKILL after 300 ms grace`);
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
});
