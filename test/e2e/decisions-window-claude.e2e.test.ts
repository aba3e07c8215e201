import {existsSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {decisionsOf, isAlive, paneEnv, promptUntilDialog, startBoard, startClaudeTui} from '../helpers/claude-tui.ts';
import {runAsPerson} from '../helpers/person.ts';
import {realClientBox} from '../helpers/realclients.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onFileChange, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// A question left past its window (docs/decisions.md, "The window"), with the real Claude Code TUI
// in tmux and `hooks install --claude --decision-window 8`: the hook gives up, prints nothing and
// ends; nothing runs; the question leaves the queue and takes no late answer; the agent's own
// dialog, on screen all along, still answers it.

const WINDOW_S = 8;

let tmux: Tmux | undefined;
afterEach(() => tmux?.kill());

describe('a permission question past its window (real Claude Code TUI)', () => {
	it('runs nothing, leaves the queue, refuses a late answer, and the dialog still answers it', async () => {
		const box = realClientBox({SCENARIO: 'script', CLAUDE_TIMEOUT: '200'});
		const script = join(box.dir, 'script.json');
		writeFileSync(
			script,
			JSON.stringify([{tool: 'Bash', input: {command: 'touch hi.txt', description: 'Create hi.txt'}}, {text: 'created'}]),
		);
		const home = join(box.dir, 'home');
		const install = box.cli(['hooks', 'install', '--claude', '--decision-window', String(WINDOW_S)], {
			HOME: home,
			CLAUDE_CONFIG_DIR: join(home, '.claude'),
		});
		expect(install.status, install.stderr).toBe(0);
		expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
		const ledgerFile = join(box.dir, 'cr', 'ledger.db');
		const project = join(box.dir, 'project');
		const decisions = () => decisionsOf(box);

		tmux = new Tmux();
		const env = paneEnv(box, script);
		await startBoard(tmux, 'board', env);
		await startClaudeTui(tmux, 'agent', env, box.dir);
		await promptUntilDialog(tmux, 'agent', 'create hi.txt', 'touch hi.txt');

		// Asked, with the window's end as its expiry, and waited on by its hook
		const [asked] = await waitFor(
			() =>
				decisions()
					.filter(decision => decision.kind === 'permission')
					.slice(0, 1),
			{
				what: 'the permission question',
				on: [onLedgerChange(ledgerFile)],
				timeoutMs: 20_000,
			},
		);
		if (!asked?.expiresAt || !asked.waiter) throw new Error(`no window or no waiter: ${JSON.stringify(asked)}`);
		const window = Date.parse(asked.expiresAt) - Date.parse(asked.askedAt);
		expect(window).toBeGreaterThanOrEqual(WINDOW_S * 1000);
		expect(window).toBeLessThan(WINDOW_S * 1000 + 2000);
		const hook = asked.waiter.pid;

		// Past the window: the hook withdrew it and ended, printing nothing; nothing ran
		await waitFor(() => decisions().find(decision => decision.id === asked.id)?.state === 'withdrawn', {
			what: 'the question withdrawn at the end of its window',
			on: [onLedgerChange(ledgerFile)],
			timeoutMs: (WINDOW_S + 30) * 1000,
		});
		const after = decisions().find(decision => decision.id === asked.id);
		expect(after).toMatchObject({answer: null, isWaiting: false});
		expect(after?.withdrawn?.why).toMatch(/^its window passed unanswered/);
		expect(Date.parse(after?.withdrawn?.at ?? '')).toBeGreaterThanOrEqual(Date.parse(asked.expiresAt));
		await waitFor(() => !isAlive(hook), {what: 'the hook ended', timeoutMs: 10_000, on: [onLedgerChange(ledgerFile)]});
		expect(existsSync(join(project, 'hi.txt'))).toBe(false);
		const late = runAsPerson(['decide', asked.id, 'allow'], {env: box.env});
		expect(late.status).toBe(1);
		expect(late.stderr).toMatch(/no longer waiting \(its window passed unanswered/);
		await tmux.waitFor('board', pane => !pane.includes(asked.id) && /decisions \(0\)|NEEDS YOU/.test(pane), 10_000);
		expect(tmux.capture('board')).not.toContain(asked.id);
		// The dialog is still there and answers it: the call runs once, from the pane
		const pane = tmux.capture('agent');
		expect(pane).toContain('Do you want to proceed?');
		expect(pane).not.toContain('PermissionRequest hook');
		expect(existsSync(join(project, 'hi.txt'))).toBe(false);
		tmux.send('agent', '1');
		await waitFor(() => existsSync(join(project, 'hi.txt')), {
			what: 'hi.txt from the pane',
			on: [onFileChange(project)],
			timeoutMs: 20_000,
		});
		await tmux.waitFor('agent', screen => screen.includes('created'), 30_000);
	}, 300_000);
});
