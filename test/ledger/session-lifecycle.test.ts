import {describe, expect, it} from 'vitest';
import {EventType, newEvent, type NewEvent} from '../../src/core/events.ts';
import {applyEvent, ENDED_MID_TURN, type Task} from '../../src/core/task.ts';
import {mapHookPayload, sessionTaskId, type MappingContext} from '../../src/ledger/payload-mapping.ts';
import {hookPayloadSchema} from '../../src/ledger/payload-schema.ts';
import {claudePayload, fixture} from '../helpers/payloads.ts';

const SESSION = 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9';
const TASK = sessionTaskId('claude', SESSION);
const WRAPPER = 'w-0123456789';

/** Folds hook payloads (with the hook's context) and other events into tasks, in order. */
class Fold {
	readonly tasks = new Map<string, Task>();
	private at = 1000;

	hook(payload: Record<string, unknown>, context: Partial<MappingContext> = {}): this {
		this.at += 1;
		const events = mapHookPayload(hookPayloadSchema.parse(payload), {source: 'claude', at: this.at, ...context});
		return this.apply(events);
	}

	wrapper<T extends Parameters<typeof newEvent>[0]>(type: T, data: Parameters<typeof newEvent<T>>[1]): this {
		this.at += 1;
		return this.apply([newEvent(type, data, {taskId: WRAPPER, at: this.at, source: 'wrapper'})]);
	}

	private apply(events: readonly NewEvent[]): this {
		for (const event of events) {
			const next = applyEvent(this.tasks.get(event.taskId), event);
			if (next) this.tasks.set(event.taskId, next);
		}
		return this;
	}
}

const stopFailure = () => fixture('claude/StopFailure.json');
const prompt = () => fixture('claude/UserPromptSubmit.json');

describe('failures stay failures until a later turn completes', () => {
	it('keeps a session failed when it ends after a StopFailure (the TUI then /exit)', () => {
		const run = new Fold().hook(fixture('claude/SessionStart.json')).hook(prompt()).hook(stopFailure());
		expect(run.tasks.get(TASK)?.status).toBe('failed');
		run.hook(fixture('claude/SessionEnd.json'));
		expect(run.tasks.get(TASK)).toMatchObject({status: 'failed', error: 'API Error: 400 fake server error', endReason: 'other'});
	});

	it('shows a session running again once it works after a failure, the failure kept until a turn completes', () => {
		const run = new Fold().hook(fixture('claude/SessionStart.json')).hook(prompt()).hook(stopFailure()).hook(prompt());
		expect(run.tasks.get(TASK)).toMatchObject({status: 'running', endedAt: null, error: 'API Error: 400 fake server error'});
		run.hook(fixture('claude/Stop.json'));
		expect(run.tasks.get(TASK)).toMatchObject({status: 'running', error: null});
		run.hook(fixture('claude/SessionEnd.json'));
		expect(run.tasks.get(TASK)).toMatchObject({status: 'done', exitCode: null});
	});

	it('ends failed when the session works again after a failure but ends before a turn completes', () => {
		const run = new Fold().hook(prompt()).hook(stopFailure()).hook(prompt()).hook(fixture('claude/SessionEnd.json'));
		expect(run.tasks.get(TASK)).toMatchObject({status: 'failed', error: 'API Error: 400 fake server error'});
	});

	it('keeps a stopped session stopped when its SessionEnd arrives after the stop', () => {
		const run = new Fold().hook(fixture('claude/SessionStart.json'));
		run.tasks.set(TASK, {...(run.tasks.get(TASK) as Task), status: 'stopped', signal: 'SIGTERM', endedAt: 1500});
		run.hook(fixture('claude/SessionEnd.json'));
		expect(run.tasks.get(TASK)).toMatchObject({status: 'stopped', signal: 'SIGTERM'});
	});
});

