import {afterEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {groupMembers} from '../../src/producers/proc-table.ts';
import {runCli} from '../helpers/cli.ts';
import {onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {isAlive, killQuietly, ledgerOf, sandbox, startCli} from '../producers/helpers.ts';

const open: Ledger[] = [];
const leftovers: number[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
	for (const pid of leftovers.splice(0)) killQuietly(pid);
});

/** Lines `pid N` the shell prints for the processes it leaves behind, so the test can clean them up. */
function printedPids(text: string): number[] {
	return [...text.matchAll(/pid (\d+)/g)].map(match => Number(match[1]));
}

describe('a wrapped child that leaves processes behind', () => {
	it("records `sh -c 'sleep 20 & echo hi'` ended within 1 s of sh exiting, names the sleep it left, and frees its slot", async () => {
		// Given a run whose shell starts a background sleep (which keeps the output pipes open) and exits
		const box = sandbox();
		const script = 'sleep 20 & echo "hi pid $!"; date +%s%3N';
		const run = startCli(['run', '--slots', '1', '--ledger', box.ledgerFile, '--', 'sh', '-c', script], box.env, box.dir);
		const ended = await run.done;
		const [sleepPid] = printedPids(run.stdout());
		leftovers.push(sleepPid!);
		// Then the wrapper itself ended long before the sleep, with sh's code, the sleep still alive
		expect(ended.code).toBe(0);
		expect(isAlive(sleepPid!)).toBe(true);
		const shellEndedAt = Number(run.stdout().trim().split('\n').at(-1));
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const [task] = ledger.reader.tasksForView(null);
		const exited = ledger.reader.latestEventsOf(task!.id, [EventType.exited], 1)[0]!;
		const lag = exited.at - shellEndedAt;
		console.log(`exit recorded ${lag} ms after sh printed its last line`);
		expect(lag).toBeLessThan(1000);
		expect(task).toMatchObject({status: 'done', exitCode: 0});
		expect(exited.data.leftRunning).toEqual([{pid: sleepPid, name: 'sleep'}]);
		expect(run.stderr()).toContain(`left 1 process running: sleep (pid ${sleepPid})`);
		// And its one slot is free: a run that will not wait gets it
		const next = runCli(['run', '--slots', '1', '--no-wait', '--ledger', box.ledgerFile, '--', 'true'], {
			env: box.env,
			cwd: box.dir,
		});
		expect(next.status, next.stderr).toBe(0);
	});

	it('is not held by a grandchild that escaped the group with setsid, and names it', async () => {
		const box = sandbox();
		const run = startCli(
			['run', '--ledger', box.ledgerFile, '--', 'sh', '-c', 'setsid sleep 20 & echo "pid $!"'],
			box.env,
			box.dir,
		);
		const ended = await run.done;
		leftovers.push(...printedPids(run.stdout()));
		expect(ended.code).toBe(0);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const [task] = ledger.reader.tasksForView(null);
		const exited = ledger.reader.latestEventsOf(task!.id, [EventType.exited], 1)[0]!;
		// The escapee is in no group of ours: it is found because it holds the run's output pipe
		expect(exited.data.leftRunning?.map(process => process.name)).toEqual(['sleep']);
	});
});

describe('controlroom stop on a group that needs SIGKILL', () => {
	it('records one task.stopped, with SIGKILL, when the shell dies of SIGTERM but a member of its group ignores it', async () => {
		// Given a shell (which dies of SIGTERM) with a background member that ignores SIGTERM, and a
		// grandchild that escaped the group with setsid and holds the output pipe
		const box = sandbox();
		const script =
			'(trap "" TERM; echo "ready pid $(exec sh -c \'echo $PPID\')"; exec sleep 30) & setsid sleep 30 & echo "pid $!"; wait';
		const run = startCli(['run', '--ledger', box.ledgerFile, '--', 'sh', '-c', script], box.env, box.dir);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		await waitFor(() => /ready pid \d+/.test(run.stdout()) && printedPids(run.stdout()).length >= 2, {
			what: 'the shell and its members started',
			on: [onOutput(run.child.stdout)],
		});
		leftovers.push(...printedPids(run.stdout()));
		const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
			what: 'the running task',
			on: [onLedgerChange(box.ledgerFile)],
		});
		// When it is stopped with a short grace
		const stop = runCli(['stop', task.id, '--grace', '0.5', '--ledger', box.ledgerFile], {env: box.env});
		// Then the stop says SIGKILL, the group is gone, the wrapper ended 137, and the row says SIGKILL, once
		expect(stop.status, stop.stderr).toBe(0);
		expect(stop.stdout).toContain('ended by SIGKILL after 500 ms grace');
		expect(groupMembers(task.pgid!)).toEqual([]);
		expect((await run.done).code).toBe(137);
		expect(ledger.reader.task(task.id)).toMatchObject({status: 'stopped', signal: 'SIGKILL'});
		const ends = ledger.reader.eventsOf(task.id).filter(event => event.type === EventType.stopped);
		expect(ends).toHaveLength(1);
	});
});
