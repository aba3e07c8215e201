import {expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {applyEvent, isSessionAtRest} from '../../src/core/task.ts';

const started = applyEvent(
	undefined,
	{taskId: 'c-1', type: EventType.agentEvent, at: 1000, source: 'claude', data: {event: 'SessionStart', pid: 42}},
	1,
);

it.each([
	['an acknowledgement', {type: EventType.acknowledged, source: 'board', data: {signalAt: 1000}}],
	['a need raised by hand', {type: EventType.needRaised, source: 'cli', data: {message: 'look'}}],
	[
		'the reconciler noting the PID start time',
		{type: EventType.pidReported, source: 'reconciler', data: {pid: 42, startTime: 7}},
	],
])('does not count %s as a sign of life', (_name, event) => {
	const next = applyEvent(started, {taskId: 'c-1', at: 900_000, ...event}, 2);
	expect(next?.lastEventAt).toBe(1000);
	expect(next?.lastSeq).toBe(2);
});

it('counts an agent event as a sign of life', () => {
	const next = applyEvent(
		started,
		{taskId: 'c-1', type: EventType.agentEvent, at: 900_000, source: 'claude', data: {event: 'PreToolUse'}},
		2,
	);
	expect(next?.lastEventAt).toBe(900_000);
});

it('marks a session at rest only once a turn of it has completed', () => {
	const event = (name: string, at: number) =>
		({taskId: 'c-1', type: EventType.agentEvent, at, source: 'claude', data: {event: name}}) as const;
	expect(isSessionAtRest(started!)).toBe(false);
	const prompted = applyEvent(started, event('UserPromptSubmit', 2000), 2);
	expect(isSessionAtRest(prompted!)).toBe(false);
	const stopped = applyEvent(prompted, event('Stop', 3000), 3);
	expect(isSessionAtRest(stopped!)).toBe(true);
	expect(isSessionAtRest(applyEvent(stopped, event('UserPromptSubmit', 4000), 4)!)).toBe(false);
});
