import {spawn} from 'node:child_process';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect} from 'vitest';
import {BIN} from '../helpers/cli.ts';
import {waitFor} from '../helpers/wait-for.ts';
import {type Box, CLAUDE_AT, type SnapshotTask} from './box.ts';
import {conformanceRig} from './rig.ts';
import {isAlive, processesOfTask} from './processes.ts';
import {row} from './table.ts';
import {say, tui} from './tui.ts';

// "Is it done?" of a session whose helper works in the background, against the real Claude Code
// 2.1.328: its Agent tool runs a helper in the background by default, the parent's Stop comes
// while the helper works (listing it in `background_tasks`), and `claude -p` waits for it. A parent
// that ends, or dies, before the helper is not done; the helper's own status is its own.

const {fakes, tmux, hookedBox} = conformanceRig();

const SLOW = 240_000;

/** A parent that starts one helper in the background and ends its turn; the helper's answer takes two minutes. */
function scriptBackgroundHelper(marker: string): void {
	fakes.script(`ROW-${marker}`, [
		{
			tool: 'Agent',
			input: {description: 'slow helper', prompt: `HELPER-${marker} take your time`, subagent_type: 'general-purpose'},
		},
		{text: 'parent: the helper works on'},
	]);
	fakes.script(`HELPER-${marker}`, [{text: 'helper finally done', delay_ms: 120_000}]);
}

/** The session and its running helper, once the parent's Stop (naming the helper as still running) is in the ledger. */
async function parentAtRestWithHelper(box: Box, marker: string, source = 'claude') {
	return waitFor(
		() => {
			const tasks = box.peek().tasks;
			const parent = tasks.find(task => task.source === source && task.pid !== null);
			const helper = tasks.find(task => task.source === 'claude-helper' && task.status === 'running');
			const row = parent ? box.ledgerTask(parent.id) : undefined;
			const isAtStop = row !== undefined && row.hasCompletedTurn && !row.isTurnOpen && (row.openHelpers?.length ?? 0) > 0;
			return parent && helper && isAtStop ? {parent, helper} : undefined;
		},
		{what: `${marker}: the parent's Stop with its helper still working`, timeoutMs: 120_000, on: box.changes()},
	);
}

const said = (task: SnapshotTask | undefined): string =>
	task ? `${task.status}${task.endReason ? ` (${task.endReason})` : ''}` : 'no such task';

/** The helper's reason when its session's process is gone: its own fate, never its parent's status. */
const CUT_SHORT = /^its session's process \d+ is gone and it never reported its end \(no SubagentStop\)/;