describe('a session under `controlroom run` is the wrapper’s task', () => {
	const wrapped = {wrapperTaskId: WRAPPER, pid: 5555};

	function wrappedRun(): Fold {
		return new Fold()
			.wrapper(EventType.registered, {title: 'claude -p hi', source: 'wrapper', budget: 1000})
			.wrapper(EventType.started, {pid: 4444, pgid: 4444, startTime: 77});
	}

	it('lands every event on the wrapper’s task, which keeps its source, PID and group', () => {
		const run = wrappedRun()
			.hook(fixture('claude/SessionStart.json'), wrapped)
			.hook(prompt(), wrapped)
			.hook(fixture('claude/Stop.json'), wrapped);
		expect([...run.tasks.keys()]).toEqual([WRAPPER]);
		expect(run.tasks.get(WRAPPER)).toMatchObject({
			source: 'wrapper',
			pid: 4444,
			pgid: 4444,
			sessionId: SESSION,
			status: 'running',
		});
	});

	it('leaves the end to the wrapper: the session’s SessionEnd does not make the run done', () => {
		const run = wrappedRun().hook(fixture('claude/SessionStart.json'), wrapped).hook(fixture('claude/SessionEnd.json'), wrapped);
		expect(run.tasks.get(WRAPPER)?.status).toBe('running');
		run.wrapper(EventType.exited, {exitCode: 0});
		expect(run.tasks.get(WRAPPER)).toMatchObject({status: 'done', exitCode: 0});
	});

	it('makes an API error in -p mode one failure of the run, with the session’s reason', () => {
		const run = wrappedRun()
			.hook(fixture('claude/SessionStart.json'), wrapped)
			.hook(prompt(), wrapped)
			.hook(fixture('claude/SessionEnd.json'), wrapped)
			.wrapper(EventType.exited, {exitCode: 1});
		expect(run.tasks.get(WRAPPER)).toMatchObject({status: 'failed', exitCode: 1, error: ENDED_MID_TURN});
	});

	it('keeps a run failed whose session failed, even when the process exits 0', () => {
		const run = wrappedRun().hook(prompt(), wrapped).hook(stopFailure(), wrapped);
		expect(run.tasks.get(WRAPPER)).toMatchObject({status: 'running', error: 'API Error: 400 fake server error'});
		run.wrapper(EventType.exited, {exitCode: 0});
		expect(run.tasks.get(WRAPPER)).toMatchObject({status: 'failed', exitCode: 0, error: 'API Error: 400 fake server error'});
	});

	it('takes Codex’s turn.failed message as the run’s error', () => {
		const run = wrappedRun()
			.wrapper(EventType.agentEvent, {event: 'turn.failed', payload: {message: 'stream disconnected'}})
			.wrapper(EventType.exited, {exitCode: 1});
		expect(run.tasks.get(WRAPPER)).toMatchObject({status: 'failed', exitCode: 1, error: 'stream disconnected'});
	});

	it('puts the session’s sub-agents under the wrapper’s task', () => {
		const run = wrappedRun().hook(
			claudePayload('Stop', SESSION, {hook_event_name: 'SubagentStart', agent_id: 'a1', agent_type: 'Explore'}),
			wrapped,
		);
		const helper = [...run.tasks.values()].find(task => task.source === 'claude-helper');
		expect(helper?.parentId).toBe(WRAPPER);
	});
});

describe('the agent’s PID', () => {
	const codexStart = () => claudePayload('SessionStart', 'thread-9', {turn_id: 't', model: 'm'});

	it('is found among the hook’s parents when the agent names none (Codex), with its start time', () => {
		const ancestors = [
			{pid: 300, startTime: 9000, name: 'sh'},
			{pid: 200, startTime: 8000, name: 'codex'},
			{pid: 100, startTime: 7000, name: 'node'},
		];
		const events = mapHookPayload(hookPayloadSchema.parse(codexStart()), {source: 'codex', at: 1, ancestors});
		expect(events.find(event => event.type === EventType.started)?.data).toEqual({
			pid: 200,
			startTime: 8000,
			pidFrom: 'parent process',
		});
	});

	it('stays unknown when no parent is the agent', () => {
		const ancestors = [
			{pid: 300, startTime: 9000, name: 'sh'},
			{pid: 100, startTime: 7000, name: 'node'},
		];
		const events = mapHookPayload(hookPayloadSchema.parse(codexStart()), {source: 'codex', at: 1, ancestors});
		expect(events.find(event => event.type === EventType.started)?.data).toEqual({});
	});

	it('is CLAUDE_PID for Claude, its start time taken from the parent chain', () => {
		const ancestors = [
			{pid: 300, startTime: 9000, name: 'sh'},
			{pid: 5555, startTime: 8000, name: 'claude'},
		];
		const events = mapHookPayload(hookPayloadSchema.parse(fixture('claude/SessionStart.json')), {
			source: 'claude',
			at: 1,
			pid: 5555,
			ancestors,
		});
		expect(events.find(event => event.type === EventType.started)?.data).toEqual({
			pid: 5555,
			startTime: 8000,
			pidFrom: 'CLAUDE_PID',
		});
	});
});
