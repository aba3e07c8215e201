import {spawnSync} from 'node:child_process';
import {chmodSync, mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {realClientBox, realClientScript, installClaudeHooks} from '../helpers/realclients.ts';

const CLAUDE = realClientScript('claude-offline.sh');
const SLOW = 180_000;
/** Other people's agents on this machine are not this test's: look for no untracked process. */
const NO_UNTRACKED = ['--agents', 'cr-no-such-agent'];

describe('a real Claude Code run under the wrapper, with hooks', () => {
	it(
		'is exactly one task: the wrapper’s id, the session id, its PID, 2768/84 tokens, done',
		() => {
			const box = realClientBox({SCENARIO: 'bash'});
			expect(installClaudeHooks(box).stdout).toContain(join(box.dir, 'home', '.claude', 'settings.json'));
			const run = box.cli(['run', '--', CLAUDE, box.dir, '-p', 'say hi', '--dangerously-skip-permissions']);
			expect(run.status, run.stderr).toBe(0);
			const {tasks} = box.snapshot();
			expect(tasks).toHaveLength(1);
			expect(tasks[0]).toMatchObject({
				id: expect.stringMatching(/^w-/),
				source: 'wrapper',
				status: 'done',
				exitCode: 0,
				sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
				pid: expect.any(Number),
				tokens: {input: 2768, output: 84, total: 2852},
			});
			// The session's hook events are on the run's timeline
			const timeline = JSON.parse(box.cli(['timeline', String(tasks[0]?.['id']), '--json']).stdout);
			const hookEvents = timeline.entries.filter((entry: {type?: string}) => entry.type === 'agent.event');
			expect(hookEvents.map((entry: {data: {event: string}}) => entry.data.event)).toEqual(
				expect.arrayContaining(['SessionStart', 'Stop', 'SessionEnd']),
			);
		},
		SLOW,
	);

	it(
		"run -- claude -p --output-format json records Claude's own cost from its result, as the tree's reported cost",
		() => {
			// Given the real Claude Code as a command named `claude` (the wrapper knows an agent by its name)
			const box = realClientBox({SCENARIO: 'bash'});
			installClaudeHooks(box);
			const claude = join(box.dir, 'bin', 'claude');
			mkdirSync(join(box.dir, 'bin'));
			writeFileSync(claude, `#!/bin/sh\nexec '${CLAUDE}' '${box.dir}' "$@"\n`);
			chmodSync(claude, 0o755);
			// When it runs headless under the wrapper
			const run = box.cli(['run', '--', claude, '-p', 'say hi', '--output-format', 'json', '--dangerously-skip-permissions']);
			expect(run.status, run.stderr).toBe(0);
			// Then its result still reaches the terminal, and its cost is the task's, marked reported
			const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as {total_cost_usd?: number};
			expect(result.total_cost_usd).toEqual(expect.any(Number));
			const [task] = box.snapshot().tasks;
			expect(task).toMatchObject({status: 'done', treeCost: {amount: result.total_cost_usd, priced: 'reported'}});
		},
		SLOW,
	);

	it(
		'with an API error is one failed task and one queue entry',
		() => {
			const box = realClientBox({SCENARIO: 'error'});
			installClaudeHooks(box);
			const run = box.cli(['run', '--', CLAUDE, box.dir, '-p', 'say hi', '--dangerously-skip-permissions']);
			expect(run.status).not.toBe(0);
			const {tasks, queue} = box.snapshot();
			expect(tasks).toHaveLength(1);
			expect(tasks[0]).toMatchObject({id: expect.stringMatching(/^w-/), status: 'failed', sessionId: expect.any(String)});
			expect(queue.total).toBe(1);
			expect(queue.lanes.find(lane => lane.name === 'failed')?.items).toHaveLength(1);
		},
		SLOW,
	);

	it(
		'over --budget on the tokens its hooks report is stopped, exit 125, no process of its group left',
		() => {
			// Two tool turns of 1426 tokens each pass a budget of 2000; the third turn would take a minute
			const box = realClientBox({SCENARIO: 'script'});
			const script = join(box.dir, 'turns.json');
			writeFileSync(
				script,
				JSON.stringify([
					{tool: 'Bash', input: {command: 'echo one', description: 'one'}},
					{tool: 'Bash', input: {command: 'echo two', description: 'two'}},
					{text: 'done', delay_ms: 60_000},
				]),
			);
			installClaudeHooks(box);
			const run = box.cli(
				['run', '--budget', '2000', '--grace', '2', '--', CLAUDE, box.dir, '-p', 'work', '--dangerously-skip-permissions'],
				{
					SCRIPT_FILE: script,
				},
			);
			expect(run.status, run.stderr).toBe(125);
			const {tasks} = box.snapshot();
			expect(tasks).toHaveLength(1);
			expect(tasks[0]).toMatchObject({
				status: 'stopped',
				endReason: expect.stringMatching(/^over budget: \d+ tokens > budget 2000$/),
			});
			const pgid = Number(tasks[0]?.['pid']);
			// A zombie is dead (this container's init may reap it late): only live members count.
			const members = spawnSync('ps', ['-o', 'pid=,stat=', '-g', String(pgid)], {encoding: 'utf8'}).stdout;
			const alive = members.split('\n').filter(line => line.trim() !== '' && !/\sZ/.test(line));
			expect(alive).toEqual([]);
		},
		SLOW,
	);
});

describe('hooks install --claude with CLAUDE_CONFIG_DIR set', () => {
	it(
		'writes where Claude reads: an unwrapped session is recorded',
		() => {
			const box = realClientBox({SCENARIO: 'bash'});
			installClaudeHooks(box);
			// The ledger exists (as when the board or reconciler runs), so the hook writes to it
			expect(box.cli(['reconcile', '--once', ...NO_UNTRACKED]).status).toBe(0);
			const run = spawnSync(CLAUDE, [box.dir, '-p', 'say hi', '--dangerously-skip-permissions'], {
				env: box.env,
				encoding: 'utf8',
			});
			expect(run.status, run.stderr).toBe(0);
			const {tasks} = box.snapshot();
			expect(tasks).toHaveLength(1);
			expect(tasks[0]).toMatchObject({
				source: 'claude',
				status: 'done',
				pid: expect.any(Number),
				tokens: {input: 2768, output: 84, total: 2852},
			});
		},
		SLOW,
	);
});
