import {chmodSync, mkdirSync, writeFileSync} from 'node:fs';
import {spawn} from 'node:child_process';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {readProcessTable} from '../../src/producers/proc-table.ts';
import type {ReconcileResult} from '../../src/producers/reconciler.ts';
import {runCli} from '../helpers/cli.ts';
import {onExit, onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {agent, isAlive, killQuietly, ledgerOf, pastDiscoveryGrace, sandbox, startCli} from './helpers.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

const open: Ledger[] = [];
const pids: number[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
	for (const pid of pids.splice(0)) killQuietly(pid);
});

function reconcile(box: ReturnType<typeof sandbox>): ReconcileResult {
	// --ledger names a file in a folder that must exist (main's first-minute rule); a first pass may run before anything made it
	const result = runCli(['reconcile', '--once', '--json', '--ledger', box.ledgerFile], {env: box.env});
	expect(result.status, result.stderr).toBe(0);
	return JSON.parse(result.stdout) as ReconcileResult;
}

/** Lost wrapper tasks only: agents of the machine (or of tests running beside) may come and go as untracked rows. */
function lostWrapped(result: ReconcileResult): string[] {
	return result.lost.map(entry => entry.taskId).filter(id => id.startsWith('w-'));
}

/** A fake agent executable whose kernel name is `codex` (a script run through its shebang). */
function fakeCodex(dir: string): string {
	const file = join(dir, 'codex');
	writeFileSync(
		file,
		`#!${process.execPath}\nprocess.stdout.write('codex ' + process.pid + '\\n');\nsetTimeout(() => {}, 60000);\n`,
	);
	chmodSync(file, 0o755);
	return file;
}

async function wrappedSleeper(box: ReturnType<typeof sandbox>) {
	const run = startCli(['run', '--ledger', box.ledgerFile, '--', process.execPath, agent('sleeper.mjs')], box.env);
	pids.push(run.child.pid!);
	const ledger = await ledgerOf(box.ledgerFile);
	open.push(ledger);
	const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
		what: 'running task',
		on: [onLedgerChange(box.ledgerFile)],
	});
	pids.push(task.pid!, -task.pgid!);
	// Its output went through before the wrapper dies: a later write to the dead wrapper's pipe would end it (EPIPE).
	await waitFor(() => run.stdout().includes(`pid ${task.pid}`), {what: 'child output', on: [onOutput(run.child.stdout)]});
	return {run, ledger, task};
}

