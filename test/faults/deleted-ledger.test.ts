import {unlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN} from '../helpers/cli.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onOutput, waitFor} from '../helpers/wait-for.ts';
import {killQuietly, sandbox, startCli, type Started} from '../producers/helpers.ts';

const SESSION = 'deleted';
const tmux = new Tmux();
const runs: Started[] = [];
afterAll(() => {
	tmux.kill();
	for (const run of runs) killQuietly(run.child.pid);
});

function taskTitled(ledgerFile: string, title: string) {
	const ledger = openLedger(ledgerFile, {isReadonly: true});
	try {
		return ledger.reader.tasksForView(null).find(task => task.title === title);
	} finally {
		ledger.close();
	}
}

describe('the ledger deleted under a running board and wrapper', () => {
	it('is noticed by both within 5 s, and the later events land in the new file', async () => {
		// Given a wrapped shell that waits on a fifo it made, and the board open on the same ledger
		const box = sandbox();
		openLedger(box.ledgerFile).close();
		const fifo = join(box.dir, 'go');
		const run = startCli(
			[
				'run',
				'--ledger',
				box.ledgerFile,
				'--title',
				'survivor',
				'--',
				'sh',
				'-c',
				`mkfifo ${fifo} && echo ready; read line < ${fifo}; echo done`,
			],
			box.env,
			box.dir,
		);
		runs.push(run);
		await waitFor(() => run.stdout().includes('ready'), {what: 'the wrapped shell to start', on: [onOutput(run.child.stdout)]});
		tmux.start(SESSION, 160, 45, {CONTROLROOM_HOME: box.home, PATH: process.env['PATH'] ?? ''});
		// The board's own reconciler pass is pinned off: its file check alone must notice.
		tmux.type(SESSION, `node ${BIN} --ledger ${box.ledgerFile} --reconcile 3600`);
		tmux.send(SESSION, 'Enter');
		await tmux.waitFor(SESSION, pane => pane.includes('survivor') && pane.includes('RUNNING (1)'), 15_000);

		// When the ledger file is deleted (as `rm ledger.db` would)
		const deletedAt = Date.now();
		unlinkSync(box.ledgerFile);

		// Then the board says so on its status line within 5 s (whoever looks first makes the new
		// file, so the other finds the path replaced rather than empty)
		const warned = /ledger \S+ was (deleted|replaced) at/;
		const board = await tmux.waitFor(SESSION, pane => warned.test(pane), 8000);
		process.stdout.write(`deleted ledger: board warned after ${board.at - deletedAt} ms\n`);
		expect(board.at - deletedAt).toBeLessThan(5000);
		// And the wrapper on stderr within 5 s
		const wrapperAt = await waitFor(
			() => /ledger \S+ was (deleted|replaced) while this task ran/.test(run.stderr()) && Date.now(),
			{
				what: 'the wrapper to warn',
				timeoutMs: 8000,
				on: [onOutput(run.child.stderr)],
			},
		);
		process.stdout.write(`deleted ledger: wrapper warned after ${wrapperAt - deletedAt} ms\n`);
		expect(wrapperAt - deletedAt).toBeLessThan(5000);
		// And the new file holds the task, recorded again, running
		expect(taskTitled(box.ledgerFile, 'survivor')).toMatchObject({status: 'running'});

		// When the child ends
		writeFileSync(fifo, 'go\n');
		const ended = await run.done;
		expect(ended.code).toBe(0);
		// Then its end is in the new file, and on the board
		expect(taskTitled(box.ledgerFile, 'survivor')).toMatchObject({status: 'done', exitCode: 0});
		await tmux.waitFor(SESSION, pane => pane.includes('RECENTLY ENDED (1)') && pane.includes('survivor'), 8000);
		expect(tmux.capture(SESSION)).toMatch(warned);
	}, 60_000);
});
