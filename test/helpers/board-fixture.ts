import {readdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {EventType, newEvent, type EventDataOf, type EventTypeName, type NewEvent} from '../../src/core/events.ts';
import {applyEvent, type Task} from '../../src/core/task.ts';
import type {Ledger} from '../../src/ledger/open-ledger.ts';
import {ingestLines} from '../../src/ledger/ingest.ts';

/** The fixed "now" of board fixtures: 2026-11-29T20:00:00Z. */
export const FIXED_NOW = Date.UTC(2026, 10, 29, 20, 0, 0);

const MIN = 60_000;

function ev<T extends EventTypeName>(
	taskId: string,
	type: T,
	minutesAgo: number,
	data: EventDataOf<T> | undefined,
	source = 'wrapper',
	now = FIXED_NOW,
): NewEvent {
	return newEvent(type, data ?? ({} as EventDataOf<T>), {taskId, at: now - minutesAgo * MIN, source});
}

/**
 * Events for tasks in every status: running with declared progress and tokens, running with
 * nothing reported, stalled, lost, untracked, registered, done, failed, stopped, and a need.
 */
export function boardFixtureEvents(now = FIXED_NOW, pids: {readonly progress?: number} = {}): NewEvent[] {
	const e = <T extends EventTypeName>(taskId: string, type: T, minutesAgo: number, data?: EventDataOf<T>, source = 'wrapper') =>
		ev(taskId, type, minutesAgo, data, source, now);
	return [
		e('t-progress', EventType.registered, 30, {title: 'fix csv export', steps: 4, budget: 40_000_000, cwd: '/repo/a'}),
		e('t-progress', EventType.started, 30, {pid: pids.progress ?? 4242, pgid: pids.progress ?? 4242}),
		e('t-progress', EventType.progressed, 2, {done: 2, total: 4}),
		e('t-progress', EventType.tokensReported, 1, {input: 1200, output: 300}),
		e('t-quiet', EventType.registered, 12, {title: 'write the changelog', cwd: '/repo/b'}),
		e('t-quiet', EventType.started, 12, {pid: null}),
		e('t-quiet', EventType.heartbeat, 1, {outputAt: now - MIN}),
		e('t-stalled', EventType.registered, 60, {title: 'migrate the schema', cwd: '/repo/c'}),
		e('t-stalled', EventType.started, 60, {pid: 5151}),
		e('t-stalled', EventType.heartbeat, 40),
		e('t-stalled', EventType.heartbeat, 35),
		e('t-stalled', EventType.heartbeat, 30),
		e('t-lost', EventType.registered, 50, {title: 'refactor the parser', cwd: '/repo/d'}),
		e('t-lost', EventType.started, 50, {pid: 6161}),
		e('t-lost', EventType.lost, 10, {reason: 'pid 6161 gone with no exit recorded'}, 'reconciler'),
		e('u-7070', EventType.discovered, 3, {pid: 7070, command: 'codex', cwd: '/home/dev'}, 'reconciler'),
		e('t-queued', EventType.registered, 0.5, {title: 'waiting for a slot', cwd: '/repo/e'}),
		e('t-done', EventType.registered, 90, {title: 'bump dependencies', cwd: '/repo/f'}),
		e('t-done', EventType.started, 90, {pid: 8181}),
		e('t-done', EventType.exited, 80, {exitCode: 0}),
		e('t-failed', EventType.registered, 40, {title: 'flaky e2e suite', cwd: '/repo/g'}),
		e('t-failed', EventType.started, 40, {pid: 9191}),
		e('t-failed', EventType.exited, 20, {exitCode: 1}),
		e('t-stopped', EventType.registered, 70, {title: 'long benchmark', cwd: '/repo/h'}),
		e('t-stopped', EventType.started, 70, {pid: 9292}),
		e('t-stopped', EventType.stopped, 65, {signal: 'SIGTERM', reason: 'stopped from the board', exitCode: 143}),
		e('t-quiet', EventType.needRaised, 5, {message: 'which branch should I target?', kind: 'question'}, 'cli'),
	];
}

/** Folds fixture events into tasks with the projection's own pure fold. */
export function foldTasks(events: readonly NewEvent[]): Map<string, Task> {
	const tasks = new Map<string, Task>();
	events.forEach((event, index) => {
		const task = applyEvent(tasks.get(event.taskId), event, index + 1);
		if (task) tasks.set(task.id, task);
	});
	return tasks;
}

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Ingests the real Claude Code payload fixtures (one session) and the Codex notify payload. */
export function ingestAgentFixtures(ledger: Ledger, now: number, dir = FIXTURES): void {
	const claude = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolBatch', 'Stop'].map(name =>
		readFileSync(join(dir, 'claude', `${name}.json`), 'utf8').replace(/\s*\n\s*/g, ' '),
	);
	ingestLines(ledger, claude, {origin: 'fixture', now});
	const codex = readdirSync(join(dir, 'codex')).filter(name => name.endsWith('.json'));
	ingestLines(
		ledger,
		codex.map(name => readFileSync(join(dir, 'codex', name), 'utf8').replace(/\s*\n\s*/g, ' ')),
		{origin: 'fixture', now},
	);
}
