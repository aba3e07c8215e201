import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import type {SnapshotDecision} from '../../src/core/decisions/view.ts';
import {realClientBox} from '../helpers/realclients.ts';
import {paneEnv, startBoard, startClaudeTui} from '../helpers/claude-tui.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onFileChange, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// Every yes/no in one queue (docs/decisions.md), against the real Claude Code TUI in tmux with
// `--permission-mode default`: its PermissionRequest hook puts the dialog's question on the board,
// the board's `a` allows it, `x` denies it with a reason the model then reads, and a question
// answered in the agent's own pane leaves the queue.

/** The model's turns: a tool call needing permission, then a text answer, three times over. */
const TURNS = [
	{tool: 'Bash', input: {command: 'touch hi.txt', description: 'Create hi.txt'}},
	{text: 'created'},
	{tool: 'Bash', input: {command: 'touch no.txt', description: 'Create no.txt'}},
	{text: 'understood, not created'},
	{tool: 'Bash', input: {command: 'touch pane.txt', description: 'Create pane.txt'}},
	{text: 'done in the pane'},
];

let tmux: Tmux | undefined;
afterEach(() => tmux?.kill());

/** The pane's program: the shell tmux started, then what it runs (the board, under `node`). */
function paneChild(session: string): number {
	const shell = Number((tmux as Tmux).run(['display', '-p', '-t', session, '#{pane_pid}']).trim());
	const children = readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/);
	return Number(children[0]);
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

