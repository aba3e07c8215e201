import {describe, expect, it} from 'vitest';
import {EventType, newEvent, type EventDataOf} from '../../src/core/events.ts';
import {applyEvent, type Task} from '../../src/core/task.ts';

const at = Date.parse('2026-12-01T10:00:00Z');

function folded(task: Task | undefined): Task {
	if (!task) throw new Error('the event made no task');
	return task;
}

function request(task: Task | undefined, data: EventDataOf<'telemetry.request'>): Task {
	return folded(applyEvent(task, newEvent(EventType.telemetryRequest, data, {taskId: 'w-1', at, source: 'claude'})));
}

function tokens(task: Task | undefined, input: number, output: number): Task {
	return folded(applyEvent(task, newEvent(EventType.tokensReported, {input, output}, {taskId: 'w-1', at, source: 'claude'})));
}

describe('the agent’s telemetry on a task: tokens counted once, cost exact', () => {
	it('after a transcript count, requests add cost but not tokens', () => {
		let task = tokens(undefined, 1384, 42);
		task = request(task, {input: 1384, output: 42, costUsd: 0.006286});
		task = tokens(task, 1384, 42);
		task = request(task, {input: 1384, output: 42, costUsd: 0.006286});
		expect(task.tokens).toEqual({input: 2768, output: 84, total: 2852});
		expect(task.telemetry).toEqual({requests: 2, input: 2768, output: 84, costUsd: 0.012572, at, sessionId: null});
	});

	it('before any other count, the telemetry’s tokens stand; the first transcript count replaces them', () => {
		let task = request(undefined, {input: 1384, output: 42, costUsd: 0.006286});
		task = request(task, {input: 1384, output: 42, costUsd: 0.006286});
		expect(task.tokens).toEqual({input: 2768, output: 84, total: 2852});
		task = tokens(task, 2768, 84);
		expect(task.tokens).toEqual({input: 2768, output: 84, total: 2852});
		expect(task.isTokensFromTelemetry).toBe(false);
		// Later requests are the transcript's to count
		task = request(task, {input: 100, output: 1, costUsd: null});
		expect(task.tokens.total).toBe(2852);
		expect(task.telemetry).toMatchObject({requests: 3, costUsd: 0.012572});
	});
});
