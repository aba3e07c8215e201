import {chmodSync, mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';

type Doctor = {checks: {name: string; state: string; detail: string}[]};

describe('controlroom doctor', () => {
	it('finds nothing to look at on a fresh home, and says when the hooks are not installed', () => {
		const home = scratchDir('cr-doctor-');
		const env = {CONTROLROOM_HOME: home, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), CODEX_HOME: join(home, '.codex')};
		expect(runCli(['run', '--', 'true'], {env}).status).toBe(0);
		const run = runCli(['doctor', '--json'], {env});
		expect(run.status, run.stdout).toBe(0);
		const {checks} = JSON.parse(run.stdout) as Doctor;
		expect(checks.filter(check => check.state === 'problem')).toEqual([]);
		expect(checks.find(check => check.name === 'integrity')?.detail).toContain('quick_check: ok');
		expect(checks.find(check => check.name === 'hooks: claude')).toMatchObject({state: 'info'});
	});

	it('names each problem on a line of its own and exits 1: a ledger others can read, set-aside and dropped events', () => {
		// Given a ledger made readable by others, a spool file set aside as rejected and a drop marker folded in
		const home = scratchDir('cr-doctor-');
		const env = {CONTROLROOM_HOME: home, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), CODEX_HOME: join(home, '.codex')};
		expect(runCli(['run', '--', 'true'], {env}).status).toBe(0);
		mkdirSync(join(home, 'spool', 'rejected'), {recursive: true});
		writeFileSync(join(home, 'spool', 'x.dropped'), '');
		mkdirSync(join(home, 'spool', 'rejected'), {recursive: true});
		writeFileSync(join(home, 'spool', 'rejected', 'bad.json'), '{');
		writeFileSync(join(home, 'spool', 'rejected', 'bad.json.reason'), 'line 1: not valid JSON\n');
		expect(runCli(['snapshot'], {env}).status).toBe(0); // a reading command folds the spool: the drop is counted
		chmodSync(join(home, 'ledger.db'), 0o644);
		// When the doctor looks
		const run = runCli(['doctor'], {env});
		// Then each problem is one line, and the exit is 1
		expect(run.status).toBe(1);
		const problems = run.stdout.split('\n').filter(line => line.startsWith('problem'));
		expect(problems).toEqual([
			expect.stringMatching(/^problem permissions: .*ledger\.db is 0644 \(others can read it\)/),
			expect.stringMatching(/^problem rejected spool files: 1 set aside in .*rejected/),
			'problem dropped hook events: 1 hook event(s) could be written to neither the ledger nor the spool (a full disk?): 1 counted in the ledger, 0 drop markers waiting in the spool for a fold',
		]);
	});
});
