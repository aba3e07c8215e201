import {describe, expect, it} from 'vitest';
import {EventType, type EventDataOf, type EventOfType} from '../../src/core/events.ts';
import {
	computeHumanQueue,
	earliestSignalAt,
	FAILED_WINDOW_MS,
	humanQueueOf,
	mergeHumanQueues,
	queueSignals,
	type QueueSignal,
} from '../../src/core/human-queue.ts';
import {applyEvent, type Task} from '../../src/core/task.ts';

const signal = (taskId: string, at: number, lane: QueueSignal['lane'] = 'failed', reason = 'exit 1'): QueueSignal => ({
	taskId,
	lane,
	reason,
	at,
	seq: at,
});
const noKeys = new Map<string, {cwd: string | null; title: string | null}>();

describe('the human queue', () => {
	it('shows at most five a lane, oldest-waiting first, with a count of the rest', () => {
		const signals = Array.from({length: 7}, (_, index) => signal(`t-${index}`, index));
		const queue = computeHumanQueue({signals, acknowledgedAt: new Map(), successes: [], taskKeys: noKeys});
		const failed = queue.lanes.find(lane => lane.name === 'failed');
		expect(failed?.total).toBe(7);
		expect(failed?.items.map(item => item.taskId)).toEqual(['t-0', 't-1', 't-2', 't-3', 't-4']);
	});

	it("merges hosts' queues oldest-waiting first, as one host's, five a lane, totals added", () => {
		const queueOf = (ats: number[]) =>
			computeHumanQueue({
				signals: ats.map(at => signal(`t-${at}`, at)),
				acknowledgedAt: new Map(),
				successes: [],
				taskKeys: noKeys,
			});
		const merged = mergeHumanQueues([
			{host: 'beta', queue: queueOf([2, 4, 6, 8, 10, 12])},
			{host: 'alpha', queue: queueOf([1, 3, 5, 7])},
		]);
		const failed = merged.lanes.find(lane => lane.name === 'failed');
		expect(failed?.total).toBe(10);
		expect(failed?.items.map(item => [(item as {host?: string}).host, item.taskId])).toEqual([
			['alpha', 't-1'],
			['beta', 't-2'],
			['alpha', 't-3'],
			['beta', 't-4'],
			['alpha', 't-5'],
		]);
	});

	it('keeps one entry per task, the newest signal', () => {
		const queue = computeHumanQueue({
			signals: [signal('t', 1), signal('t', 5, 'needs', 'asks')],
			acknowledgedAt: new Map(),
			successes: [],
			taskKeys: noKeys,
		});
		expect(queue.total).toBe(1);
		expect(queue.lanes.find(lane => lane.name === 'needs')?.items[0]?.reason).toBe('asks');
	});

	it('drops what was acknowledged after its latest signal, and brings back a newer one', () => {
		const acknowledgedAt = new Map([['t', 3]]);
		expect(computeHumanQueue({signals: [signal('t', 2)], acknowledgedAt, successes: [], taskKeys: noKeys}).total).toBe(0);
		expect(computeHumanQueue({signals: [signal('t', 4)], acknowledgedAt, successes: [], taskKeys: noKeys}).total).toBe(1);
	});

	it('drops a failure once a later run in the same directory or with the same title succeeded', () => {
		const taskKeys = new Map([['t', {cwd: '/repo', title: 'fix export'}]]);
		const sameCwd = [{taskId: 'u', cwd: '/repo', title: 'other', endedAt: 10}];
		const sameTitle = [{taskId: 'u', cwd: '/else', title: 'fix export', endedAt: 10}];
		const earlier = [{taskId: 'u', cwd: '/repo', title: 'fix export', endedAt: 1}];
		const run = (successes: typeof sameCwd) =>
			computeHumanQueue({signals: [signal('t', 5)], acknowledgedAt: new Map(), successes, taskKeys}).total;
		expect(run(sameCwd)).toBe(0);
		expect(run(sameTitle)).toBe(0);
		expect(run(earlier)).toBe(1);
	});

	it('keeps a need or a waiting hand-in even after a later success in the same directory', () => {
		const taskKeys = new Map([['t', {cwd: '/repo', title: 'fix export'}]]);
		const successes = [{taskId: 'u', cwd: '/repo', title: 'fix export', endedAt: 10}];
		for (const lane of ['needs', 'waiting'] as const) {
			expect(
				computeHumanQueue({signals: [signal('t', 5, lane, 'asks')], acknowledgedAt: new Map(), successes, taskKeys}).total,
			).toBe(1);
		}
	});
});

const NOW = 10 * FAILED_WINDOW_MS;

function task(id: string, patch: Partial<Task> = {}): Task {
	const registered = applyEvent(undefined, {taskId: id, type: EventType.registered, at: 1, source: 'wrapper', data: {}}, 1);
	return {...registered!, ...patch};
}

function need(taskId: string, at: number, source: string, data: EventDataOf<'need.raised'> = {}): EventOfType<'need.raised'> {
	return {taskId, type: EventType.needRaised, at, source, data, seq: at};
}

