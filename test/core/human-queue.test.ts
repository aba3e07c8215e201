import {describe, expect, it} from 'vitest';
import {computeHumanQueue, type QueueSignal} from '../../src/core/human-queue.ts';

const signal = (taskId: string, at: number, lane: QueueSignal['lane'] = 'failed', reason = 'exit 1'): QueueSignal => ({
	taskId,
	lane,
	reason,
	at,
	seq: at,
});
const noKeys = new Map<string, {cwd: string | null; title: string | null}>();

describe('the human queue', () => {
	it('shows at most five a lane with a count of the rest', () => {
		const signals = Array.from({length: 7}, (_, index) => signal(`t-${index}`, index));
		const queue = computeHumanQueue({signals, acknowledgedAt: new Map(), successes: [], taskKeys: noKeys});
		const failed = queue.lanes.find(lane => lane.name === 'failed');
		expect(failed?.total).toBe(7);
		expect(failed?.items.map(item => item.taskId)).toEqual(['t-6', 't-5', 't-4', 't-3', 't-2']);
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
