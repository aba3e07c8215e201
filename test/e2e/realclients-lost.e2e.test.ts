import {spawn} from 'node:child_process';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {realClientBox, realClientScript} from '../helpers/realclients.ts';
import {onExit, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const CLAUDE = realClientScript('claude-offline.sh');
/** Other people's agents on this machine are not this test's: look for no untracked process. */
const NO_UNTRACKED = ['--agents', 'cr-no-such-agent'];

describe('a real Claude killed mid-turn', () => {
	it('is lost after one reconciler pass', async () => {
		// Given a claude -p with hooks whose one model turn takes a minute
		const box = realClientBox({SCENARIO: 'script', CLAUDE_TIMEOUT: '120'});
		const script = join(box.dir, 'turns.json');
		writeFileSync(script, JSON.stringify([{text: 'slow answer', delay_ms: 90_000}]));
		const install = box.cli(['hooks', 'install', '--claude'], {
			HOME: join(box.dir, 'home'),
			CLAUDE_CONFIG_DIR: join(box.dir, 'home', '.claude'),
		});
		expect(install.status, install.stderr).toBe(0);
		expect(box.cli(['reconcile', '--once', ...NO_UNTRACKED]).status).toBe(0);
		const ledgerFile = join(box.dir, 'cr', 'ledger.db');
		const claude = spawn(CLAUDE, [box.dir, '-p', 'think hard', '--dangerously-skip-permissions'], {
			env: {...box.env, SCRIPT_FILE: script},
			stdio: 'ignore',
		});
		try {
			// When its session is running with its PID recorded, mid-turn, and that PID is killed with SIGKILL
			const task = await waitFor(
				() => {
					const found = box.snapshot().tasks.find(row => row['source'] === 'claude');
					return found && found['status'] === 'running' && typeof found['pid'] === 'number' ? found : undefined;
				},
				{what: 'the claude session running with its PID', timeoutMs: 120_000, on: [onLedgerChange(ledgerFile)]},
			);
			process.kill(Number(task['pid']), 'SIGKILL');
			await waitFor(() => claude.exitCode !== null || claude.signalCode !== null, {
				what: 'claude-offline.sh to exit',
				timeoutMs: 60_000,
				on: [onExit(claude)],
			});
			// Then one reconciler pass records it lost
			expect(box.cli(['reconcile', '--once', ...NO_UNTRACKED]).status).toBe(0);
			const after = box.snapshot().tasks;
			expect(after).toHaveLength(1);
			expect(after[0]).toMatchObject({id: task['id'], status: 'lost', lane: 'lost'});
			expect(box.cli(['snapshot', '--fail-on', 'lost']).status).toBe(1);
		} finally {
			if (claude.exitCode === null) claude.kill('SIGKILL');
		}
	}, 240_000);
});
