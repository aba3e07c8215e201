import {describe, expect, it} from 'vitest';
import {EventType, type LedgerEvent} from '../../src/core/events.ts';
import {describeEvent, foldHeartbeats} from '../../src/core/timeline.ts';

const at = (seq: number, type: string, data = {}): LedgerEvent => ({
	seq,
	taskId: 't',
	type,
	at: seq * 1000,
	source: 'wrapper',
	data,
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
		expect(describeEvent(at(1, 'custom.thing', {a: 1}))).toBe('custom.thing {"a":1}');
	});
});
