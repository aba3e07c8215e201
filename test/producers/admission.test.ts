import {mkdirSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {runCli} from '../helpers/cli.ts';
import {onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {agent, killQuietly, ledgerOf, sandbox, startCli, type Started} from './helpers.ts';

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

describe('admission slots', () => {
	it('never runs more than two writers of one repository at once; the third starts when a slot frees', async () => {
		const box = sandbox();
		const repo = repository(box.dir);
		// Given three writing runs of 0.6 s in one repository (one from a subfolder) with 2 slots
		const runs = ['a', 'b', 'c'].map((title, index) =>
			startRun(box, index === 2 ? join(repo, 'sub') : repo, title, ['sleep', '0.6']),
		);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		// When the test samples the ledger until all three have ended
		let most = 0;
		await waitFor(
			() => {
				const active = ledger.reader.tasksWithStatus(['registered', 'running']).length;
				most = Math.max(most, active);
				return ledger.reader.tasksWithStatus(['done']).length === 3;
			},
			{what: 'three runs done', timeoutMs: 15_000, on: [onLedgerChange(box.ledgerFile)]},
		);
		for (const run of runs) expect((await run.done).code).toBe(0);
		// Then at most two ran at once, and the last to start started after one of the first two ended
		expect(most).toBe(2);
		const tasks = ledger.reader.tasksForView(null).sort((left, right) => left.createdAt - right.createdAt);
		const [first, second, third] = tasks;
		expect(third!.createdAt).toBeGreaterThanOrEqual(Math.min(first!.endedAt!, second!.endedAt!));
		expect(runs.map(run => run.stderr()).join('')).toMatch(/waiting for a slot in .*repo \(held by w-/);
	});

	/** Starts two sleeping runs in `repo` and waits until both hold a slot (their groups are cleaned up after). */
	async function startTwoHolders(box: ReturnType<typeof sandbox>, repo: string) {
		const holders = ['one', 'two'].map(title => startRun(box, repo, title, [process.execPath, agent('sleeper.mjs')]));
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const running = await waitFor(
			() => {
				const tasks = ledger.reader.tasksWithStatus(['running']);
				return tasks.length === 2 && tasks;
			},
			{what: 'two holders running', on: [onLedgerChange(box.ledgerFile)]},
		);
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
		// When one holder's wrapper is SIGKILLed, the third gets its slot at once
		const killedAt = Date.now();
		holders[0]!.child.kill('SIGKILL');
		expect((await third.done).code).toBe(0);
		const thirdTask = ledger.reader.tasksForView(null).find(task => task.title === 'third')!;
		expect(thirdTask.status).toBe('done');
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
});
