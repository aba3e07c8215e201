import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {realClientBox, realClientScript} from '../helpers/realclients.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const CLAUDE = realClientScript('claude-offline.sh');
/** Other people's agents on this machine are not this test's: look for no untracked process. */
const NO_UNTRACKED = ['--agents', 'cr-no-such-agent'];

let tmux: Tmux | undefined;
afterEach(() => tmux?.kill());

describe('interactive Claude Code on a terminal (under script)', () => {
	it('StopFailure then /exit ends the session failed', async () => {
		// Given the real TUI with hooks, whose model answers every request with an API error
		const box = realClientBox({SCENARIO: 'error', ERROR_STATUS: '400', CLAUDE_TIMEOUT: '150'});
		const install = box.cli(['hooks', 'install', '--claude'], {
			HOME: join(box.dir, 'home'),
			CLAUDE_CONFIG_DIR: join(box.dir, 'home', '.claude'),
		});
		expect(install.status, install.stderr).toBe(0);
		expect(box.cli(['reconcile', '--once', ...NO_UNTRACKED]).status).toBe(0);
		const ledgerFile = join(box.dir, 'cr', 'ledger.db');
		const session = 'claude';
		tmux = new Tmux();
		const env: Record<string, string> = {};
		for (const key of ['PATH', 'REALCLIENTS', 'CONTROLROOM_HOME', 'SCENARIO', 'ERROR_STATUS', 'CLAUDE_TIMEOUT'])
			env[key] = String(box.env[key]);
		tmux.start(session, 120, 40, env);
		tmux.type(session, `script -qfc '${CLAUDE} ${box.dir}' /dev/null`);
		tmux.send(session, 'Enter');
		// When a prompt is typed once the TUI reads keys, and the API error comes back
		await tmux.waitFor(session, () => tmux?.readsKeys(session) === true && tmux.foreground(session) !== 'sh', 90_000);
		tmux.type(session, 'say hi');
		// Enter once the prompt shows the text (typed keys arrive as a burst the TUI may take as a paste)
		await tmux.waitFor(session, pane => /❯\s*say hi/.test(pane), 30_000);
		tmux.send(session, 'Enter');
		const sessionTask = () => box.snapshot().tasks.find(row => row['source'] === 'claude');
		await waitFor(() => sessionTask()?.['status'] === 'failed', {
			what: 'the session failed by StopFailure',
			timeoutMs: 90_000,
			on: [onLedgerChange(ledgerFile)],
			explain: () => tmux?.capture(session) ?? '',
		});
		// and the user leaves with /exit
		tmux.type(session, '/exit');
		await tmux.waitFor(session, pane => /❯\s*\/exit/.test(pane), 30_000);
		tmux.send(session, 'Enter');
		const events = () => {
			const id = String(sessionTask()?.['id']);
			const timeline = JSON.parse(box.cli(['timeline', id, '--json']).stdout) as {
				entries: {type?: string; data?: {event?: string}}[];
			};
			return timeline.entries.filter(entry => entry.type === 'agent.event').map(entry => entry.data?.event);
		};
		await waitFor(() => events().includes('SessionEnd'), {
			what: 'SessionEnd from /exit',
			timeoutMs: 60_000,
			on: [onLedgerChange(ledgerFile)],
			explain: () => tmux?.capture(session) ?? '',
		});
		// Then the session is failed, its timeline holding both the failure and the end
		expect(sessionTask()).toMatchObject({status: 'failed', lane: 'ended'});
		expect(events()).toEqual(expect.arrayContaining(['StopFailure', 'SessionEnd']));
	}, 300_000);
});
