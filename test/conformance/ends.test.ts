import {describe, expect} from 'vitest';
import type {Snapshot} from '../../src/core/snapshot.ts';
import {BIN} from '../helpers/cli.ts';
import {waitFor} from '../helpers/wait-for.ts';
import {type Box, CLAUDE_AT, CODEX_AT, type SnapshotTask} from './box.ts';
import {conformanceRig} from './rig.ts';
import {isAlive, processesOfTask} from './processes.ts';
import {row, type Answer} from './table.ts';

// "How did it end?" against the real Claude Code 2.1.328: a clean end never turned lost, a
// helper ending with its parent, one task per process, and a stranger that went away never done.

const {fakes, plainBox, hookedBox} = conformanceRig();

const SLOW = 240_000;
/** Claude's own name as the process table shows it: a reconciler looking for it finds untracked sessions. */
const LOOK_FOR_CLAUDE = {CONTROLROOM_AGENT_NAMES: 'claude'};

/** A program that waits, as a Bash tool call (Claude Code refuses a bare long `sleep`). */
const wait = (seconds: number) => `node -e 'setTimeout(() => {}, ${seconds * 1000})'`;

/**
 * The board and the snapshot put every task in the same lane: the board's rows are the snapshot's.
 * An untracked row of a process that is not this box's (`u-PID-…`: another agent on this shared
 * machine, which the reconciler finds as well) may come or go between the two reads; it is left
 * out of the comparison, except the rows named in `keep` (the row's own, whose process has ended).
 */
function agreeRowForRow(box: Box, snapshot: Snapshot, keep: readonly string[] = []): void {
	const own = new Set(box.processes());
	const isForeign = (id: string): boolean => {
		const pid = /^u-(\d+)-/.exec(id)?.[1];
		return pid !== undefined && !own.has(Number(pid)) && !keep.includes(id);
	};
	const board = [...box.board()].filter(([id]) => !isForeign(id));
	expect(Object.fromEntries(board.map(([id, entry]) => [id, entry.lane]))).toEqual(
		Object.fromEntries(snapshot.tasks.filter(task => !isForeign(task.id)).map(task => [task.id, task.lane])),
	);
}

const said = (task: SnapshotTask | undefined): string =>
	task ? `${task.lane}: ${task.status}${task.endReason ? ` (${task.endReason})` : ''}` : 'no such task';

