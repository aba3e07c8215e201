import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {EventType, type NewEvent} from '../../src/core/events.ts';
import {familyOf} from '../../src/core/family.ts';
import {statusLabel} from '../../src/core/labels.ts';
import {openHelpersAfter} from '../../src/core/open-helpers.ts';
import {shippedPriceTable} from '../../src/core/price-table.ts';
import {lostTasks, planReconcile, type RecordedProcess, type WatchedTask} from '../../src/core/reconcile-plan.ts';
import {toSnapshotTask} from '../../src/core/snapshot.ts';
import {applyEvent, isSessionAtRest, type Task} from '../../src/core/task.ts';
import {helperTaskId, mapHookPayload, sessionTaskId, type MappingContext} from '../../src/ledger/payload-mapping.ts';
import {hookPayloadSchema} from '../../src/ledger/payload-schema.ts';

// Hook payloads as the real Claude Code 2.1.328 sent them (test/fixtures/subagents/), for a session
// whose one helper runs in the background: the parent's Stop comes while it works and lists it.

const PRICES = shippedPriceTable();
const WRAPPER = 'w-0123456789';

function realPayloads(name: string): Record<string, unknown>[] {
	const path = fileURLToPath(new URL(`../fixtures/subagents/${name}`, import.meta.url));
	return readFileSync(path, 'utf8')
		.trim()
		.split('\n')
		.map(line => JSON.parse(line) as Record<string, unknown>);
}

/** Folds payloads (or other events) in order, one millisecond apart. */
class Fold {
	readonly tasks = new Map<string, Task>();
	at = 1000;

	hooks(payloads: readonly Record<string, unknown>[], context: Partial<MappingContext> = {}): this {
		for (const payload of payloads) {
			this.at += 1;
			this.apply(mapHookPayload(hookPayloadSchema.parse(payload), {source: 'claude', at: this.at, pid: 4242, ...context}));
		}
		return this;
	}

	event(event: Omit<NewEvent, 'at'>): this {
		this.at += 1;
		return this.apply([{...event, at: this.at} as NewEvent]);
	}

	private apply(events: readonly NewEvent[]): this {
		for (const event of events) {
			const next = applyEvent(this.tasks.get(event.taskId), event);
			if (next) this.tasks.set(event.taskId, next);
		}
		return this;
	}
}

const done = realPayloads('background-helper-done.jsonl');
const sigterm = realPayloads('background-helper-sigterm.jsonl');
const sessionOf = (payloads: readonly Record<string, unknown>[]) => sessionTaskId('claude', String(payloads[0]?.['session_id']));
const agentIdOf = (payloads: readonly Record<string, unknown>[]) =>
	String(payloads.find(payload => payload['hook_event_name'] === 'SubagentStart')?.['agent_id']);

describe('the helpers a session has open, by its own hooks', () => {
	it('opens on SubagentStart, is listed by the Stop that comes while it works, closes on SubagentStop', () => {
		const open: (readonly string[] | undefined)[] = [];
		let current: readonly string[] | undefined;
		for (const payload of done) {
			current = openHelpersAfter(current, String(payload['hook_event_name']), payload);
			open.push(current);
		}
		const names = done.map(payload => payload['hook_event_name']);
		const agent = agentIdOf(done);
		expect(open[names.indexOf('SubagentStart')]).toEqual([agent]);
		expect(open[names.indexOf('Stop')]).toEqual([agent]);
		expect(open[names.indexOf('SubagentStop')]).toEqual([]);
		expect(open.at(-1)).toEqual([]);
	});

	it('keeps a session that stopped its turn with a helper working out of rest: its Stop is not its end', () => {
		const beforeEnd = sigterm.filter(payload => payload['hook_event_name'] !== 'SessionEnd');
		const session = new Fold().hooks(beforeEnd).tasks.get(sessionOf(sigterm)) as Task;
		expect(session).toMatchObject({status: 'running', isTurnOpen: false, hasCompletedTurn: true});
		expect(session.openHelpers).toEqual([agentIdOf(sigterm)]);
		expect(isSessionAtRest(session)).toBe(false);
	});

	it('ends a session whose helper finished before it: done, nothing open', () => {
		const fold = new Fold().hooks(done);
		expect(fold.tasks.get(sessionOf(done))).toMatchObject({status: 'done', endReason: 'other', openHelpers: []});
		expect(fold.tasks.get(helperTaskId(sessionOf(done), agentIdOf(done)))?.status).toBe('done');
	});

	it('ends a session whose SessionEnd came while its helper worked (SIGTERM) stopped with work outstanding, never done', () => {
		const fold = new Fold().hooks(sigterm);
		expect(fold.tasks.get(sessionOf(sigterm))).toMatchObject({
			status: 'stopped',
			endReason: 'ended with work outstanding: 1 helper still working (SessionEnd: other)',
		});
		// The helper's own status is its own: it never said it ended, so it is not ended here either (the reconciler decides).
		expect(fold.tasks.get(helperTaskId(sessionOf(sigterm), agentIdOf(sigterm)))?.status).toBe('running');
	});

	it('says so in the status cell and the snapshot: stopped (work unfinished), helpersUnfinished 1; a finished one reads as before', () => {
		const view = toSnapshotTask(new Fold().hooks(sigterm).tasks.get(sessionOf(sigterm)) as Task, 5000);
		expect(view).toMatchObject({status: 'stopped', helpersUnfinished: 1});
		expect(statusLabel(view)).toBe('stopped (work unfinished)');
		const finished = toSnapshotTask(new Fold().hooks(done).tasks.get(sessionOf(done)) as Task, 5000);
		expect(finished).not.toHaveProperty('helpersUnfinished');
		expect(statusLabel(finished)).toBe('done');
		const running = toSnapshotTask(
			new Fold()
				.hooks(sigterm.filter(payload => payload['hook_event_name'] !== 'SessionEnd'))
				.tasks.get(sessionOf(sigterm)) as Task,
			5000,
		);
		expect(running).not.toHaveProperty('helpersUnfinished');
	});

	it('ends a wrapped run that exits 0 while its helper works stopped with work outstanding; done once the helper ended', () => {
		const context = {wrapperTaskId: WRAPPER};
		const registered = {taskId: WRAPPER, source: 'wrapper'};
		const start = (fold: Fold) =>
			fold
				.event({...registered, type: EventType.registered, data: {title: 'claude -p'}})
				.event({...registered, type: EventType.started, data: {pid: 4242, pgid: 4242}});
		const open = start(new Fold())
			.hooks(
				sigterm.filter(payload => payload['hook_event_name'] !== 'SessionEnd'),
				context,
			)
			.event({...registered, type: EventType.exited, data: {exitCode: 0}});
		expect(open.tasks.get(WRAPPER)).toMatchObject({
			status: 'stopped',
			exitCode: 0,
			endReason: 'ended with work outstanding: 1 helper still working (exit 0)',
		});
		const finished = start(new Fold())
			.hooks(done, context)
			.event({...registered, type: EventType.exited, data: {exitCode: 0}});
		expect(finished.tasks.get(WRAPPER)).toMatchObject({status: 'done', exitCode: 0});
	});

	it('never lets a helper that starts after its session ended (a forgery) make the session active', () => {
		const fold = new Fold().hooks(done);
		const session = sessionOf(done);
		const forged = {...done.find(payload => payload['hook_event_name'] === 'SubagentStart'), agent_id: 'aforged0000000001'};
		fold.hooks([forged], {pid: null});
		const parent = fold.tasks.get(session) as Task;
		expect(parent).toMatchObject({status: 'done', openHelpers: []});
		const helperId = helperTaskId(session, 'aforged0000000001');
		expect(fold.tasks.get(helperId)?.status).toBe('running');
		const facts = familyOf(fold.tasks.values(), {now: fold.at, prices: PRICES});
		expect(facts.get(session)).toMatchObject({helpersActive: 0});
		expect(facts.get(helperId)?.isAliveHelper).toBe(false);
	});
});

