import {spawnSync} from 'node:child_process';
import {mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {EventType, newEvent, type NewEvent} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
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
			stdout: 'needs you 1 · decisions 0 · running 0 · stalled 0 · lost 0 · today $0.00\n',
			stderr: '',
		});
		expect(readFileSync(file, 'utf8')).toMatch(
			/^v=1\nat=\d+\niso=\S+Z\nneeds=1\ndecisions=0\nrunning=0\nstalled=0\nlost=0\ncost=0\ncosttext=\$0\.00\nestimated=0\npartial=0\nuntil=\d+\n$/,
		);
		// The shell's answer: the node command is not run (a summary changed by hand shows as written)
		writeFileSync(file, readFileSync(file, 'utf8').replace('needs=1', 'needs=7'));
		expect(entry(['status'], env).stdout).toBe('needs you 7 · decisions 0 · running 0 · stalled 0 · lost 0 · today $0.00\n');
		const format = ['--format', '#[fg=red]{needs}#[default] {running}▶ {nope} {{lost}} {age}s'];
		expect(entry(['status', ...format], env).stdout).toMatch(/^#\[fg=red\]7#\[default\] 0▶ \{nope\} \{0\} \d+s\n$/);
		// The same line from the shell and from Node, for the same summary
		const parity = ['--format', '{needs} {decisions} {running} {stalled} {lost} {cost}{stale} {x} {{needs}}'];
		const fromNode = runCli(['status', ...parity], {env}).stdout;
		expect(entry(['status', ...parity], env).stdout).toBe(fromNode);
		const json = JSON.parse(entry(['status', '--json'], env).stdout) as Record<string, unknown>;
		expect(json).toMatchObject({
			v: 1,
			needs: 1,
			decisions: 0,
			running: 0,
			stalled: 0,
			lost: 0,
			costToday: 0,
			costTodayIsEstimated: false,
			costTodayIsPartial: false,
		});
		expect(json['ageSeconds']).toEqual(expect.any(Number));
	});

	it('on an ASCII terminal (LANG=C, TERM=dumb) hands the line to Node, which draws it in ASCII', () => {
		const {env} = home();
		expect(entry(['status'], env).stdout).toContain(' · ');
		for (const ascii of [
			{LANG: 'C', LC_ALL: 'C'},
			{LANG: 'en_US.UTF-8', LC_ALL: '', TERM: 'dumb'},
			{LANG: 'de_DE.ISO-8859-1', LC_ALL: '', LC_CTYPE: ''},
		]) {
			const line = entry(['status'], {...env, ...ascii});
			expect(line, JSON.stringify(ascii)).toEqual({
				status: 0,
				stdout: 'needs you 1 | decisions 0 | running 0 | stalled 0 | lost 0 | today $0.00\n',
				stderr: '',
			});
		}
	});

	it('says how old the summary is once it is older than 30 s', () => {
		const {env, file} = home();
		entry(['status'], env);
		const old = Math.floor(Date.now() / 1000) - 600;
		writeFileSync(file, readFileSync(file, 'utf8').replace(/^at=\d+$/m, `at=${old}`));
		expect(entry(['status'], env).stdout).toMatch(/ · today \$0\.00 \(summary 10m old\)\n$/);
		expect(JSON.parse(entry(['status', '--json'], env).stdout)).toMatchObject({ageSeconds: expect.any(Number)});
	});

	it.each([
		['an escape code', 'needs=\u001b]0;owned\u0007'],
		['a word', 'needs=many'],
		['another version', 'v=2'],
		['an escape code in the cost', 'costtext=\u001b[31m$9'],
	])('a summary file with %s is not believed: Node answers from the ledger and writes it again', (_why, line) => {
		const {env, file} = home();
		entry(['status'], env);
		const text = readFileSync(file, 'utf8');
		const [name] = line.split('=');
		writeFileSync(file, text.replace(new RegExp(`^${name}=.*$`, 'm'), line));
		const run = entry(['status'], env);
		expect(run.stdout).toBe('needs you 1 · decisions 0 · running 0 · stalled 0 · lost 0 · today $0.00\n');
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

	it("finds the Node entry through npm's links with builtins, and follows any other link with readlink", () => {
		const dir = scratchDir('cr-status-links-');
		const pkg = fileURLToPath(new URL('../..', import.meta.url));
		// A local install's node_modules/.bin, and a global install's <prefix>/bin, as npm links them.
		mkdirSync(join(dir, 'local', 'node_modules', '.bin'), {recursive: true});
		symlinkSync(pkg, join(dir, 'local', 'node_modules', 'controlroom'));
		symlinkSync('../controlroom/bin/controlroom.sh', join(dir, 'local', 'node_modules', '.bin', 'controlroom'));
		mkdirSync(join(dir, 'global', 'lib', 'node_modules'), {recursive: true});
		mkdirSync(join(dir, 'global', 'bin'));
		symlinkSync(pkg, join(dir, 'global', 'lib', 'node_modules', 'controlroom'));
		symlinkSync('../lib/node_modules/controlroom/bin/controlroom.sh', join(dir, 'global', 'bin', 'controlroom'));
		// A readlink that fails loudly: npm's links must not need it.
		mkdirSync(join(dir, 'tools'));
		writeFileSync(join(dir, 'tools', 'readlink'), '#!/bin/sh\necho readlink was run >&2\nexit 1\n', {mode: 0o755});
		const noReadlink = {...process.env, PATH: `${join(dir, 'tools')}:${process.env['PATH'] ?? ''}`};
		const version = (file: string, env: NodeJS.ProcessEnv) => {
			const run = spawnSync(file, ['--version'], {env, encoding: 'utf8'});
			return {status: run.status, stdout: run.stdout.trim(), stderr: run.stderr};
		};
		const expected = {status: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+/) as unknown, stderr: ''};
		expect(version(join(dir, 'local', 'node_modules', '.bin', 'controlroom'), noReadlink)).toEqual(expected);
		expect(version(join(dir, 'global', 'bin', 'controlroom'), noReadlink)).toEqual(expected);
		// A link npm does not make (absolute, in a folder of its own), and a link to that link: followed one by one.
		symlinkSync(SH_ENTRY, join(dir, 'elsewhere'));
		symlinkSync('elsewhere', join(dir, 'again'));
		expect(version(join(dir, 'again'), process.env)).toEqual(expected);
		expect(version(join(dir, 'again'), noReadlink).stderr).toContain('readlink was run');
	});

	it('the reconciler keeps the summary current', () => {
		const {env, file} = home();
		expect(runCli(['reconcile', '--once', '--agents', 'cr-no-such-agent'], {env}).status).toBe(0);
		expect(readFileSync(file, 'utf8')).toContain('\nneeds=1\n');
	});

	it("prints today's cost from a ledger with known costs: today's spend only, in the person's time zone, ~ for an estimate", () => {
		const dir = scratchDir('cr-status-cost-');
		const now = Date.now();
		const DAY = 86_400_000;
		// The last local midnight in UTC and in UTC+14 (no clock changes in either): 10 or 14 hours apart.
		const midnight = (offset: number) => Math.floor((now + offset) / DAY) * DAY - offset;
		const zones = [
			{tz: 'UTC', from: midnight(0)},
			{tz: 'Etc/GMT-14', from: midnight(14 * 3_600_000)},
		].sort((a, b) => a.from - b.from);
		const [early, late] = zones as [(typeof zones)[number], (typeof zones)[number]];
		// One Opus 5.5 answer of the fake Anthropic server, priced by the table: $0.006286.
		const answers = (n: number) => ({
			input: n * 1384,
			output: n * 42,
			byModel: {
				'claude-opus-5-5': {
					input: n * 1234,
					cacheWrite5m: n * 100,
					cacheWrite1h: 0,
					cacheRead: 50 * n,
					output: n * 42,
					messages: n,
				},
			},
		});
		const at = (taskId: string, when: number) => ({taskId, at: when, source: 'claude'});
		const both = late.from + Math.floor((now - late.from) / 2);
		const events: NewEvent[] = [
			// c-1 started the day before yesterday: two answers yesterday (in both zones), one today only where the day began first.
			newEvent(EventType.registered, {title: 'started yesterday'}, at('c-1', now - 30 * 3_600_000)),
			newEvent(EventType.tokensReported, answers(2), at('c-1', now - 30 * 3_600_000)),
			newEvent(EventType.tokensReported, answers(1), at('c-1', early.from + 60_000)),
			// c-2 today in both zones, with Claude's own telemetry: $1.25 exact; its transcript's tokens are the same answers.
			newEvent(EventType.registered, {title: 'told by telemetry'}, at('c-2', both)),
			newEvent(EventType.tokensReported, answers(40), at('c-2', both)),
			newEvent(EventType.telemetryRequest, {requestId: 'r-1', model: 'claude-opus-5-5', costUsd: 1}, at('c-2', both)),
			newEvent(EventType.telemetryRequest, {requestId: 'r-2', model: 'claude-opus-5-5', costUsd: 0.25}, at('c-2', both)),
		];
		const ledger = openLedger(join(dir, 'ledger.db'));
		try {
			ledger.writer.append(events);
		} finally {
			ledger.close();
		}
		const envOf = (tz: string) => ({...process.env, CONTROLROOM_HOME: dir, TZ: tz});
		const line = (tz: string) => entry(['status', '--format', 'today {cost}'], envOf(tz)).stdout;

		// Where the day began first: c-1's answer of today counts, priced by the table, so the sum is an estimate.
		expect(line(early.tz)).toBe('today ~$1.26\n');
		// Answered by the shell from the summary Node wrote, to the same figure, and in JSON.
		expect(readFileSync(join(dir, 'status'), 'utf8')).toContain('\ncost=1.256286\ncosttext=~$1.26\nestimated=1\npartial=0\n');
		expect(JSON.parse(entry(['status', '--json'], envOf(early.tz)).stdout)).toMatchObject({
			costToday: 1.256286,
			costTodayIsEstimated: true,
			costTodayIsPartial: false,
		});
		// Where it began later, c-1's answer was yesterday: only the telemetry's exact figure is today's.
		expect(runCli(['reconcile', '--once', '--agents', 'cr-no-such-agent'], {env: envOf(late.tz)}).status).toBe(0);
		expect(line(late.tz)).toBe('today $1.25\n');
		expect(JSON.parse(entry(['status', '--json'], envOf(late.tz)).stdout)).toMatchObject({
			costToday: 1.25,
			costTodayIsEstimated: false,
		});
		// Past the end of the summary's day, the shell no longer calls it today's.
		const file = join(dir, 'status');
		writeFileSync(file, readFileSync(file, 'utf8').replace(/^until=\d+$/m, `until=${Math.floor(now / 1000) - 1}`));
		expect(line(late.tz)).toBe('today $—\n');
		expect(JSON.parse(entry(['status', '--json'], envOf(late.tz)).stdout)).toMatchObject({costToday: null});
	});
});
