import {spawn} from 'node:child_process';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const tmux = new Tmux();
afterAll(() => tmux.kill());

async function waitForTask(ledgerFile: string, title: string) {
	return waitFor(
		() => {
			const ledger = openLedger(ledgerFile);
			const task = ledger.reader.tasksForView(null).find(candidate => candidate.title === title);
			ledger.close();
			return task?.status === 'running' && task.pid !== null && task;
		},
		{what: `the wrapper to record ${title} as running`, on: [onLedgerChange(ledgerFile)]},
	);
}

describe('the board on its own', () => {
	it('finds a crashed agent lost with its own reconciler pass, no other process running', async () => {
		// Given a task the real wrapper runs, and the board open on its ledger with a 1 s reconciler
		const home = scratchDir('cr-e2e-rec-');
		const ledgerFile = join(home, 'ledger.db');
		const wrapper = spawn(
			process.execPath,
			[BIN, 'run', '--ledger', ledgerFile, '--title', 'about to crash', '--', 'sleep', '300'],
			{
				env: {...process.env, CONTROLROOM_HOME: home},
				stdio: 'ignore',
				detached: true,
			},
		);
		const task = await waitForTask(ledgerFile, 'about to crash');
		tmux.start('rec', 160, 45, {CONTROLROOM_HOME: home, PATH: process.env['PATH'] ?? ''});
		tmux.type('rec', `node ${BIN} --ledger ${ledgerFile} --reconcile 1`);
		tmux.send('rec', 'Enter');
		await tmux.waitFor('rec', pane => pane.includes('about to crash') && pane.includes('LOST (0)'));
		// When the wrapper and its child die by SIGKILL, so nobody records an exit
		process.kill(-(wrapper.pid ?? 0), 'SIGKILL');
		process.kill(-(task.pgid ?? task.pid ?? 0), 'SIGKILL');
		// Then the board's own pass marks it lost and shows it there
		const {pane} = await tmux.waitFor('rec', current => current.includes('LOST (1)'), 10_000);
		const lostLine = pane.split('\n').find(line => line.includes('about to crash'));
		expect(lostLine).toContain('lost');
		tmux.send('rec', 'q');
	});
});