describe('interactive Claude Code asks from the board', () => {
	it('shows the dialog on the board within 3 s; a allows once, x denies with the reason the model reads, a pane answer withdraws it', async () => {
		const box = realClientBox({SCENARIO: 'script', CLAUDE_TIMEOUT: '280'});
		const script = join(box.dir, 'script.json');
		const fakeLog = join(box.dir, 'fake.jsonl');
		writeFileSync(script, JSON.stringify(TURNS));
		const home = join(box.dir, 'home');
		const install = box.cli(['hooks', 'install', '--claude'], {HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude')});
		expect(install.stdout).toMatch(/added hooks for .*PermissionRequest/);
		expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
		const ledgerFile = join(box.dir, 'cr', 'ledger.db');
		const project = join(box.dir, 'project');
		const decisions = () =>
			(JSON.parse(box.cli(['snapshot', '--json', '--all']).stdout) as {decisions: SnapshotDecision[]}).decisions;

		tmux = new Tmux();
		const env = {...paneEnv(box, script), FAKE_LOG: fakeLog};
		await startBoard(tmux, 'board', env);
		await startClaudeTui(tmux, 'agent', env, box.dir);

		const ask = async (prompt: string, command: string): Promise<string> => {
			const agent = tmux as Tmux;
			agent.type('agent', prompt);
			await agent.waitFor('agent', pane => new RegExp(`❯\\s*${prompt}`).test(pane), 30_000);
			agent.send('agent', 'Enter');
			const dialog = await agent.waitFor(
				'agent',
				pane => pane.includes('Do you want to proceed?') && pane.includes(command),
				60_000,
			);
			const shown = await agent.waitFor(
				'board',
				pane => /decisions \(1\)/.test(pane) && pane.includes('claude asks (permission)'),
				10_000,
			);
			// Then the question is on the board within 3 s of the dialog
			expect(shown.at - dialog.at).toBeLessThan(3000);
			const open = decisions().filter(decision => decision.state === 'open');
			expect(open).toHaveLength(1);
			expect(open[0]).toMatchObject({kind: 'permission', tool: 'Bash', agent: 'claude', isWaiting: true, args: {command}});
			return open[0]?.id ?? '';
		};

		// a: allowed from the board, the call runs once
		const allowed = await ask('create hi.txt', 'touch hi.txt');
		tmux.send('board', 'Tab');
		await tmux.waitFor('board', pane => pane.includes('k acknowledges'));
		// Drilled in: the question whole, then (Enter again) the session's timeline
		tmux.send('board', 'Enter');
		await tmux.waitFor('board', pane => pane.includes(`QUESTION ${allowed}`) && pane.includes('command = "touch hi.txt"'));
		tmux.send('board', 'Enter');
		await tmux.waitFor('board', pane =>
			pane.includes(`asks ${allowed} (permission): Bash command="touch hi.txt" description="Create hi.txt"`),
		);
		tmux.send('board', 'Escape');
		await tmux.waitFor('board', pane => pane.includes('k acknowledges'));
		// a shows the call whole first; y allows it
		tmux.send('board', 'a');
		await tmux.waitFor('board', pane => pane.includes(`Allow ${allowed} exactly as shown above?`));
		tmux.send('board', 'y');
		await tmux.waitFor('agent', pane => pane.includes('Allowed by PermissionRequest hook'), 30_000);
		await waitFor(() => existsSync(join(project, 'hi.txt')), {what: 'hi.txt', on: [onFileChange(project)], timeoutMs: 20_000});
		await waitFor(() => decisions().find(decision => decision.id === allowed)?.state === 'used', {
			what: 'the answer used',
			on: [onLedgerChange(ledgerFile)],
		});
		await tmux.waitFor('agent', pane => pane.includes('created'), 30_000);

		// x: denied with a reason, the call does not run, and the model's next request carries the reason
		const denied = await ask('create no.txt', 'touch no.txt');
		tmux.send('board', 'x');
		await tmux.waitFor('board', pane => pane.includes(`deny ${denied}`));
		tmux.type('board', 'not in this folder, use the tmp one');
		await tmux.waitFor('board', pane => pane.includes('use the tmp one'));
		tmux.send('board', 'Enter');
		await tmux.waitFor('agent', pane => pane.includes('Denied by PermissionRequest hook'), 30_000);
		await waitFor(() => readFileSync(fakeLog, 'utf8').includes('not in this folder, use the tmp one'), {
			what: "the reason in the model's next request",
			on: [onFileChange(fakeLog)],
			timeoutMs: 30_000,
		});
		expect(existsSync(join(project, 'no.txt'))).toBe(false);
		expect(decisions().find(decision => decision.id === denied)).toMatchObject({
			state: 'used',
			answer: {answer: 'deny', reason: 'not in this folder, use the tmp one'},
		});
		await tmux.waitFor('agent', pane => pane.includes('understood, not created'), 30_000);

		// Answered in the agent's pane instead: the question leaves the queue
		const inPane = await ask('create pane.txt', 'touch pane.txt');
		tmux.send('agent', '1');
		await waitFor(() => existsSync(join(project, 'pane.txt')), {
			what: 'pane.txt',
			on: [onFileChange(project)],
			timeoutMs: 20_000,
		});
		await waitFor(() => decisions().find(decision => decision.id === inPane)?.state === 'withdrawn', {
			what: 'the question withdrawn',
			on: [onLedgerChange(ledgerFile)],
			timeoutMs: 20_000,
			explain: () => JSON.stringify(decisions()),
		});
		expect(decisions().find(decision => decision.id === inPane)?.withdrawn?.why).toBe('answered in the agent pane');
		await tmux.waitFor('board', pane => !pane.includes('decisions (1)') && pane.includes('NEEDS YOU'), 10_000);
	}, 400_000);

	it('after kill -9 of the board the question is still open and a late a reaches the waiting hook; after kill -9 of the hook too, it is no longer waiting and the pane answers it', async () => {
		const box = realClientBox({SCENARIO: 'script', CLAUDE_TIMEOUT: '280'});
		const script = join(box.dir, 'script.json');
		writeFileSync(script, JSON.stringify(TURNS));
		const home = join(box.dir, 'home');
		expect(box.cli(['hooks', 'install', '--claude'], {HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude')}).status).toBe(0);
		expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
		const ledgerFile = join(box.dir, 'cr', 'ledger.db');
		const project = join(box.dir, 'project');
		const decisions = () =>
			(JSON.parse(box.cli(['snapshot', '--json', '--all']).stdout) as {decisions: SnapshotDecision[]}).decisions;
		tmux = new Tmux();
		const env = paneEnv(box, script);
		await startBoard(tmux, 'board1', env);
		await startClaudeTui(tmux, 'agent', env, box.dir);
		const ask = async (prompt: string, board: string): Promise<SnapshotDecision> => {
			const agent = tmux as Tmux;
			agent.type('agent', prompt);
			await agent.waitFor('agent', pane => new RegExp(`❯\\s*${prompt}`).test(pane), 30_000);
			agent.send('agent', 'Enter');
			await agent.waitFor('agent', pane => pane.includes('Do you want to proceed?'), 60_000);
			await agent.waitFor(board, pane => /decisions \(1\)/.test(pane), 10_000);
			const [open] = decisions().filter(decision => decision.state === 'open');
			if (!open) throw new Error('no open question');
			return open;
		};

		// The board killed while a question waits: after a restart it is still open, and a late a still reaches the hook
		const first = await ask('create hi.txt', 'board1');
		const board1 = paneChild('board1');
		process.kill(board1, 'SIGKILL');
		await waitFor(() => !isAlive(board1), {what: 'the board gone', timeoutMs: 10_000, on: [onLedgerChange(ledgerFile)]});
		expect(existsSync(join(project, 'hi.txt'))).toBe(false);
		await startBoard(tmux, 'board2', env);
		await tmux.waitFor('board2', pane => pane.includes(first.id), 10_000);
		tmux.send('board2', 'Tab');
		await tmux.waitFor('board2', pane => pane.includes('k acknowledges'));
		tmux.send('board2', 'a');
		await tmux.waitFor('board2', pane => pane.includes(`Allow ${first.id} exactly as shown above?`));
		tmux.send('board2', 'y');
		await tmux.waitFor('agent', pane => pane.includes('Allowed by PermissionRequest hook'), 30_000);
		await waitFor(() => existsSync(join(project, 'hi.txt')), {what: 'hi.txt', on: [onFileChange(project)], timeoutMs: 20_000});
		await tmux.waitFor('agent', pane => pane.includes('created'), 30_000);

		// The board and the waiting hook killed: nothing ran, the question is no longer waiting, the pane still answers it
		const second = await ask('create no.txt', 'board2');
		const hook = second.waiter?.pid ?? 0;
		expect(isAlive(hook)).toBe(true);
		const board2 = paneChild('board2');
		process.kill(board2, 'SIGKILL');
		process.kill(hook, 'SIGKILL');
		await waitFor(() => !isAlive(board2) && !isAlive(hook), {
			what: 'the board and the hook gone',
			timeoutMs: 10_000,
			on: [onLedgerChange(ledgerFile)],
		});
		await startBoard(tmux, 'board3', env);
		// The board's reconciler pass records it withdrawn: out of the queue, and decide refuses it
		await waitFor(() => decisions().find(decision => decision.id === second.id)?.state === 'withdrawn', {
			what: 'the question withdrawn after its hook died',
			on: [onLedgerChange(ledgerFile)],
			timeoutMs: 30_000,
		});
		expect(decisions().find(decision => decision.id === second.id)).toMatchObject({
			isWaiting: false,
			answer: null,
			withdrawn: {why: 'its hook died; the agent asks in its own pane'},
		});
		expect(tmux.capture('board3')).not.toContain(second.id);
		expect(existsSync(join(project, 'no.txt'))).toBe(false);
		tmux.send('agent', '1');
		await waitFor(() => existsSync(join(project, 'no.txt')), {
			what: 'no.txt from the pane',
			on: [onFileChange(project)],
			timeoutMs: 20_000,
		});
	}, 400_000);
});
