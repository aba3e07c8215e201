import {describe, expect, it} from 'vitest';
import {whyLine} from '../../src/core/board/explain-view.ts';
import {EventType, newEvent, type LedgerEvent, type NewEvent} from '../../src/core/events.ts';
import {applyEvent, type Task} from '../../src/core/task.ts';

function fold(events: readonly NewEvent[]): {task: Task; stored: LedgerEvent[]} {
	let task: Task | undefined;
	const stored = events.map((event, index) => {
		task = applyEvent(task, event, index + 1);
		return {...event, seq: index + 1} as LedgerEvent;
	});
	if (!task) throw new Error('no task');
	return {task, stored};
}

const noQueue = {lanes: [], total: 0};

describe('the drill-down’s why line', () => {
	it('names both signals when the wrapper says done and the session never ended', () => {
		const now = Date.now();
		const at = (ms: number, source = 'wrapper') => ({taskId: 'w-why', at: now - ms, source});
		const {task, stored} = fold([
			newEvent(EventType.registered, {title: 'wrapped', command: 'claude -p hi'}, at(5000)),
			newEvent(EventType.started, {pid: 4242, pgid: 4242}, at(4900)),
			newEvent(EventType.agentEvent, {event: 'SessionStart', sessionId: 's-1', pid: 4242}, at(4000, 'claude')),
			newEvent(EventType.exited, {exitCode: 0}, at(1000)),
		]);
		const line = whyLine(task, stored, noQueue, now);
		expect(line).toMatch(/^status disputed: task\.exited #4 by wrapper, .* ago: .* vs agent\.event #3 by claude, /);
	});

	it('says which event set the status when nothing disagrees', () => {
		const now = Date.now();
		const at = (ms: number) => ({taskId: 'w-ok', at: now - ms, source: 'wrapper'});
		const {task, stored} = fold([
			newEvent(EventType.registered, {title: 'plain'}, at(3000)),
			newEvent(EventType.started, {pid: 4243, pgid: 4243}, at(2900)),
			newEvent(EventType.exited, {exitCode: 0}, at(1000)),
		]);
		expect(whyLine(task, stored, noQueue, now)).toMatch(/^done .*\(reported\): task\.exited #3 by wrapper, 1s ago: /);
	});
});
