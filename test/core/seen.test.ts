import {describe, expect, it} from 'vitest';
import {EventType, newEvent, type EventDataOf, type EventTypeName} from '../../src/core/events.ts';
import {isUnseen, lookToRecord, seenState} from '../../src/core/seen.ts';
import {applyEvent, type Task} from '../../src/core/task.ts';

const at = Date.parse('2026-12-02T10:00:00Z');

function fold<T extends EventTypeName>(task: Task | undefined, type: T, data: EventDataOf<T>, offset = 0): Task {
	const next = applyEvent(task, newEvent(type, data, {taskId: 'w-1', at: at + offset, source: 'wrapper'}));
	if (!next) throw new Error('the event made no task');
	return next;
}

const running = (): Task => fold(undefined, EventType.registered, {title: 'fix the build'});
const done = (): Task => fold(running(), EventType.exited, {exitCode: 0}, 1000);

describe('seen and unseen: folded per person from task.seen', () => {
	it('finished work is unseen by everyone until each person looks', () => {
		let task = done();
		expect(seenState(task, 'ana')).toBe(false);
		task = fold(task, EventType.seen, {by: 'ana'}, 2000);
		expect(seenState(task, 'ana')).toBe(true);
		expect(seenState(task, 'ben')).toBe(false);
		expect(task.seenBy).toEqual({ana: at + 2000});
	});

	it('a look while the task still ran says nothing about its end', () => {
		let task = fold(running(), EventType.seen, {by: 'ana'}, 500);
		expect(task.seenBy).toBeUndefined();
		expect(seenState(task, 'ana')).toBeNull();
		task = fold(task, EventType.exited, {exitCode: 1}, 1000);
		expect(isUnseen(task, 'ana')).toBe(true);
	});

	it('is forgotten when the task finishes otherwise (lost, then its exit found done)', () => {
		let task = fold(running(), EventType.lost, {reason: 'process gone'}, 1000);
		task = fold(task, EventType.seen, {by: 'ana'}, 2000);
		expect(isUnseen(task, 'ana')).toBe(false);
		task = fold(task, EventType.stopped, {signal: 'SIGTERM'}, 3000);
		expect(task.status).toBe('stopped');
		expect(isUnseen(task, 'ana')).toBe(true);
	});

	it('is kept across later bookkeeping events, which change nothing else', () => {
		let task = fold(done(), EventType.seen, {by: 'ana'}, 2000);
		const before = task.lastEventAt;
		task = fold(task, EventType.acknowledged, {signalAt: at}, 3000);
		task = fold(task, EventType.seen, {by: 'ana'}, 4000);
		expect(task.seenBy).toEqual({ana: at + 4000});
		// A look is no sign of the agent's life.
		expect(task.lastEventAt).toBe(before);
	});

	it('never makes a task of its own, and a look with no name counts for nobody', () => {
		expect(applyEvent(undefined, newEvent(EventType.seen, {by: 'ana'}, {taskId: 'w-x', at, source: 'board'}))).toBeUndefined();
		const task = fold(done(), EventType.seen, {by: ''}, 2000);
		expect(task.seenBy).toBeUndefined();
	});

	it('an untracked process that went away, and a task nobody asks about, are never unseen', () => {
		const gone = fold(
			fold(undefined, EventType.discovered, {pid: 7, name: 'claude'}),
			EventType.vanished,
			{reason: 'gone', pid: 7},
			1000,
		);
		expect(seenState(gone, 'ana')).toBeNull();
		expect(seenState(done(), null)).toBeNull();
	});

	it('the board records a look only at unseen finished work under the cursor', () => {
		expect(lookToRecord(done(), 'ana')).toBe('w-1');
		expect(lookToRecord(fold(done(), EventType.seen, {by: 'ana'}, 2000), 'ana')).toBeNull();
		expect(lookToRecord(running(), 'ana')).toBeNull();
		expect(lookToRecord(undefined, 'ana')).toBeNull();
		expect(lookToRecord(done(), null)).toBeNull();
	});
});
