import {spawn, type ChildProcess} from 'node:child_process';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {BIN} from '../helpers/cli.ts';
import {realClientBox, realClientScript, type RealClientBox, installClaudeHooks} from '../helpers/realclients.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const CLAUDE = realClientScript('claude-offline.sh');

let tmux: Tmux | undefined;
let sleeper: ChildProcess | undefined;
afterEach(() => {
	tmux?.kill();
	if (sleeper?.pid !== undefined && sleeper.exitCode === null) process.kill(sleeper.pid, 'SIGTERM');
});

type SeenSnapshot = {unseen: number; seenBy: string; tasks: {id: string; seen: boolean | null; status: string}[]};

function snapshotAs(box: RealClientBox, person: string): SeenSnapshot {
	const run = box.cli(['snapshot', '--json', '--as', person]);
	expect(run.status, run.stderr).toBe(0);
	return JSON.parse(run.stdout) as SeenSnapshot;
}

describe('seen and unseen on the board (real Claude Code)', () => {
	it('a run that ends while another is selected is unseen in board and snapshot; selected, it is seen, still after a restart', async () => {
		// Given a board whose person is ana, its cursor on a run that keeps running
		const box = realClientBox({SCENARIO: 'bash'});
		installClaudeHooks(box);
		sleeper = spawn(process.execPath, [BIN, 'run', '--title', 'keeps running', '--', 'sleep', '300'], {
			env: box.env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const env: Record<string, string> = {
			PATH: String(box.env['PATH']),
			CONTROLROOM_HOME: String(box.env['CONTROLROOM_HOME']),
			CONTROLROOM_AGENT_NAMES: 'cr-no-such-agent',
			USER: 'ana',
		};
		tmux = new Tmux();
		const board = tmux;
		const startBoard = async (): Promise<void> => {
			board.type('seen', `node ${BIN} board --reconcile 3600`);
			board.send('seen', 'Enter');
			await board.waitFor('seen', pane => /› w-\w+\s+keeps running/.test(pane), 60_000);
			await waitFor(() => board.readsKeys('seen'), {what: 'the board to read keys', timeoutMs: 30_000});
		};
		await waitFor(() => box.snapshot().tasks.some(task => task['title'] === 'keeps running'), {
			what: 'the running task registered',
			on: [onLedgerChange(join(String(box.env['CONTROLROOM_HOME']), 'ledger.db'))],
			timeoutMs: 30_000,
		});
		board.start('seen', 160, 40, env);
		await startBoard();

		// When a wrapped real claude -p run ends
		const run = box.cli(['run', '--title', 'say hi', '--', CLAUDE, box.dir, '-p', 'say hi', '--dangerously-skip-permissions']);
		expect(run.status, run.stderr).toBe(0);
		const ended = box.snapshot().tasks.find(task => task['title'] === 'say hi');
		const endedId = String(ended?.['id']);
		expect(ended).toMatchObject({status: 'done', source: 'wrapper'});

		// Then the board marks it unseen and counts it, and so does the snapshot, for ana and for ben
		const unseenRow = new RegExp(`● ${endedId}\\s+say hi`);
		const marked = await board.waitFor('seen', pane => unseenRow.test(pane) && pane.includes('unseen 1'), 30_000);
		expect(marked.pane).toMatch(/› w-\w+\s+keeps running/);
		expect(snapshotAs(box, 'ana')).toMatchObject({seenBy: 'ana', unseen: 1});
		expect(snapshotAs(box, 'ana').tasks.find(task => task.id === endedId)?.seen).toBe(false);
		expect(box.cli(['snapshot', '--as', 'ana']).stdout).toMatch(unseenRow);

		// When ana moves the cursor onto it
		board.send('seen', 'j');
		const seen = await board.waitFor(
			'seen',
			pane => new RegExp(`› ${endedId}\\s+say hi`).test(pane) && !pane.includes('unseen'),
			30_000,
		);
		expect(seen.pane).not.toMatch(unseenRow);
		expect(snapshotAs(box, 'ana')).toMatchObject({unseen: 0});
		expect(snapshotAs(box, 'ana').tasks.find(task => task.id === endedId)?.seen).toBe(true);
		// Another person has not seen it
		expect(snapshotAs(box, 'ben').tasks.find(task => task.id === endedId)?.seen).toBe(false);

		// And after the board restarts, it is still seen
		board.send('seen', 'q');
		await board.waitFor('seen', () => board.foreground('seen') !== 'node', 30_000);
		await startBoard();
		const again = board.capture('seen');
		expect(again).toMatch(new RegExp(` {2}${endedId}\\s+say hi`));
		expect(again).not.toContain('unseen');
	}, 300_000);
});
