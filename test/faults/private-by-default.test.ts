import {spawn, spawnSync} from 'node:child_process';
import {readdirSync, statSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {fixture} from '../helpers/hook.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onFileChange, onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {agent, ledgerOf} from '../producers/helpers.ts';

/** Runs `controlroom ARGS` under `umask 022`, as a login shell usually has it. */
function underUmask022(args: readonly string[], env: NodeJS.ProcessEnv, input?: string) {
	return spawnSync('sh', ['-c', 'umask 022; exec "$@"', 'sh', process.execPath, BIN, ...args], {input, env, encoding: 'utf8'});
}

/** Every file and folder under `root` with its permission bits, as `path mode` lines. */
function modesUnder(root: string): string[] {
	const found: string[] = [];
	const walk = (dir: string): void => {
		for (const entry of readdirSync(dir, {withFileTypes: true})) {
			const path = join(dir, entry.name);
			const stat = statSync(path, {throwIfNoEntry: false});
			if (stat === undefined) continue; // gone since the listing (a temporary file)
			found.push(`${path.slice(root.length + 1)} ${(stat.mode & 0o777).toString(8)}`);
			if (entry.isDirectory()) walk(path);
		}
	};
	found.push(`. ${(statSync(root).mode & 0o777).toString(8)}`);
	walk(root);
	return found.sort();
}

const tmux = new Tmux();
afterAll(() => tmux.kill());

describe('private by default', () => {
	it('makes every folder 0700 and every file 0600 under a fresh CONTROLROOM_HOME with umask 022', async () => {
		// Given a CONTROLROOM_HOME that does not exist yet, and a shell whose umask is 022
		const home = join(scratchDir('cr-private-'), 'home');
		const env = {...process.env, CONTROLROOM_HOME: home, CLAUDE_PID: ''};
		// When the hook spools (no ledger yet) a good payload and a bad one, a reconciler pass creates
		// the ledger and folds them, and a wrapped run holds the ledger open (its WAL and shared memory live)
		expect(underUmask022(['hook'], env, fixture('claude/SessionStart.json')).status).toBe(0);
		expect(underUmask022(['hook'], env, 'not json at all').status).toBe(0);
		const pass = underUmask022(['reconcile', '--once'], env);
		expect(pass.stderr).toBe('');
		expect(pass.stdout).toMatch(/1 rejected, 1 files moved to spool\/rejected\//);
		const release = join(home, '..', 'release');
		const run = spawn(
			'sh',
			[
				'-c',
				'umask 022; exec "$@"',
				'sh',
				process.execPath,
				BIN,
				'run',
				'--title',
				'holder',
				'--',
				process.execPath,
				agent('holds-until-released.mjs'),
				release,
			],
			{
				env,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		const ledger = await ledgerOf(join(home, 'ledger.db'));
		try {
			await waitFor(() => ledger.reader.tasksForView(null).find(task => task.title === 'holder' && task.status === 'running'), {
				what: 'the wrapped run running',
				on: [onLedgerChange(ledger.path), onOutput(run.stdout)],
			});
			// Then nothing under the home is readable by anyone but its owner
			const modes = modesUnder(home);
			expect(modes.filter(line => line.endsWith(' 700') || line.endsWith(' 600'))).toEqual(modes);
			for (const name of [
				'. 700',
				'ledger.db 600',
				'ledger.db-wal 600',
				'ledger.db-shm 600',
				'spool 700',
				'spool/rejected 700',
				'locks 700',
			]) {
				expect(modes).toContain(name);
			}
			expect(modes.some(line => /^locks\/\w+\/slot-0\.lock 600$/.test(line))).toBe(true);
			expect(modes.some(line => /^spool\/rejected\/.+\.jsonl 600$/.test(line))).toBe(true);
		} finally {
			writeFileSync(release, '');
			ledger.close();
			await new Promise(done => run.once('close', done));
		}
	});

	it('a board started first, under umask 022, makes its home, ledger and spool the owner’s only', async () => {
		// Given a CONTROLROOM_HOME that does not exist yet
		const home = join(scratchDir('cr-private-board-'), 'home');
		tmux.start('first', 120, 30, {CONTROLROOM_HOME: home, PATH: process.env['PATH'] ?? ''});
		// When the board is the first thing to run there
		tmux.type('first', `umask 022; node ${BIN} --reconcile 3600`);
		tmux.send('first', 'Enter');
		await tmux.waitFor('first', pane => /NEEDS YOU/.test(pane), 20_000);
		await waitFor(() => modesUnder(home).some(line => line.startsWith('spool ')), {
			what: 'the board to make its spool',
			on: [onFileChange(join(home, 'spool'))],
		});
		const modes = modesUnder(home);
		tmux.send('first', 'q');
		process.stdout.write(`board first: ${modes.join(', ')}\n`);
		// Then everything it made is 0700 or 0600
		expect(modes.filter(line => line.endsWith(' 700') || line.endsWith(' 600'))).toEqual(modes);
		expect(modes).toContain('spool 700');
		expect(modes).toContain('ledger.db 600');
	}, 60_000);
});
