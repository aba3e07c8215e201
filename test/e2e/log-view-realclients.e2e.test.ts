import {spawnSync} from 'node:child_process';
import {mkdirSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import type {TaskLog} from '../../src/core/board/log-view.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {createLogReader} from '../../src/producers/task-log.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {realClientScript, requireRealClients} from '../helpers/realclients.ts';

// The log view of a hook-only session, on what the real Claude Code writes: its hooks name the
// transcript, and the board reads the session's last messages from it.
describe('the log view of a real Claude Code session', () => {
	it("shows the prompt, the tool call, its result and the answer from the session's transcript", () => {
		// Given the real claude -p, offline, with controlroom's hooks installed, running one Bash call
		const work = scratchDir('cr-rc-log-');
		const env = {
			...process.env,
			...requireRealClients(),
			CONTROLROOM_HOME: join(work, 'cr'),
			HOME: join(work, 'home'),
			CLAUDE_CONFIG_DIR: join(work, 'home', '.claude'),
		};
		mkdirSync(env.CLAUDE_CONFIG_DIR, {recursive: true});
		expect(runCli(['hooks', 'install', '--claude'], {env}).status).toBe(0);
		const run = spawnSync(realClientScript('claude-offline.sh'), [work, '-p', 'run echo hi', '--dangerously-skip-permissions'], {
			env: {...env, SCENARIO: 'bash'},
			encoding: 'utf8',
		});
		expect(run.status, run.stderr).toBe(0);
		// A hook that found the ledger busy spooled its event: the reconciler's pass folds it.
		expect(runCli(['reconcile', '--once'], {env}).status).toBe(0);
		// When the board's log reader opens the session
		const ledger = openLedger(join(env.CONTROLROOM_HOME, 'ledger.db'));
		try {
			const session = ledger.reader.tasksForView(null).find(task => task.source === 'claude');
			expect(session).toBeDefined();
			let log: TaskLog | null = null;
			createLogReader(ledger).watch(session?.id ?? '', read => (log = read))();
			// Then it shows the session's messages, read from the transcript
			expect(log).toMatchObject({source: 'transcript'});
			const lines = (log as TaskLog | null)?.lines ?? [];
			expect(lines).toEqual(['you: run echo hi', 'claude → Bash echo hi', '  ⎿ hi', 'claude: hi']);
		} finally {
			ledger.close();
		}
	}, 120_000);

	it("shows the output the wrapper kept of a run whose agent's hooks also registered it", () => {
		// Given the real claude -p with controlroom's hooks installed, wrapped through a launcher (its output passes the wrapper)
		const work = scratchDir('cr-rc-log-wrapped-');
		const env = {
			...process.env,
			...requireRealClients(),
			CONTROLROOM_HOME: join(work, 'cr'),
			HOME: join(work, 'home'),
			CLAUDE_CONFIG_DIR: join(work, 'home', '.claude'),
		};
		mkdirSync(env.CLAUDE_CONFIG_DIR, {recursive: true});
		expect(runCli(['hooks', 'install', '--claude'], {env}).status).toBe(0);
		const run = runCli(
			['run', '--', realClientScript('claude-offline.sh'), work, '-p', 'run echo hi', '--dangerously-skip-permissions'],
			{
				env: {...env, SCENARIO: 'bash'},
			},
		);
		expect(run.status, run.stderr).toBe(0);
		expect(runCli(['reconcile', '--once'], {env}).status).toBe(0);
		const ledger = openLedger(join(env.CONTROLROOM_HOME, 'ledger.db'));
		try {
			// The run's task holds the session its hooks registered
			const task = ledger.reader.tasksForView(null).find(entry => entry.source === 'wrapper');
			expect(task).toMatchObject({source: 'wrapper', sessionId: expect.any(String)});
			// When the board's log reader opens it
			let log: TaskLog | null = null;
			createLogReader(ledger).watch(task?.id ?? '', read => (log = read))();
			// Then it shows what the wrapper kept: claude's own answer on its stdout
			expect(log).toMatchObject({source: 'output'});
			expect((log as TaskLog | null)?.lines.join('\n')).toContain(run.stdout.trim().split('\n').at(-1) ?? 'no output');
		} finally {
			ledger.close();
		}
	}, 120_000);
});
