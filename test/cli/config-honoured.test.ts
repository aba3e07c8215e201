import {spawn} from 'node:child_process';
import {chmodSync, mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import type {ReconcileResult} from '../../src/producers/reconciler.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {event} from '../helpers/ledger.ts';
import {onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {agent, killQuietly, ledgerOf, pastDiscoveryGrace, sandbox, startCli, type Started} from '../producers/helpers.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

// Each setting read from the config file is shown by what its command does, not by reading it back.

const open: Ledger[] = [];
const pids: (number | undefined)[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
	for (const pid of pids.splice(0)) killQuietly(pid);
});

/** A config file holding `settings`, and the variable that points at it. */
function withConfig(settings: Record<string, unknown>): {CONTROLROOM_CONFIG: string} {
	const path = join(scratchDir('cr-config-'), 'config.json');
	writeFileSync(path, JSON.stringify(settings));
	return {CONTROLROOM_CONFIG: path};
}

describe('snapshot: endedWindow', () => {
	const now = Date.now();
	function ledgerWithOldTask(): string {
		const file = join(scratchDir(), 'ledger.db');
		const ledger = openLedger(file);
		ledger.writer.append([
			event('w-old', EventType.registered, {title: 'ended three days ago'}, now - 3 * 86_400_000 - 60_000),
			event('w-old', EventType.exited, {exitCode: 0}, now - 3 * 86_400_000),
		]);
		ledger.close();
		return file;
	}
	const listed = (args: readonly string[], env: NodeJS.ProcessEnv = {}): string[] => {
		const result = runCli(['snapshot', '--json', ...args], {env});
		expect(result.status, result.stderr).toBe(0);
		return (JSON.parse(result.stdout) as {tasks: {id: string}[]}).tasks.map(task => task.id);
	};

	it('lists what ended within the file’s window; --since and --all still win', () => {
		const db = ledgerWithOldTask();
		const week = withConfig({endedWindow: '7d'});
		expect(listed(['--ledger', db])).toEqual([]);
		expect(listed(['--ledger', db], week)).toEqual(['w-old']);
		expect(listed(['--ledger', db, '--since', '1h'], week)).toEqual([]);
		expect(listed(['--ledger', db, '--all'], withConfig({endedWindow: '1h'}))).toEqual(['w-old']);
	});
});

describe('run: slots, budgetTokens', () => {
	const started: Started[] = [];
	afterEach(() => {
		for (const run of started.splice(0)) killQuietly(run.child.pid);
	});

	it('admits as many writers as the file’s slots; --slots and CONTROLROOM_SLOTS win over it', async () => {
		// Given one run holding a slot in a repository
		const box = sandbox();
		const repo = join(box.dir, 'repo');
		mkdirSync(join(repo, '.git'), {recursive: true});
		const release = join(box.dir, 'release');
		const holder = startCli(
			['run', '--ledger', box.ledgerFile, '--cwd', repo, '--', process.execPath, agent('holds-until-released.mjs'), release],
			box.env,
		);
		started.push(holder);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
			what: 'the holder running',
			on: [onLedgerChange(box.ledgerFile)],
		});
		pids.push(-task.pgid!);
		const noWait = (env: NodeJS.ProcessEnv, extra: readonly string[] = []) =>
			runCli(['run', '--ledger', box.ledgerFile, '--cwd', repo, '--no-wait', ...extra, '--', 'true'], {env: {...box.env, ...env}})
				.status;
		// When the file says one slot, a second writer is refused (75); by default (two) it runs
		const oneSlot = withConfig({slots: 1});
		expect(noWait(oneSlot)).toBe(75);
		expect(noWait({})).toBe(0);
		// And a flag or the variable wins over the file
		expect(noWait(oneSlot, ['--slots', '2'])).toBe(0);
		expect(noWait({...oneSlot, CONTROLROOM_SLOTS: '2'})).toBe(0);
		writeFileSync(release, '');
		expect((await holder.done).code).toBe(0);
	});

	it('stops a run that goes over the file’s token budget, exit 125', () => {
		const box = sandbox();
		const stream = join(box.dir, 'stream.jsonl');
		const usage = (input: number, output: number) =>
			JSON.stringify({type: 'turn.completed', usage: {input_tokens: input, cached_input_tokens: 0, output_tokens: output}});
		writeFileSync(stream, `${[JSON.stringify({type: 'thread.started', thread_id: 't-cfg'}), usage(3000, 300)].join('\n')}\n`);
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
				'--hang',
			],
			{env: {...box.env, ...withConfig({budgetTokens: 2500, runGraceSeconds: 0.5})}},
		);
		expect(result.status, result.stderr).toBe(125);
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		expect(ledger.reader.tasksForView(null)[0]?.endReason).toBe('over budget: 3300 tokens > budget 2500');
	});
});

