import type {ChildProcess} from 'node:child_process';
import {existsSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {scratchDir} from '../helpers/cli.ts';
import {
	RM_BUILD,
	endStarted,
	question,
	startHeld as startHeldRun,
	taskOf,
	toolResults,
	type Wrapped,
} from '../helpers/held-runs.ts';
import {runAsPerson} from '../helpers/person.ts';
import {TWELVE_K_TURNS, turnsRun} from '../helpers/budget-turns.ts';
import {realClientBox, type RealClientBox, installClaudeHooks} from '../helpers/realclients.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// A wrapped `claude -p` (the real Claude Code 2.1.328, offline) whose model runs `rm -rf build`:
// the hold policy defers it, the run waits for a person, and the answer resumes the same session
// as the same task (docs/decisions.md, "Headless runs").

const SLOW = 240_000;

/** The wrappers a test started: a test that fails while one waits for a person must not leave it waiting. */
const started: ChildProcess[] = [];
afterEach(() => endStarted(started));

/** Starts a held run of these turns (test/helpers/held-runs.ts), ended after the test if it still waits. */
function startHeld(
	box: RealClientBox,
	turns: readonly unknown[],
	flags: readonly string[] = [],
	extra: readonly string[] = [],
	dir = box.dir,
): Wrapped {
	return startHeldRun(box, turns, started, {flags, extra, dir});
}

/** The status of the task a run's wrapper named. */
function statusOf(box: RealClientBox, run: Wrapped): unknown {
	return box.snapshot().tasks.find(task => task['id'] === taskOf(run))?.['status'];
}

/** Every JSON result the runs printed (one per claude process). */
function results(run: Wrapped): Record<string, unknown>[] {
	return run
		.stdout()
		.split('\n')
		.filter(line => line.startsWith('{'))
		.map(line => JSON.parse(line) as Record<string, unknown>);
}

function decide(box: RealClientBox, id: string, ...answer: string[]): void {
	const said = runAsPerson(['decide', id, ...answer], {env: box.env});
	expect(said.status, said.stderr).toBe(0);
}

describe('a wrapped claude -p held by the policy (real Claude Code)', () => {
	it(
		'waits with nothing deleted; allow resumes the same session as the same task, build/ removed once, done',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			const run = startHeld(box, [RM_BUILD, {text: 'cleaned'}]);
			const id = await question(run);
			// Waiting for the person: the claude process ended, the task did not, nothing was deleted.
			expect(existsSync(join(box.dir, 'project', 'build', 'f'))).toBe(true);
			const waiting = box.snapshot().tasks;
			expect(waiting).toHaveLength(1);
			expect(waiting[0]).toMatchObject({status: 'running'});
			// Waiting for you: the question in decisions[] and first in Needs you.
			const shown = JSON.parse(box.cli(['snapshot', '--json']).stdout);
			expect(shown.decisions).toEqual([
				expect.objectContaining({
					id,
					kind: 'deferred',
					state: 'open',
					task: waiting[0]?.['id'],
					tool: 'Bash',
					args: RM_BUILD.input,
				}),
			]);
			expect(shown.queue.lanes[0]).toMatchObject({name: 'decisions', items: [expect.objectContaining({taskId: id})]});
			expect(box.cli(['snapshot', '--fail-on', 'decisions']).status).not.toBe(0);
			decide(box, id, 'allow');
			expect(await run.done, run.stderr()).toBe(0);
			expect(existsSync(join(box.dir, 'project', 'build'))).toBe(false);
			expect(existsSync(join(box.dir, 'project', 'keep.txt'))).toBe(true);
			const [first, second] = results(run);
			expect(first).toMatchObject({stop_reason: 'tool_deferred', deferred_tool_use: {name: 'Bash', input: RM_BUILD.input}});
			expect(second).toMatchObject({stop_reason: 'end_turn', result: 'cleaned', session_id: first?.['session_id']});
			const tasks = box.snapshot().tasks;
			expect(tasks).toHaveLength(1);
			expect(tasks[0]).toMatchObject({id: waiting[0]?.['id'], status: 'done', exitCode: 0});
			// Once: the model saw one result of the call, and the answer cannot be used again.
			expect(toolResults(box.dir)).toEqual(['(Bash completed with no output)']);
			const again = runAsPerson(['decide', id, 'allow'], {env: box.env});
			expect(again.status).not.toBe(0);
			expect(again.stderr).toContain('already answered');
		},
		SLOW,
	);

	it(
		'deny resumes with the reason, which the model sees; its changed retry is a new question the old answer does not cover',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			const retry = {tool: 'Bash', input: {command: 'rm -rf build/f', description: 'Remove the file only'}};
			const run = startHeld(box, [RM_BUILD, retry, {text: 'done'}]);
			const first = await question(run);
			decide(box, first, 'deny', '--reason', 'keep build/, remove only its file');
			const second = await question(run, 2);
			expect(second).not.toBe(first);
			// The denial reached the model verbatim, and nothing was removed by it.
			expect(toolResults(box.dir)[0]).toContain('keep build/, remove only its file');
			expect(existsSync(join(box.dir, 'project', 'build', 'f'))).toBe(true);
			decide(box, second, 'allow');
			expect(await run.done, run.stderr()).toBe(0);
			expect(existsSync(join(box.dir, 'project', 'build'))).toBe(true);
			expect(existsSync(join(box.dir, 'project', 'build', 'f'))).toBe(false);
			expect(box.snapshot().tasks[0]).toMatchObject({status: 'done'});
		},
		SLOW,
	);

	it(
		'--on-deny stop: a denial stops the task, exit 122, the reason in explain, nothing removed',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			const run = startHeld(box, [RM_BUILD, {text: 'cleaned'}], ['--on-deny', 'stop']);
			const id = await question(run);
			decide(box, id, 'deny', '--reason', 'not today');
			expect(await run.done, run.stderr()).toBe(122);
			expect(existsSync(join(box.dir, 'project', 'build', 'f'))).toBe(true);
			const [task] = box.snapshot().tasks;
			expect(task).toMatchObject({status: 'stopped'});
			const explain = box.cli(['explain', String(task?.['id'])]);
			expect(explain.stdout).toContain('not today');
		},
		SLOW,
	);
});

