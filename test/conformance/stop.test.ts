import {spawn} from 'node:child_process';
import {describe, expect} from 'vitest';
import {BIN} from '../helpers/cli.ts';
import {onOutput, waitFor} from '../helpers/wait-for.ts';
import {say, tui} from './tui.ts';
import {type Box, CLAUDE_AT, type SnapshotTask} from './box.ts';
import {conformanceRig} from './rig.ts';
import {aliveByPs, isAlive, processesOfTask, startTimeOf} from './processes.ts';
import {row, type Answer} from './table.ts';

// "Did my stop work?" against the real Claude Code 2.1.328: each launcher a person really puts
// between the wrapper and the agent, then `controlroom stop`, checked with ps.

const {fakes, tmux, hookedBox} = conformanceRig();

const SLOW = 180_000;
/** The stop's grace in these rows, and the bound the acceptance puts on the tree's end: grace + 2 s. */
const GRACE_S = 2;

/** A wrapped Claude whose one model turn takes a minute and a half, once its session is on the run's task. */
async function wrappedClaude(box: Box, marker: string, launch: (claude: readonly string[]) => readonly string[]) {
	fakes.script(marker, [{text: 'slow answer', delay_ms: 90_000}]);
	const port = await fakes.anthropic();
	const claude = [CLAUDE_AT, box.dir, '-p', `${marker} think`, '--dangerously-skip-permissions'];
	const run = box.run(['--agent', 'claude', '--grace', String(GRACE_S)], launch(claude), {FAKE_ANTHROPIC_PORT: String(port)});
	const task = await waitFor(
		() => {
			const found = box.peek().tasks.find(entry => entry.source === 'wrapper');
			return found && found.status === 'running' && found.sessionId !== null ? found : undefined;
		},
		{what: `${marker}: the run with its Claude session on it`, timeoutMs: 90_000, on: box.changes()},
	);
	// The agent itself is in the tree, wherever the launcher put it.
	const tree = await waitFor(
		() => {
			const seen = processesOfTask(task.id);
			return seen.some(process => process.name === 'claude') ? seen : undefined;
		},
		{what: `${marker}: claude among the run's processes`, timeoutMs: 30_000},
	);
	return {run, task, tree};
}

function said(task: SnapshotTask | undefined): string {
	return task ? `${task.lane}: ${task.status}${task.signal ? ` (${task.signal})` : ''}` : 'no such task';
}

/** Stops the run, and checks with ps that nothing of its tree lives once stop has said so, within grace + 2 s. */
async function stopAndCheck(
	box: Box,
	taskId: string,
	pids: readonly number[],
	grace = GRACE_S,
): Promise<Answer & {stdout: string}> {
	const stop = await box.cli(['stop', taskId, '--grace', String(grace)]);
	expect(stop.status, stop.stderr).toBe(0);
	expect(await aliveByPs(pids)).toEqual([]);
	// From the first signal to every process confirmed gone, as the stop recorded both
	const events = box.ledger().reader.eventsOf(taskId);
	const asked = events.find(event => event.type === 'task.stop_requested');
	const done = events.find(event => event.type === 'task.stopped');
	const elapsed = (done?.at ?? Number.POSITIVE_INFINITY) - (asked?.at ?? 0);
	expect(elapsed).toBeLessThanOrEqual((grace + 2) * 1000);
	// Nothing of it turns up as a stranger afterwards.
	const pass = JSON.parse((await box.reconcile('claude,codex')).stdout) as {discovered: {pid: number}[]};
	expect(pass.discovered.filter(found => pids.includes(found.pid))).toEqual([]);
	const task = await box.task(taskId);
	const board = box.board().get(taskId);
	expect(task).toMatchObject({status: 'stopped', lane: 'ended'});
	expect(board).toMatchObject({lane: 'ended'});
	return {
		stdout: stop.stdout.trim(),
		board: `${board?.lane}: ${board?.status}`,
		snapshot: `${said(task)}; ${pids.length} processes gone by ps in ${elapsed} ms`,
	};
}

