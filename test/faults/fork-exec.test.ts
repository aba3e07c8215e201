import {spawn, execFileSync} from 'node:child_process';
import {closeSync, constants, existsSync, openSync, readdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli} from '../helpers/cli.ts';
import {childScript} from '../helpers/children.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {onExit, onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {isAlive, killQuietly, sandbox, startCli} from '../producers/helpers.ts';

const leftovers: number[] = [];
afterEach(() => {
	for (const pid of leftovers.splice(0)) killQuietly(pid);
});

/** The wrapper's child still held before exec: the gate shell (spawn.ts), found by its parent and its argv. */
function gateShellOf(wrapperPid: number): number | null {
	for (const name of readdirSync('/proc').filter(entry => /^\d+$/.test(entry))) {
		try {
			const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (ppid !== wrapperPid) continue;
			if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes('controlroom-run')) return Number(name);
		} catch {
			// Gone meanwhile.
		}
	}
	return null;
}

function taskTitled(ledgerFile: string, title: string) {
	const ledger = openLedger(ledgerFile, {isReadonly: true});
	try {
		return ledger.reader.tasksForView(null).find(task => task.title === title);
	} finally {
		ledger.close();
	}
}

describe('a wrapper killed between fork and exec', () => {
	it('before it recorded the child: the agent never starts, and the row is lost saying so', async () => {
		// Given a run whose --log is a FIFO: the wrapper waits there, after its row is written and before the spawn
		const box = sandbox();
		const ledgerFile = freshLedgerFile(box.home);
		const log = join(box.dir, 'log.fifo');
		execFileSync('sh', ['-c', 'mkfifo "$1"', 'sh', log]);
		const marker = join(box.dir, 'agent-ran');
		const run = startCli(
			['run', '--ledger', ledgerFile, '--log', log, '--title', 'gated', '--', 'sh', '-c', `touch ${marker}; exec sleep 30`],
			box.env,
		);
		leftovers.push(run.child.pid ?? 0);
		await waitFor(() => taskTitled(ledgerFile, 'gated'), {what: 'the registered row', on: [onLedgerChange(ledgerFile)]});
		// And the ledger's write lock held, so recording the child's PID waits
		const holder = spawn(process.execPath, [childScript('lock-holder'), ledgerFile], {stdio: ['pipe', 'pipe', 'inherit']});
		leftovers.push(holder.pid ?? 0);
		let said = '';
		holder.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
		await waitFor(() => said.includes('locked'), {what: 'the lock taken', on: [onOutput(holder.stdout)]});
		const reader = openSync(log, constants.O_RDONLY | constants.O_NONBLOCK);

		// When the wrapper has forked its child and is killed before it could record it
		const wrapperPid = run.child.pid ?? 0;
		const gate = await waitFor(() => gateShellOf(wrapperPid), {what: 'the child held before exec'});
		leftovers.push(gate);
		process.kill(wrapperPid, 'SIGKILL');
		await waitFor(() => !isAlive(gate), {what: 'the held child to give up'});
		holder.stdin.end('release\n');
		await waitFor(() => holder.exitCode !== null, {what: 'the lock released', on: [onExit(holder)]});
		closeSync(reader);
		const pass = runCli(['reconcile', '--once', '--json', '--ledger', ledgerFile], {env: box.env});

		// Then the agent never ran, and the row is lost saying it never started: both true
		expect(pass.status, pass.stderr).toBe(0);
		const task = taskTitled(ledgerFile, 'gated');
		process.stdout.write(
			`fork before exec: 1 wrapper killed holding its child; agent started: ${existsSync(marker) ? 1 : 0}; row ${task?.status} (${task?.endReason ?? ''})\n`,
		);
		expect(existsSync(marker)).toBe(false);
		expect(task).toMatchObject({status: 'lost', pid: null});
		expect(task?.endReason).toMatch(/never started/);
	});

	it('after it recorded the child: the row names the agent’s own PID, and is lost with it once the agent ends', async () => {
		// Given a run whose agent says its PID
		const box = sandbox();
		const ledgerFile = freshLedgerFile(box.home);
		const run = startCli(
			['run', '--ledger', ledgerFile, '--title', 'orphan', '--', 'sh', '-c', 'echo "pid $$"; exec sleep 30'],
			box.env,
		);
		leftovers.push(run.child.pid ?? 0);
		await waitFor(() => /pid \d+/.test(run.stdout()), {what: 'the agent', on: [onOutput(run.child.stdout)]});
		const agentPid = Number(/pid (\d+)/.exec(run.stdout())?.[1]);
		leftovers.push(agentPid);

		// When the wrapper is killed while its agent runs
		process.kill(run.child.pid ?? 0, 'SIGKILL');
		await run.done;
		const whileAlive = runCli(['reconcile', '--once', '--ledger', ledgerFile], {env: box.env});
		expect(whileAlive.status, whileAlive.stderr).toBe(0);
		// Then the row is running with the agent's own PID (exec kept it), as long as the agent lives
		expect(taskTitled(ledgerFile, 'orphan')).toMatchObject({status: 'running', pid: agentPid});

		// When the agent ends with nobody to record it
		process.kill(agentPid, 'SIGKILL');
		await waitFor(() => !isAlive(agentPid), {what: 'the agent gone'});
		expect(runCli(['reconcile', '--once', '--ledger', ledgerFile], {env: box.env}).status).toBe(0);
		// Then it is lost, with that PID
		const task = taskTitled(ledgerFile, 'orphan');
		process.stdout.write(`fork before exec: agent pid ${agentPid}, row ${task?.status} (${task?.endReason ?? ''})\n`);
		expect(task).toMatchObject({status: 'lost'});
		expect(task?.endReason).toContain(`process ${agentPid} is gone`);
	});
});
