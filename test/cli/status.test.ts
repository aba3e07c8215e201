import {spawnSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';

/** The installed entry (package.json's bin): sh, answering status from the summary file. */
const SH_ENTRY = fileURLToPath(new URL('../../bin/controlroom.sh', import.meta.url));

function home(): {env: NodeJS.ProcessEnv; file: string} {
	const dir = scratchDir('cr-status-');
	const env = {...process.env, CONTROLROOM_HOME: dir};
	// One failed run: one entry in Needs you.
	expect(runCli(['run', '--title', 'fails', '--', 'sh', '-c', 'exit 3'], {env}).status).toBe(3);
	return {env, file: join(dir, 'status')};
}

function entry(args: readonly string[], env: NodeJS.ProcessEnv) {
	const run = spawnSync(SH_ENTRY, args, {env, encoding: 'utf8'});
	return {status: run.status, stdout: run.stdout, stderr: run.stderr};
}

describe('controlroom status (the sh entry and its summary file)', () => {
	it('with no summary yet goes through Node, which writes it; then answers from it with the same line', () => {
		const {env, file} = home();
		const first = entry(['status'], env);
		expect(first).toEqual({
			status: 0,
			stdout: 'needs you 1 · decisions 0 · running 0 · stalled 0 · lost 0 · today $—\n',
			stderr: '',
		});
		expect(readFileSync(file, 'utf8')).toMatch(
			/^v=1\nat=\d+\niso=\S+Z\nneeds=1\ndecisions=0\nrunning=0\nstalled=0\nlost=0\ncost=\n$/,
		);
		// The shell's answer: the node command is not run (a summary changed by hand shows as written)
		writeFileSync(file, readFileSync(file, 'utf8').replace('needs=1', 'needs=7'));
		expect(entry(['status'], env).stdout).toBe('needs you 7 · decisions 0 · running 0 · stalled 0 · lost 0 · today $—\n');
		const format = ['--format', '#[fg=red]{needs}#[default] {running}▶ {nope} {{lost}} {age}s'];
		expect(entry(['status', ...format], env).stdout).toMatch(/^#\[fg=red\]7#\[default\] 0▶ \{nope\} \{0\} \d+s\n$/);
		// The same line from the shell and from Node, for the same summary
		const parity = ['--format', '{needs} {decisions} {running} {stalled} {lost} {cost}{stale} {x} {{needs}}'];
		const fromNode = runCli(['status', ...parity], {env}).stdout;
		expect(entry(['status', ...parity], env).stdout).toBe(fromNode);
		const json = JSON.parse(entry(['status', '--json'], env).stdout) as Record<string, unknown>;
		expect(json).toMatchObject({v: 1, needs: 1, decisions: 0, running: 0, stalled: 0, lost: 0, costToday: null});
		expect(json['ageSeconds']).toEqual(expect.any(Number));
	});

	it('says how old the summary is once it is older than 30 s', () => {
		const {env, file} = home();
		entry(['status'], env);
		const old = Math.floor(Date.now() / 1000) - 600;
		writeFileSync(file, readFileSync(file, 'utf8').replace(/^at=\d+$/m, `at=${old}`));
		expect(entry(['status'], env).stdout).toMatch(/ · today \$— \(summary 10m old\)\n$/);
		expect(JSON.parse(entry(['status', '--json'], env).stdout)).toMatchObject({ageSeconds: expect.any(Number)});
	});

	it.each([
		['an escape code', 'needs=\u001b]0;owned\u0007'],
		['a word', 'needs=many'],
		['another version', 'v=2'],
	])('a summary file with %s is not believed: Node answers from the ledger and writes it again', (_why, line) => {
		const {env, file} = home();
		entry(['status'], env);
		const text = readFileSync(file, 'utf8');
		writeFileSync(file, line.startsWith('v=') ? text.replace('v=1', line) : text.replace('needs=1', line));
		const run = entry(['status'], env);
		expect(run.stdout).toBe('needs you 1 · decisions 0 · running 0 · stalled 0 · lost 0 · today $—\n');
		expect(readFileSync(file, 'utf8')).toContain('\nneeds=1\n');
	});

	it('hands every other command, and options it does not know, to Node with their exit codes', () => {
		const {env} = home();
		expect(entry(['--version'], env).status).toBe(0);
		const bad = entry(['status', '--bogus'], env);
		expect(bad.status).toBe(64);
		expect(bad.stderr).toMatch(/^controlroom: status: .*--bogus.*\n$/);
		expect(entry(['status', 'extra'], env)).toMatchObject({
			status: 64,
			stderr: "controlroom: status: unexpected argument 'extra'\n",
		});
		expect(entry(['status', '--format'], env).status).toBe(64);
	});

	it('the reconciler keeps the summary current', () => {
		const {env, file} = home();
		expect(runCli(['reconcile', '--once', '--agents', 'cr-no-such-agent'], {env}).status).toBe(0);
		expect(readFileSync(file, 'utf8')).toContain('\nneeds=1\n');
	});
});