describe('what the reconciler makes of a helper whose session ended', () => {
	const proc = (pid: number) => ({pid, ppid: 1, pgid: pid, name: 'claude', state: 'S', startTime: 1000 + pid});
	const recorded = (pid: number): RecordedProcess => ({pid, startTime: 1000 + pid, wrapperPid: null, wrapperStartTime: null});
	const helper = (parent: Pick<Task, 'id' | 'status' | 'endedAt'>, parentProcess: RecordedProcess | null, lastSeenAt = 500) =>
		({
			task: {
				id: `${parent.id}.abc123`,
				status: 'running',
				pid: null,
				lastSeq: 3,
				source: 'claude-helper',
				isTurnOpen: false,
				hasCompletedTurn: false,
				parentId: parent.id,
				lastSeenAt,
			},
			registeredBy: null,
			process: null,
			parent,
			parentProcess,
		}) satisfies WatchedTask;
	const plan = (watched: WatchedTask[], live: number[]) =>
		planReconcile({
			now: 5000,
			watched,
			processes: new Map(live.map(pid => [pid, proc(pid)])),
			agentProcesses: [],
			knownTaskIds: new Set(),
			namedByTask: () => null,
		});

	it('leaves it running while its session’s process lives, whatever the parent ended as', () => {
		expect(plan([helper({id: 'c-1', status: 'stopped', endedAt: 900}, recorded(77))], [77]).guarded).toEqual([]);
	});

	it('loses it on its own terms once that process is gone: never “lost with its parent (done)”', () => {
		const {guarded} = plan([helper({id: 'c-1', status: 'done', endedAt: 900}, recorded(77), 2000)], []);
		expect(guarded.map(write => write.verdict.kind)).toEqual(['with-parent']);
		const [lost] = lostTasks(guarded);
		expect(lost?.reason).toBe(
			"its session's process 77 is gone and it never reported its end (no SubagentStop): how its work ended is unknown",
		);
		expect(lost?.reason).not.toMatch(/\(done\)/);
	});

	it('without a recorded process, keeps a helper whose own events went on after its parent ended', () => {
		expect(plan([helper({id: 'c-1', status: 'lost', endedAt: 900}, null, 1200)], []).guarded).toEqual([]);
		const {guarded} = plan([helper({id: 'c-1', status: 'lost', endedAt: 900}, null, 800)], []);
		expect(lostTasks(guarded)[0]?.reason).toMatch(/^its session c-1 ended and it never reported its end/);
	});

	it('loses a session whose process died with a helper working, and says so (its Stop is no clean end)', () => {
		const session = new Fold()
			.hooks(sigterm.filter(payload => payload['hook_event_name'] !== 'SessionEnd'))
			.tasks.get(sessionOf(sigterm)) as Task;
		const {guarded} = plan([{task: session, registeredBy: null, process: recorded(4242)}], []);
		expect(guarded.map(write => write.verdict.kind)).toEqual(['gone']);
		expect(lostTasks(guarded)[0]?.reason).toBe('process 4242 is gone and no exit was recorded, with 1 helper still working');
	});
});