describe('a held run stopped while it waits (real Claude Code)', () => {
	it(
		'controlroom stop ends the waiting wrapper: stopped, exit 143, nothing run',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			const run = startHeld(box, [RM_BUILD, {text: 'cleaned'}]);
			await question(run);
			const [task] = box.snapshot().tasks;
			const stop = box.cli(['stop', String(task?.['id'])]);
			expect(stop.status, stop.stderr).toBe(0);
			expect(stop.stdout).toContain('it was waiting for a person');
			expect(await run.done).toBe(143);
			expect(box.snapshot().tasks[0]).toMatchObject({status: 'stopped'});
			expect(existsSync(join(box.dir, 'project', 'build', 'f'))).toBe(true);
		},
		SLOW,
	);

	it(
		"with Claude's hooks installed: waiting for you is never stalled (--fail-on stalled passes), and stop ends the wait",
		async () => {
			// Given a held run whose agent's hooks also recorded its session (and their own start of it) on the task
			const box = realClientBox({SCENARIO: 'script'});
			installClaudeHooks(box);
			const run = startHeld(box, [RM_BUILD, {text: 'cleaned'}]);
			await question(run);
			const id = taskOf(run);
			// When it has been silent past a stall threshold of 1 s while it waits for a person
			const snapshotAt = (...args: string[]) => box.cli(['snapshot', '--stall', '1', ...args]);
			const waited = await waitFor(
				() => {
					const shown = JSON.parse(snapshotAt('--json').stdout) as {tasks: {id: string; idleSeconds: number}[]};
					const task = shown.tasks.find(entry => entry.id === id);
					return task && task.idleSeconds >= 2 ? task : undefined;
				},
				{what: 'the held run silent for 2 s', timeoutMs: 30_000},
			);
			// Then it is running and active, not stalled, and --fail-on stalled has nothing to report
			expect(waited).toMatchObject({status: 'running', health: 'active', lane: 'running'});
			expect(snapshotAt('--fail-on', 'stalled').status).toBe(0);
			expect(box.cli(['explain', id ?? '']).stdout).toContain("it waits for a person's answer, so its silence is never a stall");
			// And stop ends its wait: stopped, 143, nothing run
			const stop = box.cli(['stop', id ?? '']);
			expect(stop.status, stop.stderr).toBe(0);
			expect(stop.stdout).toContain('it was waiting for a person');
			expect(await run.done).toBe(143);
			expect(box.snapshot().tasks.find(task => task['id'] === id)).toMatchObject({status: 'stopped'});
			expect(existsSync(join(box.dir, 'project', 'build', 'f'))).toBe(true);
		},
		SLOW,
	);
});