const byId = (...tasks: Task[]) => new Map(tasks.map(entry => [entry.id, entry]));

describe('the queue signals', () => {
	it.each<[string, Partial<Task>, string | null]>([
		['a failure with an error says the error', {status: 'failed', endedAt: NOW - 1, error: 'boom', exitCode: 2}, 'boom'],
		['a failure with an exit code says the code', {status: 'failed', endedAt: NOW - 1, exitCode: 2}, 'exit 2'],
		['a failure with neither says failed', {status: 'failed', endedAt: NOW - 1}, 'failed'],
		['a failure at the edge of the window is kept', {status: 'failed', endedAt: NOW - FAILED_WINDOW_MS}, 'failed'],
		['a failure older than the window is not', {status: 'failed', endedAt: NOW - FAILED_WINDOW_MS - 1}, null],
		['a run that ended well is not a signal', {status: 'done', endedAt: NOW - 1, exitCode: 0}, null],
	])('%s', (_name, patch, reason) => {
		const recent = task('t', {lastSeq: 9, ...patch});
		const signals = queueSignals({now: NOW, recentTasks: [recent], needs: [], tasks: byId(recent)});
		expect(signals).toEqual(reason === null ? [] : [{taskId: 't', lane: 'failed', reason, at: patch.endedAt, seq: 9}]);
	});

	it.each<[string, string, Partial<Task> | null, boolean]>([
		["an agent's need with no activity after it stays", 'claude', {lastEventAt: 100}, true],
		["an agent's need answered by later activity goes", 'codex', {lastEventAt: 101}, false],
		["an agent's need whose session ended goes", 'claude', {lastEventAt: 100, endedAt: 100}, false],
		["an agent's need whose task is not on the ledger stays", 'claude', null, true],
		['a need raised by hand stays after later activity', 'cli', {lastEventAt: 500}, true],
		['a need raised by hand stays after the task ended', 'cli', {lastEventAt: 500, endedAt: 500}, true],
	])('%s', (_name, source, patch, isCurrent) => {
		const tasks = patch === null ? byId() : byId(task('t', patch));
		const signals = queueSignals({now: NOW, recentTasks: [], needs: [need('t', 100, source)], tasks});
		expect(signals.length).toBe(isCurrent ? 1 : 0);
	});

	it('puts a need in the waiting lane when it says so, and says "needs you" when it has no message', () => {
		const needs = [need('a', 1, 'cli', {lane: 'waiting', message: 'hand-in waits'}), need('b', 2, 'cli')];
		expect(queueSignals({now: NOW, recentTasks: [], needs, tasks: byId()})).toEqual([
			{taskId: 'a', lane: 'waiting', reason: 'hand-in waits', at: 1, seq: 1},
			{taskId: 'b', lane: 'needs', reason: 'needs you', at: 2, seq: 2},
		]);
	});

	it('reads successes back to the oldest signal, or from now when there is none', () => {
		expect(earliestSignalAt([signal('a', 7), signal('b', 3)], NOW)).toBe(3);
		expect(earliestSignalAt([], NOW)).toBe(NOW);
	});
});

describe('the queue from its rows', () => {
	const acknowledged = (taskId: string, at: number, signalAt?: number): EventOfType<'queue.acknowledged'> => ({
		taskId,
		type: EventType.acknowledged,
		at,
		source: 'board',
		data: signalAt === undefined ? {} : {signalAt},
		seq: at,
	});

	it('drops a signal acknowledged at or after its time, by the time the acknowledgement names or its own', () => {
		const rows = (acknowledgements: EventOfType<'queue.acknowledged'>[]) =>
			humanQueueOf({signals: [signal('t', 5)], tasks: byId(), acknowledgements, endedSinceEarliest: []}).total;
		expect(rows([])).toBe(1);
		expect(rows([acknowledged('t', 9, 5)])).toBe(0);
		expect(rows([acknowledged('t', 9, 4)])).toBe(1);
		expect(rows([acknowledged('t', 5)])).toBe(0);
		expect(rows([acknowledged('t', 9, 4), acknowledged('t', 3, 6)])).toBe(0);
	});

	it('lets only a later run that exited 0 in the same directory answer a failure', () => {
		const failed = task('t', {cwd: '/repo', title: 'fix'});
		const rows = (other: Partial<Task>) =>
			humanQueueOf({
				signals: [signal('t', 5)],
				tasks: byId(failed),
				acknowledgements: [],
				endedSinceEarliest: [task('u', {cwd: '/repo', title: 'other', status: 'done', endedAt: 8, exitCode: 0, ...other})],
			}).total;
		expect(rows({})).toBe(0);
		expect(rows({exitCode: 1})).toBe(1);
		expect(rows({status: 'stopped'})).toBe(1);
		expect(rows({endedAt: 4})).toBe(1);
		expect(rows({cwd: '/else'})).toBe(1);
	});
});
