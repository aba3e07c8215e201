import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import type {ProcessInfo} from '../../src/core/process-tree.ts';
import {
	adoptedTasks,
	endedTasks,
	lostTasks,
	planReconcile,
	type RecordedProcess,
	type ReconcileFacts,
	type WatchedTask,
} from '../../src/core/reconcile-plan.ts';
import type {Status} from '../../src/core/status.ts';

// The plan decides on plain data: rows as the ledger holds them and a process table as a Map.

const NOW = 5_000;

const proc = (pid: number, patch: Partial<ProcessInfo> = {}): ProcessInfo => ({
	pid,
	ppid: 1,
	pgid: pid,
	name: 'bash',
	state: 'S',
	startTime: 1000 + pid,
	...patch,
});

const recorded = (pid: number, patch: Partial<RecordedProcess> = {}): RecordedProcess => ({
	pid,
	startTime: 1000 + pid,
	wrapperPid: null,
	wrapperStartTime: null,
	...patch,
});

/** A row; `w-` ids are wrapper tasks, `c-`/`x-` hook sessions (mid-turn unless said), `u-` untracked. */
function row(
	id: string,
	status: Status,
	process: RecordedProcess | null,
	registeredBy: WatchedTask['registeredBy'] = null,
	isTurnOpen = true,
	hasCompletedTurn = !isTurnOpen,
) {
	const source = id.startsWith('w-') ? 'wrapper' : id.startsWith('u-') ? 'reconciler' : id.startsWith('x-') ? 'codex' : 'claude';
	return {
		task: {id, status, pid: process?.pid ?? null, lastSeq: 7, source, isTurnOpen, hasCompletedTurn},
		registeredBy,
		process,
	} satisfies WatchedTask;
}

function facts(
	watched: WatchedTask[],
	processes: ProcessInfo[] = [],
	agentPids: number[] = [],
	known: string[] = [],
	named: number[] = [],
): ReconcileFacts {
	const table = new Map(processes.map(process => [process.pid, process]));
	return {
		now: NOW,
		watched,
		processes: table,
		agentProcesses: agentPids.map(pid => table.get(pid)!),
		knownTaskIds: new Set(known),
		namedByTask: process => (named.includes(process.pid) ? `t-${process.pid}` : null),
	};
}

/** A plan in short: `kind taskId` per guarded write, then `discovered taskId` per discovery. */
function summary(input: ReconcileFacts): string[] {
	const plan = planReconcile(input);
	return [
		...plan.guarded.map(write => `${write.verdict.kind} ${write.seen.id}`),
		...plan.discovered.map(discovery => `discovered ${discovery.taskId}`),
	];
}

