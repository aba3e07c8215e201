import {execFileSync} from 'node:child_process';
import {mkdirSync, realpathSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import type {Task} from '../../src/core/task.ts';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {runCli} from '../helpers/cli.ts';
import {onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {agent, isAlive, killQuietly, ledgerOf, sandbox, startCli, type Started} from './helpers.ts';

const open: Ledger[] = [];
const started: Started[] = [];
afterEach(async () => {
	for (const ledger of open.splice(0)) ledger.close();
	for (const run of started.splice(0)) killQuietly(run.child.pid);
});

/** A scratch git checkout: admission is per repository. */
function repository(dir: string): string {
	const repo = join(dir, 'repo');
	mkdirSync(join(repo, '.git'), {recursive: true});
	mkdirSync(join(repo, 'sub'), {recursive: true});
	return repo;
}

function startRun(
	box: ReturnType<typeof sandbox>,
	cwd: string,
	title: string,
	command: readonly string[],
	extra: readonly string[] = [],
): Started {
	const run = startCli(
		['run', '--ledger', box.ledgerFile, '--title', title, '--slots', '2', '--cwd', cwd, ...extra, '--', ...command],
		box.env,
	);
	started.push(run);
	return run;
}

/** A run whose agent holds its slot until the test writes `release-TITLE` (see holds-until-released.mjs). */
function startHolder(box: ReturnType<typeof sandbox>, cwd: string, title: string): {run: Started; release: () => void} {
	const file = join(box.dir, `release-${title}`);
	const run = startRun(box, cwd, title, [process.execPath, agent('holds-until-released.mjs'), file]);
	return {run, release: () => writeFileSync(file, '')};
}

/** The most tasks that held a slot at one time, from the ledger's own times: [created, ended). */
function mostAtOnce(tasks: readonly Task[]): number {
	const edges = tasks.flatMap(task => [
		{at: task.createdAt, step: 1},
		{at: task.endedAt ?? Number.POSITIVE_INFINITY, step: -1},
	]);
	// An end and a start in the same millisecond: the end first (the slot was freed, then taken).
	edges.sort((left, right) => left.at - right.at || left.step - right.step);
	let now = 0;
	let most = 0;
	for (const edge of edges) {
		now += edge.step;
		most = Math.max(most, now);
	}
	return most;
}

/** Waits until `count` tasks of the ledger are running. */
async function untilRunning(ledger: Ledger, file: string, count: number): Promise<Task[]> {
	return waitFor(
		() => {
			const tasks = ledger.reader.tasksWithStatus(['running']);
			return tasks.length === count && tasks;
		},
		{what: `${count} running`, on: [onLedgerChange(file)]},
	);
}

describe('admission slots', () => {
	it('never runs more than two writers of one repository at once; the third starts when a slot frees', async () => {
		const box = sandbox();
		const repo = repository(box.dir);
		// Given two writing runs in one repository with 2 slots, each holding until the test releases it
		const first = startHolder(box, repo, 'a');
		const second = startHolder(box, repo, 'b');
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const holders = await untilRunning(ledger, box.ledgerFile, 2);
		for (const task of holders) started.push({child: {pid: -task.pgid!}} as Started);
		// When a third starts from a subfolder of the same checkout
		const third = startRun(box, join(repo, 'sub'), 'c', ['true']);
		// Then it waits, naming the holders, and has no row while it waits
		await waitFor(() => /waiting for a slot in .*repo \(held by w-/.test(third.stderr()), {
			what: 'the third to say it waits',
			on: [onOutput(third.child.stderr)],
		});
		expect(ledger.reader.tasksForView(null).map(task => task.title)).not.toContain('c');
		// And it starts once the first is released, while the second still holds its slot
		first.release();
		expect((await third.done).code).toBe(0);
		expect(ledger.reader.task(holders.find(task => task.title === 'b')!.id)?.status).toBe('running');
		second.release();
		expect((await first.run.done).code).toBe(0);
		expect((await second.run.done).code).toBe(0);
		// So at most two ran at once, and the third started after the first ended
		const tasks = ledger.reader.tasksForView(null);
		expect(tasks.map(task => task.status)).toEqual(['done', 'done', 'done']);
		expect(mostAtOnce(tasks)).toBe(2);
		const byTitle = new Map(tasks.map(task => [task.title, task]));
		expect(byTitle.get('c')!.createdAt).toBeGreaterThanOrEqual(byTitle.get('a')!.endedAt!);
	});

	/** Starts two runs in `repo` that hold their slots until the end of the test (their groups are cleaned up after). */
	async function startTwoHolders(box: ReturnType<typeof sandbox>, repo: string) {
		const holders = ['one', 'two'].map(title => startHolder(box, repo, title).run);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const running = await untilRunning(ledger, box.ledgerFile, 2);
		for (const task of running) started.push({child: {pid: -task.pgid!}} as Started);
		return {holders, ledger, running};
	}

	it('frees a slot at once when its holder is SIGKILLed, and --no-wait exits 75 naming the holders', async () => {
		const box = sandbox();
		const repo = repository(box.dir);
		const {holders, ledger, running} = await startTwoHolders(box, repo);
		// --no-wait: refused with the holders named
		const refused = runCli(['run', '--ledger', box.ledgerFile, '--slots', '2', '--cwd', repo, '--no-wait', '--', 'true'], {
			env: box.env,
		});
		expect(refused.status).toBe(75);
		const lines = refused.stderr.trim().split('\n');
		expect(lines).toHaveLength(1);
		for (const task of running) expect(lines[0]).toContain(task.id);
		// A waiting third run
		const third = startRun(box, repo, 'third', ['true']);
		await waitFor(() => third.stderr().includes('waiting for a slot'), {
			what: 'third waiting',
			on: [onOutput(third.child.stderr)],
		});
		// When one holder's wrapper is SIGKILLed, the third gets its slot at once: while that holder's
		// agent still runs (it holds until released, and is never released here), so the kernel freed
		// the slot when the wrapper died, not when its agent ended
		const killedAt = Date.now();
		const killedAgent = running.find(task => task.title === 'one')!;
		holders[0]!.child.kill('SIGKILL');
		expect((await third.done).code).toBe(0);
		expect(isAlive(killedAgent.pid!)).toBe(true);
		const thirdTask = ledger.reader.tasksForView(null).find(task => task.title === 'third')!;
		expect(thirdTask.status).toBe('done');
		process.stderr.write(`admission: the third took its slot ${thirdTask.createdAt - killedAt} ms after the holder was killed\n`);
		expect(thirdTask.createdAt - killedAt).toBeLessThan(1500);
	});

	it('lets a reviewer run without a slot', async () => {
		const box = sandbox();
		const repo = repository(box.dir);
		await startTwoHolders(box, repo);
		const reviewer = runCli(
			['run', '--ledger', box.ledgerFile, '--slots', '2', '--cwd', repo, '--role', 'reviewer', '--no-wait', '--', 'true'],
			{env: box.env},
		);
		expect(reviewer.status).toBe(0);
	});

	it('shares one pool among the worktrees of one repository: two worktrees hold both slots, a third worktree waits', async () => {
		// Given a real repository with two linked worktrees besides its main checkout
		const box = sandbox();
		const repo = join(box.dir, 'shared');
		const env = {
			...process.env,
			GIT_AUTHOR_NAME: 't',
			GIT_AUTHOR_EMAIL: 't@t',
			GIT_COMMITTER_NAME: 't',
			GIT_COMMITTER_EMAIL: 't@t',
		};
		const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], {env, stdio: 'ignore'});
		mkdirSync(repo);
		git('init', '--quiet');
		git('commit', '--quiet', '--allow-empty', '-m', 'start');
		const left = join(box.dir, 'left');
		const right = join(box.dir, 'right');
		git('worktree', 'add', '--quiet', '-b', 'left', left);
		git('worktree', 'add', '--quiet', '-b', 'right', right);
		// When one run holds a slot in each linked worktree (each has its own .git file)
		const holders = [startHolder(box, left, 'in-left'), startHolder(box, right, 'in-right')];
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const running = await untilRunning(ledger, box.ledgerFile, 2);
		for (const task of running) started.push({child: {pid: -task.pgid!}} as Started);
		// Then the main checkout has no slot left: --no-wait is refused naming both, under the repository's name
		const refused = runCli(['run', '--ledger', box.ledgerFile, '--slots', '2', '--cwd', repo, '--no-wait', '--', 'true'], {
			env: box.env,
		});
		expect(refused.status).toBe(75);
		expect(refused.stderr).toContain(`no free slot in ${realpathSync(repo)}: 2 of 2 held by`);
		for (const task of running) expect(refused.stderr).toContain(task.id);
		// And a run --worktree of its own waits for the same pool, and starts once one is released
		const third = startRun(box, repo, 'third', ['true'], ['--worktree', 'third']);
		await waitFor(() => third.stderr().includes('waiting for a slot'), {
			what: 'third waiting',
			on: [onOutput(third.child.stderr)],
		});
		holders[0]!.release();
		expect((await third.done).code).toBe(0);
		holders[1]!.release();
		expect((await holders[0]!.run.done).code).toBe(0);
		expect((await holders[1]!.run.done).code).toBe(0);
	});
});
