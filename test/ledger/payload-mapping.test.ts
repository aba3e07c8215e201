import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {applyEvent, type Task} from '../../src/core/task.ts';
import {helperTaskId, mapHookPayload, mapNotifyPayload, sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {hookPayloadSchema, notifyPayloadSchema} from '../../src/ledger/payload-schema.ts';
import {claudePayload, fixture} from '../helpers/payloads.ts';

const SESSION = 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9';

function fold(payloads: Record<string, unknown>[], options: {source?: 'claude' | 'codex'; pid?: number} = {}): Map<string, Task> {
	const tasks = new Map<string, Task>();
	payloads.forEach((payload, index) => {
		const events = mapHookPayload(hookPayloadSchema.parse(payload), {
			source: options.source ?? 'claude',
			at: 1000 + index,
			pid: options.pid ?? null,
		});
		for (const event of events) {
			const next = applyEvent(tasks.get(event.taskId), event);
			if (next) tasks.set(event.taskId, next);
		}
	});
	return tasks;
}

describe('hook payload mapping', () => {
	it('makes a real Claude session one task with its cwd, session id and PID', () => {
		const names = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolBatch', 'Stop', 'SessionEnd'];
		const tasks = fold(
			names.map(name => fixture(`claude/${name}.json`)),
			{pid: 4321},
		);
		expect([...tasks.keys()]).toEqual([sessionTaskId('claude', SESSION)]);
		expect(tasks.get(sessionTaskId('claude', SESSION))).toMatchObject({
			source: 'claude',
			cwd: '/home/dev/cc-project',
			sessionId: SESSION,
			pid: 4321,
			title: 'say hi',
			status: 'done',
			exitCode: null,
			endReason: 'other',
		});
	});

	it('keeps the PID unknown when the hook was given none', () => {
		const tasks = fold([fixture('claude/SessionStart.json')]);
		expect(tasks.get(sessionTaskId('claude', SESSION))?.pid).toBeNull();
	});

	it('ends a session failed on StopFailure, with the API error in words', () => {
		// A real StopFailure (claude -p against an API answering 400): the words are in last_assistant_message.
		const tasks = fold([fixture('claude/SessionStart.json'), fixture('claude/StopFailure.json')]);
		expect(tasks.get(sessionTaskId('claude', SESSION))).toMatchObject({
			status: 'failed',
			error: 'API Error: 400 fake server error',
			exitCode: null,
		});
	});

	it('names the kind of a StopFailure beside its words when Claude gives one', () => {
		const tasks = fold([
			fixture('claude/SessionStart.json'),
			claudePayload('StopFailure', SESSION, {error: 'authentication_failed', last_assistant_message: 'Not logged in'}),
		]);
		expect(tasks.get(sessionTaskId('claude', SESSION))?.error).toBe('Not logged in (authentication_failed)');
	});

	it('ends a session failed when it ends mid-turn, as an API error in -p mode does', () => {
		const tasks = fold([
			fixture('claude/SessionStart.json'),
			fixture('claude/UserPromptSubmit.json'),
			fixture('claude/SessionEnd.json'),
		]);
		expect(tasks.get(sessionTaskId('claude', SESSION))?.status).toBe('failed');
	});

	it('makes a subagent a helper task with its parent, and ignores /compact’s phantom SubagentStop', () => {
		const parent = sessionTaskId('claude', SESSION);
		const tasks = fold([
			fixture('claude/SessionStart.json'),
			claudePayload('Stop', SESSION, {hook_event_name: 'SubagentStart', agent_id: 'a1', agent_type: 'Explore'}),
			claudePayload('Stop', SESSION, {hook_event_name: 'SubagentStop', agent_id: 'a1', agent_type: 'Explore'}),
			claudePayload('Stop', SESSION, {hook_event_name: 'SubagentStop', agent_id: 'a2', agent_type: ''}),
		]);
		expect([...tasks.keys()].sort()).toEqual([parent, helperTaskId(parent, 'a1')].sort());
		expect(tasks.get(helperTaskId(parent, 'a1'))).toMatchObject({
			source: 'claude-helper',
			parentId: parent,
			title: 'Explore',
			status: 'done',
		});
	});

	it('gives each of 100,000 helpers of one session an id of its own', () => {
		const parent = sessionTaskId('claude', SESSION);
		const ids = new Set<string>();
		// Distinct agent ids, one per helper
		for (let index = 0; index < 100_000; index += 1) ids.add(helperTaskId(parent, `a${index.toString(16).padStart(16, '0')}`));
		expect(ids.size).toBe(100_000);
	});

	it('takes progress from TodoWrite, Task events and Codex update_plan', () => {
		const todos = [
			{content: 'a', status: 'completed', activeForm: 'A'},
			{content: 'b', status: 'in_progress', activeForm: 'B'},
			{content: 'c', status: 'pending', activeForm: 'C'},
		];
		const todo = fold([claudePayload('PostToolUse', SESSION, {tool_name: 'TodoWrite', tool_input: {todos}})]);
		expect(todo.get(sessionTaskId('claude', SESSION))?.progress).toEqual({done: 1, total: 3});

		const created = (id: string) =>
			claudePayload('Stop', SESSION, {hook_event_name: 'TaskCreated', task_id: id, task_subject: id});
		const items = fold([
			created('1'),
			created('2'),
			claudePayload('Stop', SESSION, {hook_event_name: 'TaskCompleted', task_id: '1'}),
		]);
		expect(items.get(sessionTaskId('claude', SESSION))?.progress).toEqual({done: 1, total: 2});

		const plan = [
			{step: 'x', status: 'completed'},
			{step: 'y', status: 'in_progress'},
		];
		const codex = fold(
			[claudePayload('PostToolUse', 'thread-1', {tool_name: 'update_plan', tool_input: {plan}, turn_id: 't', model: 'm'})],
			{source: 'codex'},
		);
		expect(codex.get(sessionTaskId('codex', 'thread-1'))).toMatchObject({source: 'codex', progress: {done: 1, total: 2}});
	});

	it('shows no progress for a session that declared no list', () => {
		const tasks = fold([fixture('claude/SessionStart.json'), fixture('claude/PostToolUse.json')]);
		expect(tasks.get(sessionTaskId('claude', SESSION))?.progress).toBeNull();
	});

	it('raises a need for a Notification asking for the person', () => {
		const events = mapHookPayload(
			hookPayloadSchema.parse(
				claudePayload('Stop', SESSION, {
					hook_event_name: 'Notification',
					message: 'Claude needs your permission to use Bash',
					notification_type: 'permission_prompt',
				}),
			),
			{source: 'claude', at: 1},
		);
		expect(events.filter(event => event.type === EventType.needRaised).map(event => event.data)).toEqual([
			{message: 'Claude needs your permission to use Bash', kind: 'permission_prompt'},
		]);
	});

	it('records Codex notify as a turn end on the thread’s task', () => {
		const payload = notifyPayloadSchema.parse(fixture('codex/notify.json'));
		const [event] = mapNotifyPayload(payload, {source: 'codex', at: 5});
		expect(event).toMatchObject({
			taskId: sessionTaskId('codex', '01a22900-6136-7ae0-bfda-f40b735ec8b2'),
			type: EventType.agentEvent,
			data: {event: 'agent-turn-complete', titleHint: 'say hi'},
		});
	});

	it('resumes an ended session when it starts again', () => {
		const tasks = fold([
			fixture('claude/SessionStart.json'),
			fixture('claude/SessionEnd.json'),
			claudePayload('SessionStart', SESSION, {source: 'resume'}),
		]);
		expect(tasks.get(sessionTaskId('claude', SESSION))).toMatchObject({status: 'running', endedAt: null});
	});
});