describe('--on-budget ask on a wrapped claude -p (real Claude Code)', () => {
	it(
		'pauses after the crossing turn with no further tool run, shows the spend; allow with +20000 continues the same session',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			installClaudeHooks(box);
			const run = startHeld(box, TWELVE_K_TURNS, ['--budget', '30000', '--on-budget', 'ask'], ['--dangerously-skip-permissions']);
			const id = await question(run);
			// Turns one and two ran (24k spent); the third turn crossed 30k, and its call is held.
			expect(turnsRun(box.dir)).toEqual(['turn1', 'turn2']);
			const [shown] = JSON.parse(box.cli(['snapshot', '--json']).stdout).decisions;
			expect(shown).toMatchObject({id, kind: 'budget', state: 'open', budget: {budget: 30_000}});
			// The question carries the spend: over 30k spent of 30k, about 12k a turn.
			const [task] = box.snapshot().tasks;
			const timeline = JSON.parse(box.cli(['timeline', String(task?.['id']), '--json']).stdout);
			const asked = timeline.entries.find((entry: {type?: string}) => entry.type === 'decision.asked');
			expect(asked?.data).toMatchObject({decisionId: id, kind: 'budget', budget: {budget: 30_000}});
			expect(asked.data.budget.spent).toBeGreaterThan(30_000);
			expect(asked.data.budget.perTurn).toBeGreaterThan(11_000);
			expect(asked.data.budget.perTurn).toBeLessThan(13_000);
			expect(run.stderr()).toContain('its budget is crossed');
			decide(box, id, 'allow', '--headroom', '+20000');
			expect(await run.done, run.stderr()).toBe(0);
			expect(turnsRun(box.dir)).toEqual(['turn1', 'turn2', 'turn3']);
			const [first, second] = results(run);
			expect(second).toMatchObject({result: 'all turns done', session_id: first?.['session_id']});
			expect(box.snapshot().tasks[0]).toMatchObject({status: 'done'});
		},
		SLOW,
	);

	it(
		'a person saying no stops it: exit 125, the reason in explain, the held call never run',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			installClaudeHooks(box);
			const run = startHeld(box, TWELVE_K_TURNS, ['--budget', '30000', '--on-budget', 'ask'], ['--dangerously-skip-permissions']);
			const id = await question(run);
			decide(box, id, 'deny', '--reason', 'enough for today');
			expect(await run.done, run.stderr()).toBe(125);
			expect(turnsRun(box.dir)).toEqual(['turn1', 'turn2']);
			const [task] = box.snapshot().tasks;
			expect(task).toMatchObject({status: 'stopped'});
			expect(box.cli(['explain', String(task?.['id'])]).stdout).toContain('enough for today');
		},
		SLOW,
	);
});

describe('held headless runs after kill -9 of every controlroom process (real Claude Code)', () => {
	it(
		'stay open with nothing run; each answer resumes its run, which runs its call once and ends done',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			const other = scratchDir('cr-rc-b-');
			const runs = [startHeld(box, [RM_BUILD, {text: 'cleaned'}]), startHeld(box, [RM_BUILD, {text: 'cleaned'}], [], [], other)];
			const ids = [await question(runs[0]!), await question(runs[1]!)];
			for (const run of runs) run.child.kill('SIGKILL');
			await Promise.all(runs.map(run => run.done));
			// The restart: a reconciler pass. Nothing ran, both are still waiting, neither lost nor ended.
			const env = {SCRIPT_FILE: join(box.dir, 'turns.json')};
			expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent'], env).status).toBe(0);
			for (const dir of [box.dir, other]) expect(existsSync(join(dir, 'project', 'build', 'f'))).toBe(true);
			expect(box.snapshot().tasks.map(task => task['status'])).toEqual(['running', 'running']);
			const ledgerFile = join(String(box.env['CONTROLROOM_HOME']), 'ledger.db');
			for (const [index, dir] of [box.dir, other].entries()) {
				decide(box, ids[index]!, 'allow');
				expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent'], env).status).toBe(0);
				await waitFor(() => !existsSync(join(dir, 'project', 'build')) && statusOf(box, runs[index]!) === 'done', {
					what: `held run ${index + 1} to resume, run its call and end done`,
					timeoutMs: 60_000,
					on: [onLedgerChange(ledgerFile)],
					explain: () => JSON.stringify(box.snapshot().tasks.map(task => [task['id'], task['status']])),
				});
				expect(toolResults(dir)).toEqual(['(Bash completed with no output)']);
			}
			// A later pass starts nothing again: both answers were carried out.
			expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent'], env).status).toBe(0);
			expect(box.snapshot().tasks.map(task => task['status'])).toEqual(['done', 'done']);
		},
		SLOW,
	);
});