describe('planReconcile', () => {
	it.each<[string, ReconcileFacts, string[]]>([
		['a running task whose process lives: nothing', facts([row('w-1', 'running', recorded(100))], [proc(100)]), []],
		['a running task whose process is gone: lost', facts([row('w-1', 'running', recorded(100))]), ['gone w-1']],
		[
			'a running task whose process is a zombie: lost',
			facts([row('w-1', 'running', recorded(100))], [proc(100, {state: 'Z'})]),
			['gone w-1'],
		],
		[
			'a running task whose PID now names another process: lost',
			facts([row('w-1', 'running', recorded(100))], [proc(100, {startTime: 9})]),
			['gone w-1'],
		],
		[
			'a running task whose process is gone but whose wrapper lives: left to the wrapper',
			facts([row('w-1', 'running', recorded(100, {wrapperPid: 99, wrapperStartTime: 1099}))], [proc(99)]),
			[],
		],
		[
			'a running task whose process and wrapper are gone: lost',
			facts([row('w-1', 'running', recorded(100, {wrapperPid: 99, wrapperStartTime: 1099}))], [proc(99, {startTime: 3})]),
			['gone w-1'],
		],
		['a running task with no PID reported: nothing', facts([row('c-1', 'running', null)]), []],
		[
			'a hook-reported PID without its start time: noted once',
			facts([row('c-1', 'running', recorded(300, {startTime: null}))], [proc(300)]),
			['pid-reported c-1'],
		],
		[
			'a registered row whose wrapper is gone: lost, never started',
			facts([row('w-2', 'registered', null, {pid: 700, startTime: 50})]),
			['never-started w-2'],
		],
		[
			'a registered row whose wrapper lives: nothing',
			facts([row('w-2', 'registered', null, {pid: 700, startTime: 1700})], [proc(700)]),
			[],
		],
		['a registered row with no wrapper recorded: nothing', facts([row('w-2', 'registered', null)]), []],
		['an agent process nobody tracks: discovered', facts([], [proc(400, {name: 'codex'})], [400]), ['discovered u-400-1400']],
		[
			'an agent process already on the ledger: not discovered again',
			facts([], [proc(400, {name: 'codex'})], [400], ['u-400-1400']),
			[],
		],
		[
			'an agent process started by a tracked one: not discovered',
			facts(
				[row('w-1', 'running', recorded(100))],
				[proc(100), proc(101, {ppid: 100}), proc(400, {name: 'codex', ppid: 101})],
				[400],
			),
			[],
		],
		[
			'an agent process under a live wrapper whose child is gone: not discovered',
			facts(
				[row('w-1', 'running', recorded(100, {wrapperPid: 99, wrapperStartTime: 1099}))],
				[proc(99), proc(400, {name: 'claude', ppid: 99})],
				[400],
			),
			[],
		],
		[
			'an untracked row whose process lives untracked: nothing',
			facts([row('u-400-1400', 'untracked', recorded(400))], [proc(400, {name: 'codex'})], [400]),
			[],
		],
		[
			'an untracked row whose process is gone: ended, outcome unknown, never lost',
			facts([row('u-400-1400', 'untracked', recorded(400))]),
			['vanished u-400-1400'],
		],
		['a hook session gone mid-turn: lost', facts([row('c-1', 'running', recorded(500))]), ['gone c-1']],
		[
			'a hook session gone after its last turn completed: ended, not lost',
			facts([row('x-1', 'running', recorded(500), null, false)]),
			['session-over x-1'],
		],
		[
			'a hook session gone before any turn completed (only SessionStart seen): lost, it died',
			facts([row('c-1', 'running', recorded(500), null, false, false)]),
			['gone c-1'],
		],
		[
			'a wrapper task gone between turns with its wrapper gone too: still lost (the wrapper would have spoken)',
			facts([row('w-1', 'running', recorded(100), null, false)]),
			['gone w-1'],
		],
		[
			'a held wrapper task whose agent and wrapper are gone (killed with its question open): left waiting, neither lost nor ended',
			facts([{...row('w-1', 'running', recorded(100), null, false), isHeld: true}]),
			[],
		],
		[
			'an agent process an ended hook session names by PID: not discovered',
			facts([], [proc(400, {name: 'claude'})], [400], [], [400]),
			[],
		],
		[
			'the launcher above an agent a hook session names (node .../codex above codex): not discovered',
			facts(
				[row('x-1', 'running', recorded(401))],
				[proc(400, {name: 'codex'}), proc(401, {name: 'codex', ppid: 400})],
				[400, 401],
			),
			[],
		],
		[
			'an untracked launcher whose agent child a hook session now names: adopted',
			facts(
				[row('u-400-1400', 'untracked', recorded(400)), row('x-1', 'running', recorded(401))],
				[proc(400, {name: 'node'}), proc(401, {name: 'codex', ppid: 400})],
				[400, 401],
			),
			['adopted u-400-1400'],
		],
		[
			'an untracked row whose PID a hook now tracks: adopted',
			facts(
				[row('u-400-1400', 'untracked', recorded(400)), row('x-1', 'running', recorded(400))],
				[proc(400, {name: 'codex'})],
				[400],
			),
			['adopted u-400-1400'],
		],
		[
			'an untracked row whose parent is now tracked: adopted',
			facts(
				[row('u-400-1400', 'untracked', recorded(400)), row('w-1', 'running', recorded(100))],
				[proc(100), proc(400, {name: 'codex', ppid: 100})],
				[400],
			),
			['adopted u-400-1400'],
		],
	])('%s', (_name, input, expected) => {
		expect(summary(input)).toEqual(expected);
	});

	it('writes lost with the PID and the reason, keyed so two passes write it once', () => {
		const plan = planReconcile(facts([row('w-1', 'running', recorded(100))], [proc(100, {startTime: 9})]));
		expect(plan.guarded.map(write => write.event)).toEqual([
			{
				taskId: 'w-1',
				type: EventType.lost,
				at: NOW,
				source: 'reconciler',
				data: {
					reason: 'PID 100 now belongs to another process (start time differs); the agent is gone and no exit was recorded',
					pid: 100,
				},
				dedupKey: 'lost:w-1:100:7',
			},
		]);
		expect(lostTasks(plan.guarded)).toEqual([{taskId: 'w-1', pid: 100, reason: expect.stringMatching(/^PID 100 now belongs/)}]);
	});

	it('reports a run never started as lost with its wrapper PID, and only the reason in the event', () => {
		const plan = planReconcile(facts([row('w-2', 'registered', null, {pid: 700, startTime: 50})]));
		const reason = 'wrapper 700 is gone and the agent was never started';
		expect(plan.guarded.map(write => write.event.data)).toEqual([{reason}]);
		expect(lostTasks(plan.guarded)).toEqual([{taskId: 'w-2', pid: 700, reason}]);
	});

	it('keeps what each write saw, so the writer can drop it if the task changed meanwhile', () => {
		const plan = planReconcile(facts([row('w-1', 'running', recorded(100)), row('u-400-1400', 'untracked', recorded(400))]));
		expect(plan.guarded.map(write => write.seen)).toMatchObject([
			{id: 'w-1', status: 'running', pid: 100, lastSeq: 7},
			{id: 'u-400-1400', status: 'untracked', pid: 400, lastSeq: 7},
		]);
		expect(lostTasks(plan.guarded).map(entry => entry.taskId)).toEqual(['w-1']);
		expect(endedTasks(plan.guarded)).toEqual([
			{taskId: 'u-400-1400', pid: 400, reason: 'process 400 went away; it was never tracked, so how it ended is unknown'},
		]);
		expect(adoptedTasks(plan.guarded)).toEqual([]);
	});
});