describe.concurrent('stop', () => {
	row(
		'S1',
		'false',
		'run -- timeout 3600 <claude>, then stop: exit 0, no process of its tree alive within grace + 2 s',
		SLOW,
		async () => {
			const box = await hookedBox();
			const {run, task, tree} = await wrappedClaude(box, 'ROW-S1', claude => ['timeout', '3600', ...claude]);
			const answer = await stopAndCheck(
				box,
				task.id,
				tree.map(process => process.pid),
			);
			expect((await box.ended(run)).code).toBe(143);
			return answer;
		},
	);

	row(
		'S2',
		'false',
		'run -- setsid <claude>, then stop: exit 0, no process of its tree alive within grace + 2 s',
		SLOW,
		async () => {
			const box = await hookedBox();
			const {run, task, tree} = await wrappedClaude(box, 'ROW-S2', claude => ['setsid', ...claude]);
			// setsid forked and exited at once: the run goes on while its agent does
			expect(tree.every(process => process.pid !== task.pid)).toBe(true);
			const answer = await stopAndCheck(
				box,
				task.id,
				tree.map(process => process.pid),
			);
			expect((await box.ended(run)).code).toBe(143);
			return answer;
		},
	);

	row(
		'S3',
		'false',
		"run -- sh -c '<claude> & wait', then stop: exit 0, no process of its tree alive within grace + 2 s",
		SLOW,
		async () => {
			const box = await hookedBox();
			const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
			const {run, task, tree} = await wrappedClaude(box, 'ROW-S3', claude => [
				'sh',
				'-c',
				`${claude.map(quote).join(' ')} & wait`,
			]);
			const answer = await stopAndCheck(
				box,
				task.id,
				tree.map(process => process.pid),
			);
			expect((await box.ended(run)).code).toBe(143);
			return answer;
		},
	);

	row('S4', 'false', 'a tree that ignores SIGTERM is gone after the grace (SIGKILL), and stop says so', SLOW, async () => {
		const box = await hookedBox();
		const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
		// The shell ignores SIGTERM and, once its Claude is gone, becomes a sleep that ignores it too
		// (an ignored signal is kept across exec; Claude itself installs its own handler)
		const {run, task, tree} = await wrappedClaude(box, 'ROW-S4', claude => [
			'sh',
			'-c',
			`trap '' TERM; ${claude.map(quote).join(' ')} & wait; exec sleep 600`,
		]);
		const answer = await stopAndCheck(
			box,
			task.id,
			tree.map(process => process.pid),
			1,
		);
		expect(answer.stdout).toMatch(/ended by SIGKILL after 1000 ms grace$/);
		expect(await box.task(task.id)).toMatchObject({signal: 'SIGKILL'});
		expect((await box.ended(run)).code).toBe(137);
		return {...answer, snapshot: `${answer.snapshot}; ${answer.stdout.replace(/^stopped \S+ /, '')}`};
	});

	row(
		'S5',
		'false',
		'stop of a task whose recorded PID now belongs to an unrelated process: refused, nothing killed',
		SLOW,
		async () => {
			// Given a real hooked Claude session that died mid-turn, and an unrelated sleep
			const box = await hookedBox();
			fakes.script('ROW-S5', [{text: 'slow answer', delay_ms: 90_000}]);
			const claude = box.claude(await fakes.anthropic(), ['-p', 'ROW-S5 think', '--dangerously-skip-permissions']);
			const session = await waitFor(
				() => {
					const found = box.peek().tasks.find(entry => entry.source === 'claude');
					return found?.status === 'running' && found.pid !== null ? found : undefined;
				},
				{what: 'the Claude session with its PID', timeoutMs: 90_000, on: box.changes()},
			);
			process.kill(session.pid!, 'SIGKILL');
			await box.ended(claude);
			// Its hooks still under way when it died (a spool hook runs beside its agent) write their events
			// after it: folded after the envelope below, their own PID of the session would be the newest
			// report. So every process of the session is gone, and what they wrote folded, first.
			await waitFor(() => box.processes().length === 0, {what: "the session's hooks done", timeoutMs: 30_000});
			box.peek();
			const sleeper = spawn('sleep', ['300'], {detached: true, stdio: 'ignore'});
			sleeper.unref();
			try {
				await waitFor(() => isAlive(sleeper.pid!), {what: 'the sleep running'});
				// When an envelope names the sleep's PID for the session, with its true start time
				const envelope = {
					at: new Date().toISOString(),
					source: 'claude',
					pid: sleeper.pid,
					ancestors: [{pid: sleeper.pid, startTime: startTimeOf(sleeper.pid!), name: 'sleep'}],
					payload: {session_id: session.sessionId, hook_event_name: 'UserPromptSubmit', prompt: 'again', cwd: '/'},
				};
				expect(await box.ingest([envelope])).toBe(0);
				expect((await box.task(session.id))?.pid).toBe(sleeper.pid);
				// Then stop refuses it, saying why, and the sleep lives on
				const stop = await box.cli(['stop', session.id, '--grace', '0', '--json']);
				expect(stop.status).toBe(1);
				const result = JSON.parse(stop.stdout) as {reason: string; message: string};
				expect(result.reason).toBe('pid-reused');
				expect(isAlive(sleeper.pid!)).toBe(true);
				const board = box.board().get(session.id);
				return {board: `${board?.lane}: ${board?.status}`, snapshot: `refused: ${result.message.replace(/^task \S+: /, '')}`};
			} finally {
				sleeper.kill('SIGKILL');
			}
		},
	);

	row('S6', 'held', 'stop within one process group: run -- <claude>, then stop: exit 0, nothing of it alive', SLOW, async () => {
		const box = await hookedBox();
		const {run, task, tree} = await wrappedClaude(box, 'ROW-S6', claude => claude);
		const answer = await stopAndCheck(
			box,
			task.id,
			tree.map(process => process.pid),
		);
		expect((await box.ended(run)).code).toBe(143);
		return answer;
	});

	row(
		'S7',
		'false',
		"an event from a stopped task's agent after the stop makes explain say disputed, naming both",
		SLOW,
		async () => {
			const box = await hookedBox();
			const {run, task, tree} = await wrappedClaude(box, 'ROW-S7', claude => claude);
			await stopAndCheck(
				box,
				task.id,
				tree.map(process => process.pid),
			);
			await box.ended(run);
			// When the agent's hook speaks for the run after the stop confirmed it gone
			const late = {
				at: new Date(Date.now() + 1000).toISOString(),
				source: 'claude',
				wrapperTaskId: task.id,
				payload: {session_id: task.sessionId, hook_event_name: 'PostToolUse', tool_name: 'Bash', cwd: '/'},
			};
			expect(await box.ingest([late])).toBe(0);
			const explained = JSON.parse((await box.cli(['explain', task.id, '--json'])).stdout) as {
				isDisputed: boolean;
				facts: {field: string; basis: string; note: string | null; signals: {type: string}[]}[];
			};
			const status = explained.facts.find(fact => fact.field === 'status');
			expect(explained.isDisputed).toBe(true);
			expect(status).toMatchObject({basis: 'disputed'});
			expect(status?.signals.map(signal => signal.type)).toEqual(['task.stopped', 'agent.event']);
			const board = box.board().get(task.id);
			return {board: `${board?.lane}: ${board?.status}`, snapshot: `explain: ${status?.basis}: ${status?.note ?? ''}`};
		},
	);

	row(
		'S8',
		'false',
		'stop of an unwrapped TUI session in its permission dialog, a reconciler folding beside it: stopped in lanes, snapshot and explain',
		SLOW,
		async () => {
			// Given the real TUI with hooks in a permission dialog, and a reconciler folding its hooks' events every second (as a board does)
			const box = await hookedBox();
			fakes.script('ROW-S8', [{tool: 'Bash', input: {command: 'touch asked-first', description: 'touch'}}, {text: 'done'}]);
			const reconciler = box.start(process.execPath, [BIN, 'reconcile', '--interval', '1']);
			await waitFor(() => reconciler.output().includes('reconciled:'), {
				what: 'the reconciler running',
				timeoutMs: 60_000,
				on: [onOutput(reconciler.child.stdout!)],
			});
			await tui(tmux, box, 's8', await fakes.anthropic());
			await say(tmux, 's8', 'ROW-S8 touch it');
			const session = await waitFor(
				() => {
					const snapshot = box.peek();
					const found = snapshot.tasks.find(task => task.source === 'claude');
					const needs = snapshot.queue.lanes.find(lane => lane.name === 'needs');
					return found && found.pid !== null && needs?.items.some(item => item.taskId === found.id) ? found : undefined;
				},
				{what: 'the session in its dialog, in Needs you', timeoutMs: 90_000, on: box.changes()},
			);
			// When it is stopped
			const stop = await box.cli(['stop', session.id, '--grace', String(GRACE_S)]);
			expect(stop.status, stop.stderr).toBe(0);
			// Then it reads stopped everywhere, never failed (its goodbye on SIGTERM cut its open turn short)
			const ended = await waitFor(
				() => {
					const task = box.peek({isFolded: false}).tasks.find(entry => entry.id === session.id);
					return task && task.status !== 'running' ? task : undefined;
				},
				{what: 'the session ended', timeoutMs: 30_000, on: box.changes()},
			);
			expect(ended.status).toBe('stopped');
			expect(await box.task(session.id)).toMatchObject({status: 'stopped', lane: 'ended'});
			const explained = JSON.parse((await box.cli(['explain', session.id, '--json'])).stdout) as {
				facts: {field: string; shows: string}[];
			};
			expect(explained.facts.find(fact => fact.field === 'status')?.shows).toMatch(/^stopped/);
			const board = box.board().get(session.id);
			expect(board?.status).toMatch(/^stopped/);
			return {board: `${board?.lane}: ${board?.status}`, snapshot: said(await box.task(session.id))};
		},
	);
});
