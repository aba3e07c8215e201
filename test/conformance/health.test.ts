import {describe, expect} from 'vitest';
import {waitFor} from '../helpers/wait-for.ts';
import {CLAUDE_AT, type SnapshotTask} from './box.ts';
import {conformanceRig} from './rig.ts';
import {row} from './table.ts';
import {say, tui} from './tui.ts';

// "Is it stuck?" against the real Claude Code 2.1.328: health from the agent's own last sign,
// the same threshold everywhere, and "last seen" meaning the agent's last sign.

const {fakes, tmux, hookedBox} = conformanceRig();

const SLOW = 240_000;
const STALL_S = 20;

/** The lane heading a task's row is drawn under on the board's pane. */
export function paneLane(pane: string, id: string): string | null {
	let lane: string | null = null;
	for (const line of pane.split('\n')) {
		const heading = /^\s*(RUNNING|STALLED|LOST|UNTRACKED|RECENTLY ENDED)\b/.exec(line);
		if (heading) lane = heading[1] ?? null;
		else if (line.includes(id)) return lane;
	}
	return null;
}

const said = (task: SnapshotTask | undefined): string =>
	task ? `${task.lane}: ${task.status}/${task.health ?? '—'}, idle ${task.idleSeconds}s` : 'no such task';

describe.concurrent('health', () => {
	row(
		'H1',
		'false',
		'wrapped and unwrapped twins with --stall 20: both stalled by 25 s, in board and snapshot',
		SLOW,
		async () => {
			// Given a wrapped Claude (heartbeats every 2 s) and an unwrapped twin, each silent after one tool call
			const box = await hookedBox();
			const port = await fakes.anthropic();
			for (const marker of ['ROW-H1W', 'ROW-H1U']) {
				fakes.script(marker, [
					{tool: 'Bash', input: {command: 'echo one', description: 'one'}},
					{text: 'slow', delay_ms: 120_000},
				]);
			}
			box.run(
				['--agent', 'claude', '--heartbeat', '2'],
				[CLAUDE_AT, box.dir, '-p', 'ROW-H1W go', '--dangerously-skip-permissions'],
				{
					FAKE_ANTHROPIC_PORT: String(port),
				},
			);
			box.claude(port, ['-p', 'ROW-H1U go', '--dangerously-skip-permissions']);
			// When each has been silent (its own last sign) for the threshold
			const stalledAt = new Map<string, number>();
			const twins = await waitFor(
				() => {
					const tasks = box.peek({stallSeconds: STALL_S}).tasks;
					for (const task of tasks) if (task.health === 'stalled' && !stalledAt.has(task.id)) stalledAt.set(task.id, Date.now());
					const pair = [tasks.find(task => task.source === 'wrapper'), tasks.find(task => task.source === 'claude')];
					return pair.every(task => task?.health === 'stalled') ? (pair as SnapshotTask[]) : undefined;
				},
				{what: 'both twins stalled', timeoutMs: 120_000, on: box.changes()},
			);
			// Then both are stalled within 25 s of their last sign of life, though the wrapped one's heartbeats go on
			for (const twin of twins) {
				expect((stalledAt.get(twin.id) ?? 0) - Date.parse(twin.lastSeenAt)).toBeLessThanOrEqual(25_000);
			}
			const [wrapped, unwrapped] = twins as [SnapshotTask, SnapshotTask];
			expect(Date.parse(wrapped.lastEventAt)).toBeGreaterThan(Date.parse(wrapped.lastSeenAt));
			// in the snapshot the command prints, with --stall and with the variable
			const snapshot = await box.snapshot(['--stall', String(STALL_S)]);
			const pick = (id: string) => snapshot.tasks.find(task => task.id === id);
			expect([pick(wrapped.id), pick(unwrapped.id)].map(task => task?.lane)).toEqual(['stalled', 'stalled']);
			expect((await box.cli(['snapshot', '--fail-on', 'stalled', '--stall', String(STALL_S)])).status).toBe(1);
			expect((await box.cli(['snapshot', '--fail-on', 'stalled'], {CONTROLROOM_STALL_SECONDS: String(STALL_S)})).status).toBe(1);
			const explained = JSON.parse((await box.cli(['explain', wrapped.id, '--json', '--stall', String(STALL_S)])).stdout) as {
				facts: {field: string; shows: string; signals: {type: string}[]}[];
			};
			const health = explained.facts.find(fact => fact.field === 'health');
			expect(health?.shows).toBe('stalled');
			expect(health?.signals[0]?.type).not.toBe('task.heartbeat');
			// and on the board, drawn in a terminal
			const pane = await box.boardPane(
				tmux,
				'h1',
				['--stall', String(STALL_S)],
				text => text.includes(wrapped.id) && text.includes(unwrapped.id),
			);
			expect([paneLane(pane, wrapped.id), paneLane(pane, unwrapped.id)]).toEqual(['STALLED', 'STALLED']);
			return {
				board: `both in STALLED (${box.board({stallSeconds: STALL_S}).get(wrapped.id)?.idle})`,
				snapshot: `${said(pick(wrapped.id))}; twin ${pick(unwrapped.id)?.health}`,
			};
		},
	);

	row(
		'H2',
		'held',
		'unwrapped stall and recovery: silent past the threshold is stalled, its next event makes it active',
		SLOW,
		async () => {
			const box = await hookedBox();
			// (Claude Code refuses a bare long `sleep`; a program that waits is a tool call like any other)
			const wait = (seconds: number) => `node -e 'setTimeout(() => {}, ${seconds * 1000})'`;
			fakes.script('ROW-H2', [
				{tool: 'Bash', input: {command: wait(26), description: 'wait'}},
				{tool: 'Bash', input: {command: wait(8), description: 'wait more'}},
				{text: 'done'},
			]);
			box.claude(await fakes.anthropic(), ['-p', 'ROW-H2 go', '--dangerously-skip-permissions']);
			const session = () => box.peek({stallSeconds: STALL_S}).tasks.find(task => task.source === 'claude');
			await waitFor(() => session()?.health === 'stalled', {what: 'the session stalled', timeoutMs: 90_000, on: box.changes()});
			const stalledBoard = box.board({stallSeconds: STALL_S}).get(session()?.id ?? '');
			const active = await waitFor(() => (session()?.health === 'active' ? session() : undefined), {
				what: 'the session active again',
				timeoutMs: 60_000,
				on: box.changes(),
			});
			const board = box.board({stallSeconds: STALL_S}).get(active.id);
			expect([stalledBoard?.lane, board?.lane]).toEqual(['stalled', 'running']);
			return {board: `${stalledBoard?.lane} → ${board?.lane}`, snapshot: `stalled → ${said(active)}`};
		},
	);

	row('H3', 'false', "'last seen' on a lost row is the agent's last event, not the reconciler's verdict", SLOW, async () => {
		const box = await hookedBox();
		fakes.script('ROW-H3', [{text: 'slow', delay_ms: 120_000}]);
		const claude = box.claude(await fakes.anthropic(), ['-p', 'ROW-H3 think', '--dangerously-skip-permissions']);
		const running = await waitFor(
			() => {
				const found = box.peek().tasks.find(task => task.source === 'claude');
				return found?.pid && found.idleSeconds >= 3 ? found : undefined;
			},
			{what: 'the session running, silent for 3 s', timeoutMs: 90_000, on: box.changes()},
		);
		process.kill(running.pid!, 'SIGKILL');
		await box.ended(claude);
		await box.reconcile();
		const lost = await box.task(running.id);
		expect(lost).toMatchObject({status: 'lost', lastSeenAt: running.lastSeenAt});
		expect(Date.parse(lost?.endedAt ?? '')).toBeGreaterThan(Date.parse(lost?.lastSeenAt ?? ''));
		expect(lost?.idleSeconds).toBeGreaterThanOrEqual(3);
		const board = box.board().get(running.id);
		// The board reads a moment after the snapshot: the same last sign, a second later at most.
		const idle = lost?.idleSeconds ?? 0;
		expect([`last seen ${idle}s ago`, `last seen ${idle + 1}s ago`]).toContain(board?.idle);
		return {
			board: `${board?.lane}: ${board?.idle}`,
			snapshot: `${lost?.status}, lastSeenAt = its last hook event, idle ${lost?.idleSeconds}s`,
		};
	});

	row('H4', 'held', 'reboot: every process gone, and the reconciler running: lost within 8 s', SLOW, async () => {
		const box = await hookedBox();
		fakes.script('ROW-H4', [{text: 'slow', delay_ms: 120_000}]);
		const claude = box.claude(await fakes.anthropic(), ['-p', 'ROW-H4 think', '--dangerously-skip-permissions']);
		box.start(process.execPath, [(await import('../helpers/cli.ts')).BIN, 'reconcile']);
		const running = await waitFor(
			() => box.peek().tasks.find(task => task.source === 'claude' && task.status === 'running' && task.pid !== null),
			{what: 'the session running', timeoutMs: 90_000, on: box.changes()},
		);
		// As a reboot leaves it: the agent and its launcher gone at once
		claude.child.kill('SIGKILL');
		process.kill(running.pid!, 'SIGKILL');
		const killedAt = Date.now();
		await waitFor(() => box.ledgerTask(running.id)?.status === 'lost', {
			what: 'the session lost',
			timeoutMs: 8000,
			on: box.changes(),
		});
		const took = Date.now() - killedAt;
		const task = await box.task(running.id);
		const board = box.board().get(running.id);
		return {board: `${board?.lane}: ${board?.status}`, snapshot: `${task?.status} ${took} ms after the kill`};
	});

	row('H5', 'held', 'explain names the signal, its producer and its age for each fact', SLOW, async () => {
		const box = await hookedBox();
		fakes.script('ROW-H5', [{text: 'hi'}]);
		const claude = box.claude(await fakes.anthropic(), ['-p', 'ROW-H5 hi', '--dangerously-skip-permissions']);
		expect((await box.ended(claude)).code).toBe(0);
		const session = (await box.snapshot()).tasks.find(task => task.source === 'claude');
		const explained = JSON.parse((await box.cli(['explain', session?.id ?? '', '--json'])).stdout) as {
			facts: {field: string; basis: string; signals: {seq: number | null; type: string; source: string; ageMs: number}[]}[];
		};
		const status = explained.facts.find(fact => fact.field === 'status');
		expect(status).toMatchObject({basis: 'reported', signals: [{type: 'task.ended', source: 'claude'}]});
		expect(status?.signals[0]?.ageMs).toBeGreaterThanOrEqual(0);
		const tokens = explained.facts.find(fact => fact.field === 'tokens');
		expect(tokens?.signals[0]).toMatchObject({type: 'task.tokens_reported', source: 'claude'});
		const board = box.board().get(session?.id ?? '');
		return {
			board: `${board?.lane}: ${board?.status}`,
			snapshot: `status from ${status?.signals[0]?.type} by ${status?.signals[0]?.source}`,
		};
	});
	row(
		'N1',
		'held',
		"a permission prompt in the real TUI puts the session in Needs you, in the snapshot's queue and on the board",
		SLOW,
		async () => {
			// Given the real TUI with hooks, asked for a Bash call it must ask the person about
			const box = await hookedBox();
			fakes.script('ROW-N1', [{tool: 'Bash', input: {command: 'touch asked-first', description: 'touch'}}, {text: 'done'}]);
			await tui(tmux, box, 'n1', await fakes.anthropic());
			await say(tmux, 'n1', 'ROW-N1 touch it');
			// When its permission dialog is on screen
			const need = await waitFor(
				() => {
					const snapshot = box.peek();
					const session = snapshot.tasks.find(task => task.source === 'claude');
					const needs = snapshot.queue.lanes.find(lane => lane.name === 'needs');
					return session && needs?.items.find(item => item.taskId === session.id);
				},
				{what: 'the session in Needs you', timeoutMs: 90_000, on: box.changes()},
			);
			// Then the command's own snapshot lists it there, and the board draws it under Needs you
			const snapshot = await box.snapshot();
			const lane = snapshot.queue.lanes.find(entry => entry.name === 'needs');
			expect(lane?.items.map(item => item.taskId)).toEqual([need.taskId]);
			const pane = await box.boardPane(tmux, 'n1-board', [], text => /NEEDS YOU \(1\)/.test(text) && text.includes(need.taskId));
			expect(pane).toMatch(/NEEDS YOU \(1\)/);
			return {board: 'NEEDS YOU (1): the session', snapshot: `queue.needs: ${need.reason}`};
		},
	);
});
