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

it('ends a hooked session stopped, not done or failed, when its goodbye is folded before the stop records itself', () => {
	const event = (type: string, at: number, source: string, data: Record<string, unknown>) =>
		({taskId: 'c-1', type, at, source, data}) as Parameters<typeof applyEvent>[1];
	const prompted = applyEvent(started, event(EventType.agentEvent, 2000, 'claude', {event: 'UserPromptSubmit'}), 2);
	const asked = applyEvent(prompted, event(EventType.stopRequested, 3000, 'board', {signal: 'SIGTERM', graceMs: 5000}), 3);
	// Its SessionEnd on SIGTERM (a turn open, as in a permission dialog) lands before task.stopped
	const goodbye = applyEvent(asked, event(EventType.ended, 3100, 'claude', {reason: 'other'}), 4);
	expect(goodbye).toMatchObject({status: 'stopped', signal: 'SIGTERM'});
	// A failure it reports as it dies is the stop's too
	const failed = applyEvent(asked, event(EventType.failed, 3100, 'claude', {error: 'aborted'}), 4);
	expect(failed).toMatchObject({status: 'stopped'});
	// Long after a stop that did nothing (refused), the session's own end is its own again
	const later = applyEvent(asked, event(EventType.ended, 3000 + 5000 + 60_000, 'claude', {reason: 'other'}), 4);
	expect(later?.status).toBe('failed');
});

it('is never stalled while a question of it waits for a person', async () => {
	const {deriveHealth} = await import('../../src/core/status.ts');
	const {isWaitingForPerson} = await import('../../src/core/task.ts');
	const asked = applyEvent(
		started,
		{
			taskId: 'c-1',
			type: EventType.decisionAsked,
			at: 2000,
			source: 'hold-hook',
			data: {decisionId: 'd-1', kind: 'deferred', expiresAt: null},
		},
		2,
	)!;
	const hourLater = 2000 + 3_600_000;
	expect(deriveHealth(asked.status, asked.lastSeenAt, hourLater, 600, isWaitingForPerson(asked, hourLater))).toBe('active');
	const answered = applyEvent(
		asked,
		{taskId: 'c-1', type: EventType.decisionAnswered, at: 3000, source: 'cli', data: {decisionId: 'd-1', answer: 'allow'}},
		3,
	)!;
	expect(deriveHealth(answered.status, answered.lastSeenAt, hourLater, 600, isWaitingForPerson(answered, hourLater))).toBe(
		'stalled',
	);
});
