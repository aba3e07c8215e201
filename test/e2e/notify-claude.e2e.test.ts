import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {BIN} from '../helpers/cli.ts';
import {realClientBox, realClientScript, installClaudeHooks} from '../helpers/realclients.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onFileChange, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const CLAUDE = realClientScript('claude-offline.sh');

let tmux: Tmux | undefined;
afterEach(() => tmux?.kill());

type Line = {key: string; lane: string; taskId: string; about: string | null; reason: string; suppressed: number};

function linesOf(file: string): Line[] {
	if (!existsSync(file)) return [];
	return readFileSync(file, 'utf8')
		.split('\n')
		.filter(line => line.trim() !== '')
		.map(line => JSON.parse(line) as Line);
}

describe('notifications for what comes into Needs you while the board is in another window (real Claude Code)', () => {
	it('a permission prompt and a failure: one JSON line each over five refreshes, and OSC 9 in the pane output', async () => {
		// Given the board in one window with a notify command and OSC 9, its output piped out by tmux
		const box = realClientBox({SCENARIO: 'bashperm', CLAUDE_TIMEOUT: '280'});
		const ledgerFile = join(box.dir, 'cr', 'ledger.db');
		installClaudeHooks(box);
		expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
		const received = join(box.dir, 'notified.jsonl');
		const piped = join(box.dir, 'board-output.bin');
		writeFileSync(received, '');
		writeFileSync(piped, '');
		const env: Record<string, string> = {
			PATH: String(box.env['PATH']),
			REALCLIENTS: String(box.env['REALCLIENTS']),
			CONTROLROOM_HOME: String(box.env['CONTROLROOM_HOME']),
			CONTROLROOM_AGENT_NAMES: 'cr-no-such-agent',
			SCENARIO: 'bashperm',
			CLAUDE_TIMEOUT: '280',
		};
		tmux = new Tmux();
		const session = tmux;
		session.start('board', 160, 40, env);
		session.run(['pipe-pane', '-t', 'board:0', `cat >> '${piped}'`]);
		session.type('board', `node ${BIN} --reconcile 3600 --notify-command 'cat >> ${received}' --desktop-notify osc9`);
		session.send('board', 'Enter');
		await session.waitFor('board', pane => pane.includes('RECENTLY ENDED (0)'), 60_000);
		await waitFor(() => session.readsKeys('board:0'), {what: 'the board to read keys', timeoutMs: 30_000});

		// When a real Claude TUI in another window asks for permission to run a command
		const ask = `${CLAUDE} ${box.dir} --permission-mode default`;
		session.run([
			'new-window',
			'-t',
			'board:1',
			`env -u NODE_ENV -u VITEST ${Object.entries(env)
				.map(([k, v]) => `${k}=${JSON.stringify(v)}`)
				.join(' ')} ${ask}`,
		]);
		await session.waitFor(
			'board',
			() => session.readsKeys('board:1') && session.foreground('board:1') !== 'sh',
			120_000,
			'board:1',
		);
		session.type('board:1', 'run echo hi');
		await session.waitFor('board', pane => /❯\s*run echo hi/.test(pane), 60_000, 'board:1');
		session.send('board:1', 'Enter');
		const claudeTask = () => box.snapshot().tasks.find(row => row['source'] === 'claude')?.['id'];
		await waitFor(() => linesOf(received).some(line => (line.about ?? line.taskId) === claudeTask()), {
			what: "a notification for the Claude session's permission prompt",
			timeoutMs: 180_000,
			on: [onFileChange(received), onLedgerChange(ledgerFile)],
			explain: () => `${readFileSync(received, 'utf8')}\n${session.capture('board:1')}`,
		});
		// and a wrapped run fails
		const failed = box.cli(['run', '--title', 'fails on purpose', '--', 'sh', '-c', 'exit 3']);
		expect(failed.status).toBe(3);
		await waitFor(() => linesOf(received).some(line => line.lane === 'failed'), {
			what: 'a notification for the failed run',
			timeoutMs: 60_000,
			on: [onFileChange(received)],
			explain: () => readFileSync(received, 'utf8'),
		});
		// and the board reads the ledger five more times (five runs that end well, each shown)
		for (let run = 1; run <= 5; run += 1) {
			expect(box.cli(['run', '--title', `refresh ${run}`, '--', 'true']).status).toBe(0);
			await session.waitFor('board', pane => pane.includes(`RECENTLY ENDED (${run + 1})`), 30_000, 'board:0');
		}

		// Then each entry came once: no key twice, the prompt's entries and the failure's each one line
		const lines = linesOf(received);
		expect(new Set(lines.map(line => line.key)).size).toBe(lines.length);
		expect(lines.filter(line => line.lane === 'failed')).toHaveLength(1);
		expect(lines.some(line => (line.about ?? line.taskId) === claudeTask())).toBe(true);
		expect(lines.every(line => line.suppressed === 0)).toBe(true);
		// and the board wrote OSC 9 in tmux's passthrough wrapping, into its own output stream
		const output = readFileSync(piped, 'latin1');
		expect(output).toContain('\u001bPtmux;\u001b\u001b]9;controlroom: ');
		expect(output.split('\u001b\u001b]9;').length - 1).toBe(lines.length);
	}, 600_000);
});
