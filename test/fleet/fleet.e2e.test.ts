import {spawn} from 'node:child_process';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {Snapshot, SnapshotTask} from '../../src/core/snapshot.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli} from '../helpers/cli.ts';
import {every, freshDatabase, onFleetNotice, query, stopOwnPgServer, waitForQuery} from '../helpers/pg.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {agent, isAlive, killQuietly, pastDiscoveryGrace, type Started} from '../producers/helpers.ts';
import {fleetEvents, hostIdOf, localEvents, startAs, testHost, type TestHost} from './helpers.ts';

const hosts = {alpha: testHost('alpha'), beta: testHost('beta'), gamma: testHost('gamma')};
const all = Object.values(hosts);
const background: Started[] = [];
const strays: number[] = [];
const syncs = new Map<TestHost, Started>();
const tmux = new Tmux();
let url = '';

function taskWith(host: TestHost, title: string) {
	const ledger = openLedger(host.ledgerFile);
	try {
		return ledger.reader.tasksForView(null).find(task => task.title === title);
	} finally {
		ledger.close();
	}
}

/** Runs a wrapped command to its end on a host. */
function runToEnd(host: TestHost, title: string, command: readonly string[]): void {
	runCli(['run', '--ledger', host.ledgerFile, '--title', title, '--', ...command], {env: host.env});
}

const wrappers: Started[] = [];

/** Starts a wrapped agent that sleeps (as long as the tests need) on a host, and waits until it is running. */
async function startSleeper(host: TestHost, title: string): Promise<Started> {
	const started = startAs(host, ['run', '--ledger', host.ledgerFile, '--title', title, '--', 'sleep', '600']);
	background.push(started);
	wrappers.push(started);
	await waitFor(() => taskWith(host, title)?.status === 'running', {
		what: `${title} running`,
		on: [onLedgerChange(host.ledgerFile)],
	});
	return started;
}

function startSync(host: TestHost): Started {
	const sync = startAs(host, ['sync', '--to', url, '--interval', '1', '--ledger', host.ledgerFile]);
	background.push(sync);
	syncs.set(host, sync);
	return sync;
}

function snapshotOf(ledger: string, env: NodeJS.ProcessEnv): Snapshot {
	const result = runCli(['snapshot', '--json', '--all', '--ledger', ledger], {env});
	expect(result.status, result.stderr).toBe(0);
	return JSON.parse(result.stdout) as Snapshot;
}

/** A task as two snapshots taken moments apart must agree on it: everything but the idle seconds. */
const comparable = (task: SnapshotTask) => ({...task, idleSeconds: 0});
const byHostAndId = (a: SnapshotTask, b: SnapshotTask) => (a.host ?? '').localeCompare(b.host ?? '') || a.id.localeCompare(b.id);

beforeAll(async () => {
	url = await freshDatabase();
	// alpha: done, failed, running; and a need from an agent session (the human queue)
	runToEnd(hosts.alpha, 'alpha done', [process.execPath, '-e', '0']);
	runToEnd(hosts.alpha, 'alpha failed', [process.execPath, '-e', 'process.exit(3)']);
	await startSleeper(hosts.alpha, 'alpha running');
	const need = {
		session_id: 'alpha-needs',
		hook_event_name: 'Notification',
		cwd: '/repo',
		message: 'Claude needs your permission',
	};
	expect(
		runCli(['ingest', '--ledger', hosts.alpha.ledgerFile, '--agent', 'claude'], {
			env: hosts.alpha.env,
			input: `${JSON.stringify(need)}\n`,
		}).status,
	).toBe(0);
	// beta: failed to spawn (127), stopped, running (the fleet stops it)
	runToEnd(hosts.beta, 'beta cannot spawn', ['/nonexistent/agent']);
	await startSleeper(hosts.beta, 'beta stopped');
	expect(
		runCli(['stop', taskWith(hosts.beta, 'beta stopped')?.id ?? '', '--ledger', hosts.beta.ledgerFile], {env: hosts.beta.env})
			.status,
	).toBe(0);
	await startSleeper(hosts.beta, 'beta running');
	// gamma: lost (its wrapper and child killed with no exit recorded), untracked, running
	const doomed = await startSleeper(hosts.gamma, 'gamma lost');
	const doomedTask = taskWith(hosts.gamma, 'gamma lost');
	doomed.child.kill('SIGKILL');
	killQuietly(-(doomedTask?.pgid ?? 0));
	await doomed.done;
	const stray = spawn(process.execPath, [agent('sleeper.mjs'), 'crfleetstray'], {stdio: ['ignore', 'pipe', 'ignore']});
	strays.push(stray.pid ?? 0);
	await new Promise(resolve => stray.stdout.once('data', resolve));
	await waitFor(() => !isAlive(doomedTask?.pid ?? 0), {what: 'the lost task gone'});
	// A new agent process is left its discovery grace to register itself before it is untracked.
	await pastDiscoveryGrace(stray.pid ?? 0);
	expect(
		runCli(['reconcile', '--once', '--agents', 'crfleetstray', '--ledger', hosts.gamma.ledgerFile], {env: hosts.gamma.env})
			.status,
	).toBe(0);
	await startSleeper(hosts.gamma, 'gamma running');
	for (const host of all) startSync(host);
}, 120_000);

