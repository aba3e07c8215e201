import {execFileSync, spawnSync} from 'node:child_process';
import {symlinkSync, truncateSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {childScript} from '../helpers/children.ts';

/** An alias bomb: ten levels, each ten aliases of the one before (10^10 strings if expanded). */
function aliasBomb(): string {
	const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
	for (let level = 1; level < 10; level += 1)
		lines.push(`a${level}: &a${level} [${Array.from({length: 10}, () => `*a${level - 1}`).join(',')}]`);
	return `${lines.join('\n')}\ntitle: bomb\n`;
}

const CASES: readonly {name: string; file: string; plant: (path: string) => void; reason: RegExp}[] = [
	{
		name: 'a 200 MB contract',
		file: 'huge.yaml',
		// Sparse: its size is what the check reads, before a byte of it.
		plant: path => (writeFileSync(path, 'title: x\n'), truncateSync(path, 200 * 1024 * 1024)),
		reason: /is too large \(209715200 bytes; the limit is 1048576\)/,
	},
	{
		name: 'a FIFO contract',
		file: 'fifo.yaml',
		plant: path => void execFileSync('sh', ['-c', 'mkfifo "$1"', 'sh', path]),
		reason: /is a FIFO, not a regular file/,
	},
	{
		name: 'a Latin-1 contract',
		file: 'latin1.yaml',
		plant: path => writeFileSync(path, Buffer.from('title: caf\xe9 r\xe9sum\xe9\n', 'latin1')),
		reason: /is not valid UTF-8 text/,
	},
	{
		name: 'an alias bomb',
		file: 'bomb.yaml',
		plant: path => writeFileSync(path, aliasBomb()),
		reason: /more than 100 YAML aliases/,
	},
	{
		name: 'a link to /dev/zero',
		file: 'zero.yaml',
		plant: path => symlinkSync('/dev/zero', path),
		reason: /is a symbolic link \(not followed\)/,
	},
];

/**
 * Runs `controlroom ARGS` with its wall time, and its CPU time, its own waits and its peak RSS as
 * it reports them at exit (children/process-times.ts, on a pipe of its own). A run that hangs is
 * killed after 20 s: its status is null, never 1.
 */
function measured(args: readonly string[], home: string) {
	const started = performance.now();
	const result = spawnSync(process.execPath, ['--import', childScript('process-times'), BIN, ...args], {
		env: {...process.env, CONTROLROOM_HOME: home},
		stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
		timeout: 20_000,
	});
	const wallMs = performance.now() - started;
	const [, stdout, stderr, times] = result.output as (Buffer | null)[];
	const {cpuMs, waitedMs, maxRssKiB} = JSON.parse(String(times ?? '{}')) as {
		cpuMs?: number;
		waitedMs?: number;
		maxRssKiB?: number;
	};
	return {
		status: result.status,
		stdout: String(stdout ?? ''),
		stderr: String(stderr ?? ''),
		wallMs,
		// What the process itself spent: on a core, or waiting on its own (a file, a pipe, a FIFO's
		// open), without the time it queued for a core behind other processes (docs/testing.md).
		ownMs: (cpuMs ?? Number.NaN) + (waitedMs ?? Number.NaN),
		rssMb: (maxRssKiB ?? Number.NaN) / 1024,
	};
}

describe('contracts an agent could have written', () => {
	it.each(CASES)(
		'$name: one line naming the problem, exit 1, within 2 s and 200 MB, for check, take and run',
		({file, plant, reason}) => {
			const dir = scratchDir('cr-hostile-contract-');
			const path = join(dir, file);
			plant(path);
			const home = join(dir, 'home');
			const runs = {
				check: measured(['contract', 'check', path], home),
				take: measured(['take', path], home),
				run: measured(['run', '--contract', path, '--', 'sh', '-c', 'echo the agent ran'], home),
			};
			for (const [verb, result] of Object.entries(runs)) {
				process.stdout.write(
					`hostile contract ${file}: ${verb} exit ${result.status} in ${result.ownMs.toFixed(0)} ms of its own (${result.wallMs.toFixed(0)} ms wall), peak RSS ${result.rssMb.toFixed(0)} MB\n`,
				);
				expect(result.status, `${verb}: ${result.stderr}`).toBe(1);
				// The 2 s is issue 26's promise, and it holds on what the process spends itself: a 200 MB
				// read or a FIFO waited on is its own time; queueing for a core on a loaded machine is not
				// (at load 14 the wall clock of a plain `contract check` passed 2 s).
				expect(result.ownMs).toBeLessThan(2000);
				expect(result.rssMb).toBeLessThan(200);
				expect(result.stderr).not.toContain('    at ');
				expect(result.stdout + result.stderr).not.toContain('the agent ran');
			}
			// check prints its one line on stdout; take and run theirs on stderr
			expect(runs.check.stdout).toMatch(new RegExp(`^${path}: not read as a contract: ${reason.source}[^\n]*\n$`));
			for (const verb of ['take', 'run'] as const) {
				expect(runs[verb].stderr).toMatch(/^controlroom: [^\n]+\n$/);
				expect(runs[verb].stderr).toMatch(reason);
			}
		},
	);
});