describe('reconcile: agentNames, reconcileIntervalSeconds', () => {
	/** An executable whose kernel name is `name`, that says its PID and then waits. */
	function fakeAgent(dir: string, name: string): string {
		const file = join(dir, name);
		writeFileSync(file, `#!${process.execPath}\nprocess.stdout.write(process.pid + '\\n');\nsetTimeout(() => {}, 60000);\n`);
		chmodSync(file, 0o755);
		return file;
	}

	it('records a process named in the file’s agentNames as untracked; CONTROLROOM_AGENT_NAMES wins over it', async () => {
		const box = sandbox();
		freshLedgerFile(box.home);
		const name = `cfgagent${process.pid % 10_000}`;
		const child = spawn(fakeAgent(box.dir, name), [], {stdio: ['ignore', 'pipe', 'ignore']});
		pids.push(child.pid);
		await new Promise(resolve => child.stdout.once('data', resolve));
		await pastDiscoveryGrace(child.pid!);
		const found = (env: NodeJS.ProcessEnv) => {
			const result = runCli(['reconcile', '--once', '--json', '--ledger', box.ledgerFile], {env: {...box.env, ...env}});
			expect(result.status, result.stderr).toBe(0);
			return (JSON.parse(result.stdout) as ReconcileResult).discovered.filter(entry => entry.pid === child.pid);
		};
		const file = withConfig({agentNames: [name]});
		expect(found({...file, CONTROLROOM_AGENT_NAMES: 'someone-else'})).toEqual([]);
		expect(found({})).toEqual([]);
		expect(found(file)).toEqual([expect.objectContaining({name, pid: child.pid})]);
	});

	it('runs its passes at the file’s interval, and reads the file once: an edit counts at the next start', async () => {
		// Three passes take at least ten seconds at the default five; the waits give up before that.
		const box = sandbox();
		freshLedgerFile(box.home);
		const config = withConfig({reconcileIntervalSeconds: 0.05, agentNames: ['cr-no-such-agent']});
		const reconciler = startCli(['reconcile', '--ledger', box.ledgerFile], {...box.env, ...config});
		pids.push(reconciler.child.pid);
		const passes = (): number => (reconciler.stdout().match(/^reconciled: /gm) ?? []).length;
		await waitFor(() => passes() >= 3, {what: 'three passes', timeoutMs: 8000, on: [onOutput(reconciler.child.stdout)]});
		// A file made wrong while it runs changes nothing in this process: it goes on at the same pace
		writeFileSync(config.CONTROLROOM_CONFIG, '{"reconcileIntervalSeconds": "never"}');
		const seen = passes();
		await waitFor(() => passes() >= seen + 3, {
			what: 'three more passes',
			timeoutMs: 8000,
			on: [onOutput(reconciler.child.stdout)],
		});
		reconciler.child.kill('SIGTERM');
		// Stopped by a signal, it exits 128 + 15, as every long-running command does.
		expect((await reconciler.done).code).toBe(143);
		expect(reconciler.stderr()).toBe('');
		// And the next start reads the file as it is now
		const next = runCli(['reconcile', '--once', '--ledger', box.ledgerFile], {env: {...box.env, ...config}});
		expect(next.status).toBe(78);
		expect(next.stderr).toMatch(/reconcileIntervalSeconds: expected a positive number of seconds, got "never"/);
	});
});