describe.concurrent('helpers in the background', () => {
	row(
		'B1',
		'false',
		'claude -p killed -9 after its Stop while its background helper works: lost (1 helper still working), never done; the helper lost on its own terms',
		SLOW,
		async () => {
			const box = await hookedBox();
			scriptBackgroundHelper('B1');
			const claude = box.claude(await fakes.anthropic(), ['-p', 'ROW-B1 go', '--dangerously-skip-permissions']);
			const {parent, helper} = await parentAtRestWithHelper(box, 'B1');
			// Its state while the helper works: active for it, never done
			expect(box.board().get(parent.id)?.status).toBe('active (1 helper running)');
			process.kill(parent.pid!, 'SIGKILL');
			await box.ended(claude);
			await waitFor(() => !isAlive(parent.pid!), {what: 'the parent gone'});
			await box.reconcile();
			await box.reconcile();
			const snapshot = await box.snapshot();
			const lostParent = snapshot.tasks.find(task => task.id === parent.id);
			const lostHelper = snapshot.tasks.find(task => task.id === helper.id);
			expect(lostParent).toMatchObject({status: 'lost', lane: 'lost', state: 'lost', helpersUnfinished: 1});
			expect(lostParent?.endReason).toBe(`process ${parent.pid} is gone and no exit was recorded, with 1 helper still working`);
			expect(lostHelper).toMatchObject({status: 'lost', lane: 'lost'});
			expect(lostHelper?.endReason).toMatch(CUT_SHORT);
			expect(snapshot.counts).toMatchObject({running: 0, done: 0});
			const board = box.board();
			expect(board.get(parent.id)).toMatchObject({lane: 'lost', status: 'lost (work unfinished)'});
			return {board: `parent ${board.get(parent.id)?.lane}: ${board.get(parent.id)?.status}`, snapshot: said(lostParent)};
		},
	);

	row(
		'B2',
		'false',
		'claude -p sent SIGTERM while its background helper works (its SessionEnd comes): stopped, ended with work outstanding, never done; the helper lost, never "lost with its parent (done)"',
		SLOW,
		async () => {
			const box = await hookedBox();
			scriptBackgroundHelper('B2');
			const claude = box.claude(await fakes.anthropic(), ['-p', 'ROW-B2 go', '--dangerously-skip-permissions']);
			const {parent, helper} = await parentAtRestWithHelper(box, 'B2');
			process.kill(parent.pid!, 'SIGTERM');
			expect((await box.ended(claude)).code).toBe(143);
			await waitFor(() => !isAlive(parent.pid!), {what: 'the parent gone'});
			await box.reconcile();
			const snapshot = await box.snapshot();
			const stopped = snapshot.tasks.find(task => task.id === parent.id);
			const cut = snapshot.tasks.find(task => task.id === helper.id);
			expect(stopped).toMatchObject({status: 'stopped', lane: 'ended', state: 'stopped'});
			expect(stopped?.endReason).toBe('ended with work outstanding: 1 helper still working (SessionEnd: other)');
			expect(cut).toMatchObject({status: 'lost'});
			expect(cut?.endReason).toMatch(CUT_SHORT);
			expect(cut?.endReason).not.toContain('(done)');
			expect(snapshot.counts.done).toBe(0);
			const explained = JSON.parse((await box.cli(['explain', parent.id, '--json'])).stdout) as {
				facts: {field: string; shows: string; lines?: string[]}[];
			};
			const status = explained.facts.find(fact => fact.field === 'status');
			expect(status?.shows).toMatch(/^stopped/);
			expect(JSON.stringify(status)).toContain('ended with work outstanding');
			const board = box.board().get(parent.id);
			expect(board?.lane).toBe('ended');
			expect(board?.status).toBe('stopped (work unfinished)');
			return {board: `${board?.lane}: ${board?.status}`, snapshot: `${said(stopped)}; helper ${cut?.status}`};
		},
	);

	row(
		'B3',
		'false',
		'a forged SubagentStart for a finished session: the session stays done (lanes, snapshot, board), never active; the stray helper is lost at the next pass',
		SLOW,
		async () => {
			const box = await hookedBox();
			fakes.script('ROW-B3', [{text: 'all done'}]);
			const claude = box.claude(await fakes.anthropic(), ['-p', 'ROW-B3 go', '--dangerously-skip-permissions']);
			expect((await box.ended(claude)).code).toBe(0);
			await box.reconcile();
			const session = (await box.snapshot()).tasks.find(task => task.source === 'claude');
			expect(session).toMatchObject({status: 'done'});
			// Another process of the same user writes a helper's start for it through the hook
			const forged = {
				session_id: session?.sessionId,
				transcript_path: '/nonexistent/forged.jsonl',
				cwd: '/tmp',
				hook_event_name: 'SubagentStart',
				agent_id: 'aforgedforged0001',
				agent_type: 'general-purpose',
			};
			const env = {...box.env};
			delete env['CLAUDE_PID'];
			const hook = spawn(process.execPath, [BIN, 'hook'], {env, stdio: ['pipe', 'ignore', 'ignore']});
			hook.stdin.end(JSON.stringify(forged));
			await new Promise(resolve => hook.once('close', resolve));
			const after = await box.snapshot();
			const parent = after.tasks.find(task => task.id === session?.id);
			const stray = after.tasks.find(task => task.parentId === session?.id);
			expect(stray, 'the forged helper is recorded, as a claim').toBeDefined();
			expect(parent).toMatchObject({status: 'done', state: 'done', lane: 'ended', helpersActive: 0});
			expect(box.board().get(session!.id)).toMatchObject({lane: 'ended', status: 'done'});
			await box.reconcile();
			const stray2 = await box.task(stray!.id);
			expect(stray2).toMatchObject({status: 'lost'});
			expect(stray2?.endReason).toMatch(CUT_SHORT);
			expect((await box.snapshot()).counts.running).toBe(0);
			const board = box.board().get(session!.id);
			return {board: `${board?.lane}: ${board?.status}`, snapshot: `${said(parent)}; stray helper ${stray2?.status}`};
		},
	);

	row(
		'B4',
		'false',
		'a wrapped run stopped while its background helper works: stopped, the helper lost on its own terms, nothing counted running',
		SLOW,
		async () => {
			const box = await hookedBox();
			scriptBackgroundHelper('B4');
			const port = await fakes.anthropic();
			const run = box.run(
				['--agent', 'claude', '--grace', '2'],
				[CLAUDE_AT, box.dir, '-p', 'ROW-B4 go', '--dangerously-skip-permissions'],
				{
					FAKE_ANTHROPIC_PORT: String(port),
				},
			);
			const {parent, helper} = await parentAtRestWithHelper(box, 'B4', 'wrapper');
			expect(processesOfTask(parent.id).some(process => process.name === 'claude')).toBe(true);
			const stop = await box.cli(['stop', parent.id, '--grace', '2']);
			expect(stop.status, stop.stderr).toBe(0);
			await box.ended(run);
			await box.reconcile();
			const snapshot = await box.snapshot();
			const stopped = snapshot.tasks.find(task => task.id === parent.id);
			const cut = snapshot.tasks.find(task => task.id === helper.id);
			expect(stopped).toMatchObject({status: 'stopped', lane: 'ended'});
			expect(cut).toMatchObject({status: 'lost'});
			expect(cut?.endReason).toMatch(CUT_SHORT);
			expect(snapshot.counts.running).toBe(0);
			const board = box.board();
			expect(board.get(helper.id)).toMatchObject({status: 'lost'});
			expect(board.get(parent.id)).toMatchObject({lane: 'ended', status: 'stopped (work unfinished)'});
			return {
				board: `${board.get(parent.id)?.lane}: ${board.get(parent.id)?.status}; helper ${board.get(helper.id)?.status}`,
				snapshot: `${said(stopped)}; helper ${cut?.status}`,
			};
		},
	);

	row(
		'B6',
		'held',
		"a wrapped run whose background helper finishes after the parent's Stop: active (1 helper running) while it works, then both done, exit 0, nothing outstanding",
		SLOW,
		async () => {
			const box = await hookedBox();
			// The helper's tool call holds until the test releases it: the parent's Stop comes meanwhile
			const release = join(box.dir, 'release-B6');
			fakes.script('ROW-B6', [
				{tool: 'Agent', input: {description: 'held helper', prompt: 'HELPER-B6 wait', subagent_type: 'general-purpose'}},
				{text: 'parent: the helper works on'},
			]);
			fakes.script('HELPER-B6', [
				{tool: 'Bash', input: {command: `until [ -e ${release} ]; do sleep 0.2; done; echo released`, description: 'wait'}},
				{text: 'helper done'},
			]);
			const run = box.run(['--agent', 'claude'], [CLAUDE_AT, box.dir, '-p', 'ROW-B6 go', '--dangerously-skip-permissions'], {
				FAKE_ANTHROPIC_PORT: String(await fakes.anthropic()),
			});
			const {parent, helper} = await parentAtRestWithHelper(box, 'B6', 'wrapper');
			const working = box.board().get(parent.id);
			expect(working).toMatchObject({lane: 'running', status: 'active (1 helper running)'});
			writeFileSync(release, '');
			expect((await box.ended(run)).code).toBe(0);
			const snapshot = await box.snapshot();
			const finished = snapshot.tasks.find(task => task.id === parent.id);
			const own = snapshot.tasks.find(task => task.id === helper.id);
			expect(finished).toMatchObject({status: 'done', lane: 'ended', exitCode: 0});
			expect(finished?.endReason ?? '').not.toContain('outstanding');
			expect(own).toMatchObject({status: 'done'});
			expect(box.ledgerTask(parent.id)?.openHelpers).toEqual([]);
			const board = box.board().get(parent.id);
			return {
				board: `while it works: ${working?.status}; then ${board?.lane}: ${board?.status}`,
				snapshot: `${said(finished)}; helper ${own?.status}`,
			};
		},
	);

	row(
		'B5',
		'false',
		'the TUI quit with /exit, "Exit and stop tasks", while its background helper works: stopped with work outstanding, never done; the helper lost',
		SLOW,
		async () => {
			const box = await hookedBox();
			scriptBackgroundHelper('B5');
			// Accept-edits mode runs a helper without asking (the default auto mode asks, its check being online)
			await tui(tmux, box, 'b5', await fakes.anthropic(), ['--permission-mode', 'acceptEdits']);
			await say(tmux, 'b5', 'ROW-B5 go');
			await tmux.waitFor('b5', pane => pane.includes('Backgrounded agent'), 120_000);
			const {parent, helper} = await parentAtRestWithHelper(box, 'B5');
			await say(tmux, 'b5', '/exit');
			await tmux.waitFor('b5', pane => pane.includes('Exit and stop tasks'), 30_000);
			// The first choice, Exit and stop tasks, is under the cursor
			tmux.send('b5', 'Enter');
			await waitFor(() => !isAlive(parent.pid!), {what: 'the TUI gone', timeoutMs: 60_000});
			await box.reconcile();
			const snapshot = await box.snapshot();
			const stopped = snapshot.tasks.find(task => task.id === parent.id);
			const cut = snapshot.tasks.find(task => task.id === helper.id);
			expect(stopped).toMatchObject({status: 'stopped', lane: 'ended'});
			expect(stopped?.endReason).toBe('ended with work outstanding: 1 helper still working (SessionEnd: prompt_input_exit)');
			expect(cut).toMatchObject({status: 'lost'});
			expect(cut?.endReason).toMatch(CUT_SHORT);
			const board = box.board().get(parent.id);
			expect(board?.lane).toBe('ended');
			expect(board?.status).toBe('stopped (work unfinished)');
			return {board: `${board?.lane}: ${board?.status}`, snapshot: `${said(stopped)}; helper ${cut?.status}`};
		},
	);
});
