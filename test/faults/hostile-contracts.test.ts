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

/** Runs `controlroom ARGS` with its peak RSS and wall time measured (children/process-times.ts). */
function measured(args: readonly string[], home: string) {
	const started = performance.now();
	const result = spawnSync(process.execPath, ['--import', childScript('process-times'), BIN, ...args], {
		env: {...process.env, CONTROLROOM_HOME: home},
		stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
		timeout: 20_000,
	});
	const wallMs = performance.now() - started;
	const [, stdout, stderr, times] = result.output as (Buffer | null)[];
	const {maxRssKiB} = JSON.parse(String(times ?? '{}')) as {maxRssKiB?: number};
	return {
		status: result.status,
		stdout: String(stdout ?? ''),
		stderr: String(stderr ?? ''),
		wallMs,
		rssMb: (maxRssKiB ?? NaN) / 1024,
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
					`hostile contract ${file}: ${verb} exit ${result.status} in ${result.wallMs.toFixed(0)} ms, peak RSS ${result.rssMb.toFixed(0)} MB\n`,
				);
				expect(result.status, `${verb}: ${result.stderr}`).toBe(1);
				expect(result.wallMs).toBeLessThan(2000);
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
