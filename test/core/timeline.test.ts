import {describe, expect, it} from 'vitest';
import {
	EventType,
	newEvent,
	parseStoredEvent,
	type EventDataOf,
	type EventTypeName,
	type LedgerEvent,
} from '../../src/core/events.ts';
import {describeEvent, foldHeartbeats} from '../../src/core/timeline.ts';

const at = <T extends EventTypeName>(seq: number, type: T, data?: EventDataOf<T>): LedgerEvent => ({
	...newEvent(type, data ?? ({} as EventDataOf<T>), {taskId: 't', at: seq * 1000, source: 'wrapper'}),
	seq,
});

describe('the timeline', () => {
	it('folds runs of heartbeats into one entry', () => {
		const entries = foldHeartbeats([
			at(1, EventType.started, {pid: 5}),
			at(2, EventType.heartbeat),
			at(3, EventType.heartbeat),
			at(4, EventType.progressed, {done: 1, total: 2}),
			at(5, EventType.heartbeat),
		]);
		expect(entries.map(entry => (entry.kind === 'heartbeats' ? `♥${entry.count}` : entry.event.type))).toEqual([
			EventType.started,
			'♥2',
			EventType.progressed,
			'♥1',
		]);
	});

	it('describes events in words, unknown ones included', () => {
		expect(describeEvent(at(1, EventType.started, {}))).toBe('started (pid unknown)');
		expect(describeEvent(at(1, EventType.ended, {reason: 'other'}))).toBe('ended (other), exit code unknown');
		const foreign = parseStoredEvent({
			seq: 1,
			taskId: 't',
			type: 'custom.thing',
			at: 1000,
			source: 'future',
			data: '{"a":1}',
			dedupKey: null,
		});
		expect(describeEvent(foreign)).toBe('custom.thing {"a":1}');
	});
});
