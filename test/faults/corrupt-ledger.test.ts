import {spawn} from 'node:child_process';
import {closeSync, openSync, readdirSync, writeSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {withRawDb} from '../helpers/raw-db.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onExit, waitFor} from '../helpers/wait-for.ts';

const tmux = new Tmux();
afterAll(() => tmux.kill());

/**
 * A ledger with three finished tasks whose events' unique index has one page overwritten: reads of
 * the tasks still work (they do not use that index), `PRAGMA quick_check` does not pass.
 */
function corruptLedger(): {home: string; ledgerFile: string} {
	const home = scratchDir('cr-corrupt-');
	for (const title of ['job 1', 'job 2', 'job 3']) {
		expect(runCli(['run', '--title', title, '--', 'true'], {env: {CONTROLROOM_HOME: home}}).status).toBe(0);
	}
	const ledgerFile = join(home, 'ledger.db');
	// Closing the last connection folds the WAL into the file, so the page written below is the one read.
	const {page, pageSize} = withRawDb(ledgerFile, db => {
		const index = db
			.prepare("SELECT rootpage FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'events' AND sql IS NULL")
			.get() as {rootpage: number};
		return {page: index.rootpage, pageSize: db.pragma('page_size', {simple: true}) as number};
	});
	const fd = openSync(ledgerFile, 'r+');
	writeSync(fd, Buffer.alloc(pageSize, 0x55), 0, pageSize, (page - 1) * pageSize);
	closeSync(fd);
	return {home, ledgerFile};
}

describe('a ledger whose file is corrupt', () => {
	it('is named by doctor in one line a problem, exit 1', () => {
		const {home} = corruptLedger();
		const run = runCli(['doctor'], {env: {CONTROLROOM_HOME: home, HOME: home}});
		expect(run.status).toBe(1);
		const integrity = run.stdout.split('\n').filter(line => line.startsWith('problem integrity:'));
		expect(integrity).toHaveLength(1);
		expect(integrity[0]).toMatch(/PRAGMA quick_check: .*page \d+/);
		expect(integrity[0]).not.toContain('*** in database');
	});

	it('stops a writer with one line, and a hook event waits in the spool instead of being lost', () => {
		const {home} = corruptLedger();
		const env = {CONTROLROOM_HOME: home};
		// A wrapper refuses to start its agent on a ledger it cannot write
		const run = runCli(['run', '--title', 'after', '--', 'sh', '-c', 'echo the agent ran'], {env});
		expect(run.status).toBe(1);
		expect(run.stdout).toBe('');
		expect(run.stderr.trim().split('\n')).toEqual([
			expect.stringMatching(/^controlroom: the ledger file is damaged \(SQLITE_CORRUPT: .*\); nothing more was written to it/),
		]);
		// A hook exits 0, prints nothing, and its event is spooled; a fold on the damaged ledger leaves it there
		const payload = JSON.stringify({session_id: 's-1', hook_event_name: 'SessionStart', cwd: home});
		const hook = runCli(['hook', '--direct'], {env, input: payload});
		expect([hook.status, hook.stdout]).toEqual([0, '']);
		expect(runCli(['reconcile', '--once'], {env}).status).toBe(1);
		expect(readdirSync(join(home, 'spool')).filter(name => name.endsWith('.jsonl'))).toHaveLength(1);
	});

	it('is said on the board, on a line that stays, while the tasks still show', async () => {
		// Given the corrupt ledger, when the board opens on it
		const {home} = corruptLedger();
		tmux.start('corrupt', 120, 30, {CONTROLROOM_HOME: home, PATH: process.env['PATH'] ?? ''});
		tmux.type('corrupt', `node ${BIN}`);
		tmux.send('corrupt', 'Enter');
		// Then the tasks show, and the check run after the first frame puts its finding under the header
		const pane = await tmux.waitFor('corrupt', text => text.includes('integrity check'), 20_000);
		expect(pane.pane).toMatch(/⚠ the ledger failed its integrity check \(PRAGMA quick_check\): .*page \d+/);
		expect(pane.pane).toContain('RECENTLY ENDED (3)');
		tmux.send('corrupt', 'q');
	});
});

describe('a reader that goes away', () => {
	it('ends the command without a stack trace (EPIPE is not an error worth one)', async () => {
		// Given a command whose stdout pipe is closed by its reader before it writes
		const {home} = corruptLedger();
		const child = spawn(process.execPath, [BIN, 'doctor'], {
			env: {...process.env, CONTROLROOM_HOME: home, HOME: home},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		child.stdout.destroy();
		let stderr = '';
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		// When it ends
		await waitFor(() => child.exitCode !== null, {what: 'doctor to exit', timeoutMs: 20_000, on: [onExit(child)]});
		// Then with its own exit code (1: a problem found) and nothing on stderr
		expect(stderr).toBe('');
		expect(child.exitCode).toBe(1);
	});
});
