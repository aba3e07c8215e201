import {spawn} from 'node:child_process';
import {afterEach, describe, expect, it} from 'vitest';
import {childTreeOf, type AgentTree, type TreeProcess} from '../../src/producers/agent-tree.ts';
import {readProcess} from '../../src/producers/proc-table.ts';
import {endTree} from '../../src/producers/stop.ts';
import {onOutput, waitFor} from '../helpers/wait-for.ts';
import {isAlive, killQuietly} from './helpers.ts';

// endTree looks for the tree's new members on the events that can hide one (a process of it ended,
// the move to SIGKILL, everything known gone), never on a timer: a rescan reads every process's
// environment, and four of them a second held a stop past its bound on a loaded machine.

const started: number[] = [];
afterEach(() => {
	for (const pid of started.splice(0)) killQuietly(pid);
});

/** `sh -c SCRIPT` with the given task id in its environment; resolves once it printed `ready`, with what it printed. */
async function shell(script: string, taskId: string) {
	const child = spawn('sh', ['-c', script], {
		detached: true,
		stdio: ['ignore', 'pipe', 'ignore'],
		env: {...process.env, CONTROLROOM_TASK_ID: taskId},
	});
	started.push(child.pid!);
	let out = '';
	child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
	await waitFor(() => out.includes('ready'), {what: 'the shell ready', on: [onOutput(child.stdout)]});
	const info = readProcess(child.pid!);
	if (!info) throw new Error('the shell is gone');
	return {pid: child.pid!, startTime: info.startTime, output: () => out, stdout: child.stdout};
}

describe('endTree', () => {
	it('looks for new members only at the move to SIGKILL and once the tree is gone, never on a timer', async () => {
		const target = await shell(`trap '' TERM; echo ready; exec sleep 300`, `w-endtree-a${process.pid}`);
		let rescans = 0;
		const tree: AgentTree = {
			processes: [{pid: target.pid, startTime: target.startTime, name: 'sh'}],
			refused: [],
			rescan: (known: readonly TreeProcess[]) => {
				rescans += 1;
				return known.filter(process => readProcess(process.pid)?.startTime === process.startTime);
			},
		};
		const ended = await endTree(tree, 1200);
		expect(ended).toMatchObject({signal: 'SIGKILL', escalated: true, survivors: []});
		expect(isAlive(target.pid)).toBe(false);
		// One at SIGKILL (what the grace bred dies too), one when it was gone (nothing left behind)
		expect(rescans).toBe(2);
	});

	it('finds what an ended process left behind (a setsid child it started on SIGTERM) and ends it, within the grace', async () => {
		const taskId = `w-endtree-b${process.pid}`;
		// On SIGTERM the shell starts a sleep in a session of its own and exits: the sleep is orphaned
		const target = await shell(`trap 'setsid sleep 300 & echo "left $!"; exit 0' TERM; echo ready; sleep 300 & wait`, taskId);
		const ended = await endTree(childTreeOf(target, taskId), 60_000);
		const left = Number(
			await waitFor(() => /left (\d+)/.exec(target.output())?.[1], {what: 'the child it left', on: [onOutput(target.stdout)]}),
		);
		started.push(left);
		expect(left).toBeGreaterThan(0);
		expect(ended).toMatchObject({signal: 'SIGTERM', escalated: false, survivors: []});
		expect(ended.pids).toContain(left);
		expect(isAlive(left)).toBe(false);
	});
});
