import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {event} from '../helpers/ledger.ts';
import {Tmux} from '../helpers/tmux.ts';
import {waitFor} from '../helpers/wait-for.ts';

const tmux = new Tmux();
afterAll(() => tmux.kill());

describe('the board with a config file', () => {
	it("takes its stall threshold from the file's stallSeconds, and --stall wins over it", async () => {
		// Given a running task last heard from two minutes ago (600 s, the default, would call it active)
		const home = scratchDir('cr-e2e-config-');
		const ledgerFile = join(home, 'ledger.db');
		const now = Date.now();
		const ledger = openLedger(ledgerFile);
		ledger.writer.append([
			event('w-quiet', EventType.registered, {title: 'quiet for two minutes'}, now - 300_000),
			event('w-quiet', EventType.started, {pid: null}, now - 300_000),
			event('w-quiet', EventType.heartbeat, {}, now - 120_000),
		]);
		ledger.close();
		// And a config file that stalls a task after a minute's silence
		const config = join(home, 'config.json');
		writeFileSync(config, JSON.stringify({stallSeconds: 60}));
		tmux.start('cfg', 160, 40, {CONTROLROOM_HOME: home, CONTROLROOM_CONFIG: config, PATH: process.env['PATH'] ?? ''});
		// When the board opens with no --stall
		tmux.type('cfg', `node ${BIN} --ledger ${ledgerFile}`);
		tmux.send('cfg', 'Enter');
		// Then the task is stalled
		const stalled = await tmux.waitFor('cfg', pane => pane.includes('quiet for two minutes') && /STALLED \(\d+\)/.test(pane));
		expect(stalled.pane).toContain('STALLED (1)');
		await waitFor(() => tmux.readsKeys('cfg'), {what: 'the board to read keys', timeoutMs: 8000});
		tmux.send('cfg', 'q');
		await waitFor(() => tmux.foreground('cfg') === 'sh', {what: 'the board to quit', timeoutMs: 8000});
		// And with --stall 600 given, the flag wins: the same task is running, not stalled
		tmux.type('cfg', `clear; node ${BIN} --ledger ${ledgerFile} --stall 600`);
		tmux.send('cfg', 'Enter');
		// The first board's last frame stays on screen until the clear, which also wipes the typed line.
		const running = await tmux.waitFor(
			'cfg',
			pane => !pane.includes('clear; node') && pane.includes('quiet for two minutes') && /STALLED \(\d+\)/.test(pane),
		);
		expect(running.pane).toContain('STALLED (0)');
		expect(running.pane).toContain('RUNNING (1)');
		tmux.send('cfg', 'q');
	});
});