describe.concurrent('ends', () => {
	row(
		'E1',
		'false',
		'wrapper killed -9 while its Claude finishes the turn (Stop, SessionEnd): done with exit unknown, not lost, explain disputed naming the clean end',
		SLOW,
		async () => {
			// Given a wrapped Claude whose one answer takes a few seconds
			const box = await hookedBox();
			fakes.script('ROW-E1', [{text: 'finishing', delay_ms: 6000}]);
			const port = await fakes.anthropic();
			const run = box.run(['--agent', 'claude'], [CLAUDE_AT, box.dir, '-p', 'ROW-E1 go', '--dangerously-skip-permissions'], {
				FAKE_ANTHROPIC_PORT: String(port),
			});
			const task = await waitFor(
				() =>
					box.peek().tasks.find(entry => entry.source === 'wrapper' && entry.status === 'running' && entry.sessionId !== null),
				{what: 'the run with its Claude session on it', timeoutMs: 90_000, on: box.changes()},
			);
			// When the wrapper is killed -9 while Claude is in its turn, and Claude finishes it and exits
			run.child.kill('SIGKILL');
			await box.ended(run);
			await waitFor(() => processesOfTask(task.id).every(process => process.name !== 'claude'), {
				what: "the run's Claude gone",
				timeoutMs: 90_000,
			});
			const events = () =>
				box
					.ledger()
					.reader.eventsOf(task.id)
					.filter(event => event.type === 'agent.event')
					.map(event => String((event.data as {event?: unknown}).event));
			await box.reconcile();
			expect(events()).toEqual(expect.arrayContaining(['Stop', 'SessionEnd']));
			// Then a reconciler pass ends it (its exit unknown), never lost, and explain names both signals
			const ended = await box.task(task.id);
			// (its work is done: the session said so; the run's exit code is what nobody recorded)
			expect(ended).toMatchObject({status: 'done', lane: 'ended', exitCode: null});
			expect(ended?.endReason).toMatch(/its session had ended \(SessionEnd\); wrapper \d+ died without recording the exit/);
			const explained = JSON.parse((await box.cli(['explain', task.id, '--json'])).stdout) as {
				facts: {field: string; basis: string; note: string | null}[];
			};
			const status = explained.facts.find(fact => fact.field === 'status');
			expect(status).toMatchObject({basis: 'disputed', note: expect.stringContaining('its session ended cleanly')});
			const snapshot = await box.snapshot();
			agreeRowForRow(box, snapshot);
			const board = box.board().get(task.id);
			return {board: `${board?.lane}: ${board?.status}`, snapshot: `${ended?.status}; explain ${status?.basis}`};
		},
	);

	row(
		'E2',
		'false',
		"parent killed -9 during its helper's tool call: the helper is lost (its session's process gone), not counted running",
		SLOW,
		async () => {
			// Given a session whose helper is in a long tool call
			const box = await hookedBox();
			fakes.script('ROW-E2', [
				{tool: 'Agent', input: {description: 'helper', prompt: 'HELPER-E2 do it', subagent_type: 'general-purpose'}},
				{text: 'main done'},
			]);
			fakes.script('HELPER-E2', [{tool: 'Bash', input: {command: wait(120), description: 'wait'}}, {text: 'sub answer'}]);
			const claude = box.claude(await fakes.anthropic(), ['-p', 'ROW-E2 go', '--dangerously-skip-permissions']);
			const [parent, helper] = await waitFor(
				() => {
					const tasks = box.peek().tasks;
					const session = tasks.find(task => task.source === 'claude' && task.pid !== null);
					const child = tasks.find(task => task.source === 'claude-helper' && task.status === 'running');
					return session && child ? ([session, child] as const) : undefined;
				},
				{what: 'the session and its running helper', timeoutMs: 120_000, on: box.changes()},
			);
			expect(helper.parentId).toBe(parent.id);
			// When the parent is killed -9, and the reconciler passes
			process.kill(parent.pid!, 'SIGKILL');
			await box.ended(claude);
			await waitFor(() => !isAlive(parent.pid!), {what: 'the parent gone'});
			await box.reconcile();
			await box.reconcile();
			// Then the helper is lost with it, and nothing is counted running
			const snapshot = await box.snapshot();
			const lostParent = snapshot.tasks.find(task => task.id === parent.id);
			const lostHelper = snapshot.tasks.find(task => task.id === helper.id);
			expect(lostParent).toMatchObject({status: 'lost'});
			expect(lostHelper).toMatchObject({status: 'lost', lane: 'lost'});
			// Its own fate, in words: its session's process died before it reported its end
			expect(lostHelper?.endReason).toBe(
				`its session's process ${parent.pid} is gone and it never reported its end (no SubagentStop): how its work ended is unknown`,
			);
			expect(lostParent?.endReason).toMatch(/no exit was recorded, with 1 helper still working$/);
			expect(snapshot.counts.running).toBe(0);
			agreeRowForRow(box, snapshot);
			const board = box.board().get(helper.id);
			return {
				board: `helper ${board?.lane}: ${board?.status}`,
				snapshot: `${said(lostHelper)}; counts.running ${snapshot.counts.running}`,
			};
		},
	);

	row(
		'E3',
		'false',
		'a hooked session started while a reconciler looks for claude: one task, never a second untracked row',
		SLOW,
		async () => {
			// Given a reconciler running that looks for Claude processes nobody registered
			const box = await hookedBox();
			box.start(process.execPath, [BIN, 'reconcile', '--interval', '1'], LOOK_FOR_CLAUDE);
			fakes.script('ROW-E3', [{tool: 'Bash', input: {command: wait(6), description: 'wait'}}, {text: 'done'}]);
			// When a hooked session starts, works past the discovery grace, and ends
			const claude = box.claude(await fakes.anthropic(), ['-p', 'ROW-E3 go', '--dangerously-skip-permissions']);
			const session = await waitFor(() => box.peek().tasks.find(task => task.source === 'claude' && task.pid !== null), {
				what: 'the session with its PID',
				timeoutMs: 90_000,
				on: box.changes(),
			});
			expect((await box.ended(claude)).code).toBe(0);
			await box.reconcile('claude');
			// Then its process is one task: listed once, counted once as done
			const snapshot = await box.snapshot();
			const rows = snapshot.tasks.filter(task => task.pid === session.pid);
			expect(rows.map(task => [task.id, task.status])).toEqual([[session.id, 'done']]);
			expect(snapshot.counts.done).toBe(1);
			agreeRowForRow(box, snapshot);
			const board = box.board();
			const mine = [...board].filter(([id]) => rows.some(task => task.id === id));
			return {
				board: `${mine.length} row: ${mine.map(([, entry]) => `${entry.lane} ${entry.status}`).join()}`,
				snapshot: `${rows.length} task; counts.done ${snapshot.counts.done}`,
			};
		},
	);

	row(
		'E4',
		'false',
		'a vanished untracked process is ended, outcome unknown: never done, in lanes and counts',
		SLOW,
		async () => {
			// Given a Claude session without hooks, that a reconciler found untracked
			const box = plainBox();
			await box.reconcile();
			fakes.script('ROW-E4', [{text: 'slow', delay_ms: 120_000}]);
			box.start(process.execPath, [BIN, 'reconcile', '--interval', '1'], LOOK_FOR_CLAUDE);
			box.claude(await fakes.anthropic(), ['-p', 'ROW-E4 think', '--dangerously-skip-permissions']);
			const untracked = await waitFor(
				() => {
					// Its own Claude, not another row's that this reconciler finds as well
					const own = new Set(box.processes());
					return box.peek().tasks.find(task => task.status === 'untracked' && task.pid !== null && own.has(task.pid));
				},
				{what: 'the session found untracked', timeoutMs: 90_000, on: box.changes()},
			);
			// When its process goes away
			process.kill(untracked.pid!, 'SIGKILL');
			await waitFor(() => box.ledgerTask(untracked.id)?.status === 'vanished', {
				what: 'the untracked row vanished',
				timeoutMs: 30_000,
				on: box.changes(),
			});
			// Then it is ended with its outcome unknown: in the ended lane, counted as vanished, never as done
			const snapshot = await box.snapshot();
			const gone = snapshot.tasks.find(task => task.id === untracked.id);
			expect(gone).toMatchObject({status: 'vanished', lane: 'ended', exitCode: null});
			expect(gone?.endReason).toMatch(/never tracked, so how it ended is unknown/);
			expect(snapshot.counts.done).toBe(0);
			expect(snapshot.counts.vanished).toBeGreaterThanOrEqual(1);
			agreeRowForRow(box, snapshot, [untracked.id]);
			const board = box.board().get(untracked.id);
			expect(board?.status).toMatch(/vanished/);
			return {board: `${board?.lane}: ${board?.status}`, snapshot: `${gone?.status}; counts.done ${snapshot.counts.done}`};
		},
	);

	row('F1', 'held', 'claude -p with a 500 and retries off sends StopFailure: the session fails, exit 1', SLOW, async () => {
		const box = await hookedBox();
		const claude = box.claude(await fakes.anthropicError(500), ['-p', 'ROW-F1 hi', '--dangerously-skip-permissions'], {
			CLAUDE_CODE_MAX_RETRIES: '0',
		});
		expect((await box.ended(claude)).code).toBe(1);
		const answer = await failedSession(box);
		return answer.answer;
	});

	row('F2', 'held', 'an API error, then --resume of the same session: one task, done', SLOW, async () => {
		const box = await hookedBox();
		fakes.script('ROW-F2', [{text: 'resumed fine'}]);
		const failed = box.claude(await fakes.anthropicError(500), ['-p', 'ROW-F2 hi', '--dangerously-skip-permissions'], {
			CLAUDE_CODE_MAX_RETRIES: '0',
		});
		expect((await box.ended(failed)).code).toBe(1);
		const {task} = await failedSession(box);
		const resumed = box.claude(await fakes.anthropic(), [
			'-p',
			'again',
			'--resume',
			task.sessionId ?? '',
			'--dangerously-skip-permissions',
		]);
		expect((await box.ended(resumed)).code).toBe(0);
		const snapshot = await box.snapshot();
		expect(snapshot.tasks.map(entry => [entry.id, entry.status])).toEqual([[task.id, 'done']]);
		agreeRowForRow(box, snapshot);
		const board = box.board().get(task.id);
		return {board: `${board?.lane}: ${board?.status}`, snapshot: `1 task: failed → ${snapshot.tasks[0]?.status}`};
	});
	row(
		'C1',
		'held',
		"a Codex run whose model fails: failed, with the model's words, exit code as Codex exited",
		SLOW,
		async () => {
			const box = plainBox();
			const port = await fakes.openai('fail');
			const run = box.run(['--agent', 'codex'], [CODEX_AT, box.dir, 'exec', '--json', '--skip-git-repo-check', 'ROW-C1 hi'], {
				FAKE_OPENAI_PORT: String(port),
			});
			const {code} = await box.ended(run);
			expect(code).not.toBe(0);
			const snapshot = await box.snapshot();
			const task = snapshot.tasks[0];
			expect(task).toMatchObject({status: 'failed', lane: 'ended', exitCode: code});
			expect(task?.error).toMatch(/failed on purpose/);
			agreeRowForRow(box, snapshot);
			const board = box.board().get(task?.id ?? '');
			return {
				board: `${board?.lane}: ${board?.status}`,
				snapshot: `${task?.status} exit ${task?.exitCode}: ${task?.error ?? ''}`,
			};
		},
	);
});

/** The one session of a box, failed by its StopFailure with the SessionEnd after it. */
async function failedSession(box: Box): Promise<{task: SnapshotTask; answer: Answer}> {
	await box.reconcile();
	const snapshot = await box.snapshot();
	const task = snapshot.tasks.find(entry => entry.source === 'claude');
	expect(task).toMatchObject({status: 'failed', lane: 'ended'});
	const events = box
		.ledger()
		.reader.eventsOf(task?.id ?? '')
		.filter(event => event.type === 'agent.event')
		.map(event => String((event.data as {event?: unknown}).event));
	expect(events).toEqual(expect.arrayContaining(['StopFailure', 'SessionEnd']));
	expect(events).not.toContain('Stop');
	const board = box.board().get(task?.id ?? '');
	return {task: task!, answer: {board: `${board?.lane}: ${board?.status}`, snapshot: `${task?.status}: ${task?.error ?? ''}`}};
}