afterAll(async () => {
	tmux.kill();
	for (const started of background) killQuietly(started.child.pid, 'SIGTERM');
	for (const pid of strays) killQuietly(pid);
	// A fast shutdown ends the syncs' connections; they are stopping anyway.
	await stopOwnPgServer();
});

describe('a fleet of three hosts on one PostgreSQL', () => {
	it('holds tasks in every status, and its snapshot is the union of the three local snapshots (plus host)', async () => {
		const statuses = new Set(
			all.flatMap(host => {
				const ledger = openLedger(host.ledgerFile);
				const rows = ledger.reader.tasksForView(null).map(task => task.status);
				ledger.close();
				return rows;
			}),
		);
		expect([...statuses].sort()).toEqual(['done', 'failed', 'lost', 'running', 'stopped', 'untracked']);
		// The wrappers' heartbeats (every 15 s) are held while the snapshots are taken, so the local and
		// fleet snapshots describe the same events; the agents themselves run on.
		for (const wrapper of wrappers) if (wrapper.child.exitCode === null) wrapper.child.kill('SIGSTOP');
		const notices = await onFleetNotice(url);
		try {
			const lastSeqs = all.map(host => localEvents(host).at(-1)?.seq ?? 0);
			await waitForQuery(
				async () => {
					const shipped = await Promise.all(all.map(async host => (await fleetEvents(url, hostIdOf(host))).at(-1)?.seq ?? 0));
					return shipped.every((seq, index) => seq === lastSeqs[index]);
				},
				{what: 'every host shipped', timeoutMs: 30_000, on: [notices.wakeup, every(500)]},
			);
			const pair = {
				locals: all.map(host => snapshotOf(host.ledgerFile, host.env)),
				fleet: snapshotOf(url, {...process.env, CONTROLROOM_HOST: 'desk'}),
			};
			expect(all.map(host => localEvents(host).at(-1)?.seq ?? 0)).toEqual(lastSeqs);
			const union = pair.locals
				.flatMap(snapshot => snapshot.tasks)
				.map(comparable)
				.sort(byHostAndId);
			expect(pair.fleet.tasks.map(comparable).sort(byHostAndId)).toEqual(union);
			expect(new Set(pair.fleet.tasks.map(task => task.host))).toEqual(new Set(['alpha', 'beta', 'gamma']));
			for (const status of Object.keys(pair.fleet.counts) as (keyof Snapshot['counts'])[]) {
				expect(pair.fleet.counts[status], status).toBe(pair.locals.reduce((sum, snapshot) => sum + snapshot.counts[status], 0));
			}
			expect(pair.fleet.queue.total).toBe(pair.locals.reduce((sum, snapshot) => sum + snapshot.queue.total, 0));
			expect(pair.fleet.queue.lanes.flatMap(lane => lane.items).map(item => item.host)).toContain('alpha');
			expect(pair.fleet.hosts?.map(host => host.name).sort()).toEqual(['alpha', 'beta', 'gamma']);
			// The text names the fleet's server (never a password), its hosts, and each task's host.
			const text = runCli(['snapshot', '--all', '--ledger', url], {env: {...process.env, CONTROLROOM_HOST: 'desk'}}).stdout;
			const [first = '', , , headings = ''] = text.split('\n');
			expect(first).toContain(`fleet postgres://controlroom@${new URL(url).host}${new URL(url).pathname}`);
			expect(first).toMatch(/3 hosts: (alpha|beta|gamma), (alpha|beta|gamma), (alpha|beta|gamma)$/);
			expect(headings).toMatch(/^ {2}ID +HOST +TITLE +SOURCE/);
			expect(text).toMatch(/ alpha +alpha failed /);
		} finally {
			await notices.close();
			for (const wrapper of wrappers) if (wrapper.child.exitCode === null) wrapper.child.kill('SIGCONT');
		}
	}, 90_000);

	it("stops a task from the fleet: the right host's process group ends, and both ledgers record it", async () => {
		const target = taskWith(hosts.beta, 'beta running')!;
		const notices = await onFleetNotice(url);
		await waitForQuery(async () => (await fleetEvents(url, hostIdOf(hosts.beta))).some(event => event.taskId === target.id), {
			what: "beta's running task in the fleet",
			on: [notices.wakeup, every(500)],
		});
		// Named by the start of its title, as a person would (docs/cli.md, "Naming a task"): the fleet's own lookup
		const stop = runCli(['stop', 'Beta Runn', '--ledger', url, '--wait', '30'], {
			env: {...process.env, CONTROLROOM_HOST: 'desk'},
		});
		expect(stop.status, stop.stderr).toBe(0);
		expect(stop.stdout).toContain(`beta: stopped ${target.id}: 1 process (${target.pgid}) ended by SIGTERM`);
		await waitFor(() => !isAlive(target.pid!), {what: "beta's agent gone"});
		// Recorded on beta's ledger ...
		const local = localEvents(hosts.beta).filter(event => event.taskId === target.id);
		const types = local.map(event => event.type);
		expect(types).toEqual(
			expect.arrayContaining(['fleet.request_received', 'task.stop_requested', 'task.stopped', 'fleet.request_handled']),
		);
		expect(taskWith(hosts.beta, 'beta running')?.status).toBe('stopped');
		// ... and on the fleet's, event for event (the outcome is shipped moments after the answer)
		const fleet = await waitForQuery(
			async () => {
				const shipped = (await fleetEvents(url, hostIdOf(hosts.beta))).filter(event => event.taskId === target.id);
				return shipped.length === local.length && shipped;
			},
			{what: "beta's stop events in the fleet", on: [notices.wakeup, every(500)]},
		).finally(() => notices.close());
		expect(fleet).toEqual(local);
		const [row] = await query<{status: string}>(url, 'SELECT status FROM controlroom.tasks WHERE host_id = $1 AND id = $2', [
			hostIdOf(hosts.beta),
			target.id,
		]);
		expect(row?.status).toBe('stopped');
		// The other hosts' running tasks were not touched
		expect(taskWith(hosts.alpha, 'alpha running')?.status).toBe('running');
		expect(taskWith(hosts.gamma, 'gamma running')?.status).toBe('running');
	}, 60_000);

	it('shows every host on one board, and a stop from it stays pending until its host carries it out', async () => {
		// alpha's sync is stopped, so alpha cannot answer yet
		const alphaSync = syncs.get(hosts.alpha)!;
		alphaSync.child.kill('SIGTERM');
		await alphaSync.done;
		tmux.start('fleet', 160, 45, {PATH: process.env['PATH'] ?? '', CONTROLROOM_HOST: 'desk'});
		tmux.type('fleet', `node ${BIN} --ledger '${url}'`);
		tmux.send('fleet', 'Enter');
		const {pane} = await tmux.waitFor('fleet', text => text.includes('3 hosts') && text.includes('alpha running'), 20_000);
		expect(pane).toMatch(/w-\w+\s+gamma\s+gamma running/);
		await waitFor(() => tmux.readsKeys('fleet'), {what: 'the board to read keys'});
		// The filter: `/` first, then the text once the prompt shows it, then Enter once the text shows
		// (typed in one burst, it was lost twice on a loaded machine while the board was drawing).
		tmux.send('fleet', '/');
		await tmux.waitFor('fleet', text => text.includes('\n/\n'));
		tmux.type('fleet', 'alpha running');
		await tmux.waitFor('fleet', text => text.includes('\n/alpha running'));
		tmux.send('fleet', 'Enter');
		await tmux.waitFor('fleet', text => /RUNNING \(1\)/.test(text));
		tmux.send('fleet', 's');
		await tmux.waitFor('fleet', text => text.includes('on alpha “alpha running”'));
		tmux.send('fleet', 'y');
		await tmux.waitFor('fleet', text => /alpha\s+\[stop pending\]/.test(text) && text.includes('requested from alpha'));
		expect(taskWith(hosts.alpha, 'alpha running')?.status).toBe('running');
		// When alpha's sync runs again, it carries the stop out and the board shows the outcome
		const again = startSync(hosts.alpha);
		await waitFor(() => again.stdout().includes('request #'), {
			what: 'alpha to take the request',
			on: [onOutput(again.child.stdout)],
			timeoutMs: 20_000,
		});
		const shown = await tmux.waitFor('fleet', text => /alpha running\s.*stopped \(SIGTERM\)/.test(text), 20_000);
		expect(shown.pane).not.toContain('[stop pending]');
		expect(taskWith(hosts.alpha, 'alpha running')?.status).toBe('stopped');
	}, 90_000);
});