describe('controlroom reconcile', () => {
	it('marks a task lost after SIGKILL of the wrapper and its child, in one pass', async () => {
		const box = sandbox();
		const {run, ledger, task} = await wrappedSleeper(box);
		run.child.kill('SIGKILL');
		process.kill(-task.pgid!, 'SIGKILL');
		// The agent is the wrapper's child, not ours: nothing tells us it ended (polled).
		await waitFor(() => !isAlive(task.pid!) && !isAlive(run.child.pid!), {what: 'both gone', timeoutMs: 5000});
		const result = reconcile(box);
		expect(lostWrapped(result)).toEqual([task.id]);
		expect(ledger.reader.task(task.id)?.status).toBe('lost');
	});

	it('keeps a task running while its child lives after SIGKILL of the wrapper alone, then lost once it dies', async () => {
		const box = sandbox();
		const {run, ledger, task} = await wrappedSleeper(box);
		run.child.kill('SIGKILL');
		await run.done;
		expect(isAlive(task.pid!)).toBe(true);
		expect(lostWrapped(reconcile(box))).toEqual([]);
		expect(ledger.reader.task(task.id)?.status).toBe('running');
		process.kill(-task.pgid!, 'SIGKILL');
		await waitFor(() => !isAlive(task.pid!), {what: 'child gone', timeoutMs: 5000});
		expect(lostWrapped(reconcile(box))).toEqual([task.id]);
		expect(ledger.reader.task(task.id)?.status).toBe('lost');
	});

	it('records a codex process started outside the wrapper as untracked, and ends it (not lost) after it exits', async () => {
		const box = sandbox();
		freshLedgerFile(box.home);
		const codex = spawn(fakeCodex(box.dir), [], {stdio: ['ignore', 'pipe', 'ignore']});
		const pid = codex.pid!;
		pids.push(pid);
		await new Promise(resolve => codex.stdout.once('data', resolve));
		// A new agent process is left to its own hook for a moment before it counts as untracked.
		await pastDiscoveryGrace(pid);
		const first = reconcile(box);
		const found = first.discovered.find(entry => entry.pid === pid);
		expect(found?.name).toBe('codex');
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		const row = ledger.reader.task(found!.taskId)!;
		expect(row.status).toBe('untracked');
		expect(row.pid).toBe(pid);
		// A second pass adds nothing for the same process.
		expect(reconcile(box).discovered.find(entry => entry.pid === pid)).toBeUndefined();
		codex.kill('SIGKILL');
		await waitFor(() => !isAlive(pid), {what: 'codex gone', timeoutMs: 5000, on: [onExit(codex)]});
		// It was never tracked work: it leaves the live lanes as ended, outcome unknown, and LOST stays empty.
		const after = reconcile(box);
		expect(after.lost.map(entry => entry.taskId)).not.toContain(found!.taskId);
		expect(after.ended.map(entry => entry.taskId)).toContain(found!.taskId);
		expect(ledger.reader.task(found!.taskId)).toMatchObject({
			status: 'vanished',
			exitCode: null,
			endReason: `process ${pid} went away; it was never tracked, so how it ended is unknown`,
		});
		const snapshot = runCli(['snapshot', '--json', '--fail-on', 'lost', '--ledger', box.ledgerFile], {env: box.env});
		expect(snapshot.status, snapshot.stdout).toBe(0);
		const view = JSON.parse(snapshot.stdout) as {tasks: {id: string; lane: string; endReason: string | null}[]};
		expect(view.tasks.find(task => task.id === found!.taskId)).toMatchObject({
			lane: 'ended',
			endReason: expect.stringContaining('unknown'),
		});
	});

	it("never records a wrapped run's own agent as untracked while it shuts down after its task ended (a budget stop)", async () => {
		// Given a run that has ended (as a budget stop records it before its agent is gone)
		const box = sandbox();
		expect(runCli(['run', '--ledger', box.ledgerFile, '--', 'true'], {env: box.env}).status).toBe(0);
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		const [ended] = ledger.reader.tasksForView(null);
		expect(ended?.status).toBe('done');
		// When an agent process carrying that run's id (the wrapper gives it to its child) is still alive, and a stranger beside it
		const start = (taskId: string) => {
			const child = spawn(fakeCodex(box.dir), [], {
				stdio: ['ignore', 'pipe', 'ignore'],
				env: {...box.env, CONTROLROOM_TASK_ID: taskId},
			});
			pids.push(child.pid!);
			return child;
		};
		const own = start(ended!.id);
		const stranger = start('w-not-in-this-ledger');
		await Promise.all([own, stranger].map(child => new Promise(resolve => child.stdout!.once('data', resolve))));
		await pastDiscoveryGrace(own.pid!);
		await pastDiscoveryGrace(stranger.pid!);
		// Then a pass records the stranger as untracked, and never the run's own agent
		const found = reconcile(box).discovered.map(entry => entry.pid);
		expect(found).toContain(stranger.pid);
		expect(found).not.toContain(own.pid);
	});

	it('never reports a wrapped agent, or agents its command started, as untracked', async () => {
		const box = sandbox();
		const codex = fakeCodex(box.dir);
		// The wrapped command is a shell that starts one codex as its child and one as a grandchild.
		const script = `'${codex}' & sh -c "'${codex}'" & wait`;
		const run = startCli(['run', '--ledger', box.ledgerFile, '--', 'sh', '-c', script], box.env);
		pids.push(run.child.pid!);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
			what: 'running task',
			on: [onLedgerChange(box.ledgerFile)],
		});
		pids.push(-task.pgid!); // the whole group goes at the end, even when an assertion fails first
		await waitFor(() => (run.stdout().match(/codex \d+/g) ?? []).length === 2, {
			what: 'two codex processes',
			on: [onOutput(run.child.stdout)],
		});
		const ours = [...readProcessTable().values()].filter(process => process.pgid === task.pgid && process.name === 'codex');
		expect(ours).toHaveLength(2);
		const result = reconcile(box);
		expect(result.discovered.filter(entry => ours.some(process => process.pid === entry.pid))).toEqual([]);
		process.kill(-task.pgid!, 'SIGKILL');
		await run.done;
	});

	it('folds spool files through the ingest path, each envelope once', () => {
		const box = sandbox();
		const payload = {session_id: 's-1', hook_event_name: 'SessionStart', cwd: '/repo', source: 'startup'};
		const spool = join(box.home, 'spool');
		const env = {at: new Date().toISOString(), source: 'claude', payload, id: 'fixed-1'};
		runCli(['ingest', '--ledger', box.ledgerFile], {env: box.env, input: ''});
		for (const name of ['a', 'b']) {
			const file = join(spool, `${name}.jsonl`);
			mkdirSync(spool, {recursive: true});
			writeFileSync(file, `${JSON.stringify(env)}\n`);
		}
		const result = reconcile(box);
		expect(result.spool.files).toBe(2);
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		// Untracked agents of the machine may land here too: look at the session's task only.
		const session = ledger.reader.resolveTask('s-1')!;
		expect(ledger.reader.eventsOf(session.id).filter(event => event.type === 'agent.event')).toHaveLength(1);
		expect(reconcile(box).spool.files).toBe(0);
	});
});
