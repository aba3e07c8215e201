import {execFileSync} from 'node:child_process';
import {existsSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';

// `run`'s hold flags and policy file are checked before anything is registered or spawned
// (docs/headless-holds.md): each problem is one line and a documented exit code.

function refused(args: readonly string[], status: number, line: RegExp): void {
	const home = scratchDir('cr-home-');
	const run = runCli(['run', ...args], {env: {CONTROLROOM_HOME: home, CONTROLROOM_CONFIG: join(home, 'none.json')}});
	expect(run.status, run.stderr).toBe(status);
	expect(run.stderr.trim().split('\n')).toHaveLength(1);
	expect(run.stderr).toMatch(line);
	expect(run.stderr).not.toMatch(/\n\s+at /);
	// Nothing registered: no ledger was even made.
	expect(existsSync(join(home, 'ledger.db'))).toBe(false);
}

describe('run: a held Claude run refused before it starts', () => {
	it('a policy file that is a FIFO, not JSON, or holds a bad pattern: exit 78 naming it', () => {
		const dir = scratchDir('cr-policy-');
		const fifo = join(dir, 'policy.fifo');
		execFileSync('sh', ['-c', 'mkfifo "$1"', 'sh', fifo]);
		refused(['--policy', fifo, '--', 'claude', '-p', 'hi'], 78, /policy .*policy\.fifo: not a regular file/);
		writeFileSync(join(dir, 'bad.json'), '{"bash": [');
		refused(['--policy', join(dir, 'bad.json'), '--', 'claude', '-p', 'hi'], 78, /bad\.json: not valid JSON/);
		writeFileSync(join(dir, 'pattern.json'), '{"bash": ["(unclosed"]}');
		refused(['--policy', join(dir, 'pattern.json'), '--', 'claude', '-p', 'hi'], 78, /bash\.0: not a regular expression/);
		refused(['--policy', join(dir, 'missing.json'), '--', 'claude', '-p', 'hi'], 78, /missing\.json: cannot be read \(ENOENT\)/);
	});

	it('its own --settings, --bare, or a hold flag where nothing can be held: exit 64', () => {
		refused(
			['--', 'claude', '-p', 'hi', '--settings', '{}'],
			64,
			/^controlroom: --settings: a held Claude run gets its hold hook/,
		);
		refused(['--', 'claude', '-p', 'hi', '--bare'], 64, /--bare: Claude then runs no hooks/);
		refused(['--on-budget', 'ask', '--', 'codex', 'exec', 'hi'], 64, /only a Claude Code run can be paused/);
		refused(['--on-deny', 'stop', '--', 'claude'], 64, /only a headless Claude run \(claude -p\) is held/);
		refused(['--on-deny', 'later', '--', 'claude', '-p', 'hi'], 64, /--on-deny: expected resume\|stop, got 'later'/);
	});

	it('--resume of a task the ledger does not have: one line, exit 1', () => {
		const home = scratchDir('cr-home-');
		runCli(['run', '--', 'true'], {env: {CONTROLROOM_HOME: home}});
		const run = runCli(['run', '--resume', 'w-nope'], {env: {CONTROLROOM_HOME: home}});
		expect(run.status).toBe(1);
		expect(run.stderr).toMatch(/--resume: no task 'w-nope'/);
		const done = runCli(['snapshot', '--json', '--all'], {env: {CONTROLROOM_HOME: home}});
		const [task] = JSON.parse(done.stdout).tasks;
		const again = runCli(['run', '--resume', task.id], {env: {CONTROLROOM_HOME: home}});
		expect(again.status).toBe(1);
		expect(again.stderr).toMatch(/has ended \(done\); nothing to resume/);
	});
});
