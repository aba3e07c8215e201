import {describe, expect, it} from 'vitest';
import {EventType, FOREIGN_EVENT, parseStoredEvent, storedTypeOf, type StoredEventRow} from '../../src/core/events.ts';

const row = (type: string, data: string): StoredEventRow => ({
	seq: 1,
	taskId: 't',
	type,
	at: 1000,
	source: 'cli',
	data,
	dedupKey: null,
});

describe('the event declaration', () => {
	it('reads every declared type back as itself, not as foreign', () => {
		const types = Object.values(EventType);
		expect(types.length).toBeGreaterThan(40);
		expect(new Set(types).size).toBe(types.length);
		for (const type of types)
			expect(parseStoredEvent(row(type, '{"added":"by a newer producer"}'))).toMatchObject({
				type,
				data: {added: 'by a newer producer'},
			});
	});

	it('keeps a type it does not declare, and data that does not fit its type, as foreign', () => {
		const unknown = parseStoredEvent(row('custom.thing', '{"a":1}'));
		expect(unknown).toMatchObject({type: FOREIGN_EVENT, storedType: 'custom.thing', data: {a: 1}});
		const misfit = parseStoredEvent(row(EventType.started, '{"pid":"not a number"}'));
		expect(misfit).toMatchObject({type: FOREIGN_EVENT, storedType: EventType.started, data: {pid: 'not a number'}});
		expect(storedTypeOf(misfit)).toBe(EventType.started);
	});

	it('does not take an inherited property name for a type', () => {
		expect(parseStoredEvent(row('toString', '{}')).type).toBe(FOREIGN_EVENT);
		expect(parseStoredEvent(row('__proto__', '{}')).type).toBe(FOREIGN_EVENT);
	});
});
