import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {SETTING_KEYS} from '../../src/core/settings.ts';
import {BIN, runCli, scratchDir, type CliResult} from '../helpers/cli.ts';
import {fixture, homeWithLedger, runHookBin, withLedger} from '../helpers/hook.ts';
import {expectOneLine} from '../helpers/one-line.ts';

/** A config file with `content` in a scratch folder, and the environment that points at it. */
function configFile(content: string | Buffer): {path: string; dir: string; env: NodeJS.ProcessEnv} {
	const dir = scratchDir('cr-config-');
	const path = join(dir, 'config.json');
	writeFileSync(path, content);
	return {path, dir, env: {CONTROLROOM_CONFIG: path}};
}

function fifo(path: string): string {
	expect(spawnSync('sh', ['-c', 'mkfifo "$1"', 'sh', path]).status).toBe(0);
	return path;
}

function link(target: string, path: string): string {
	symlinkSync(target, path);
	return path;
}

function write(path: string, content: string | Buffer): string {
	writeFileSync(path, content);
	return path;
}

/** Runs `controlroom ARGS` with a deadline: a config read that blocks shows as a killed process, not a stuck suite. */
function runBounded(args: readonly string[], env: NodeJS.ProcessEnv): CliResult {
	const result = spawnSync(process.execPath, [BIN, ...args], {
		encoding: 'utf8',
		env: {...process.env, CONTROLROOM_HOME: scratchDir('cr-home-'), ...env},
		timeout: 15_000,
		killSignal: 'SIGKILL',
	});
	return {status: result.status, stdout: result.stdout, stderr: result.stderr};
}

describe('controlroom config', () => {
	it('with no file there: names the path, and every setting is its built-in default', () => {
		const dir = scratchDir('cr-config-');
		const path = join(dir, 'config.json');
		const result = runCli(['config'], {env: {CONTROLROOM_CONFIG: path}});
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toContain(`config file: ${path} (none there: nothing comes from a file)`);
		for (const key of SETTING_KEYS) expect(result.stdout).toMatch(new RegExp(`^${key} +\\S+ +default +\\S`, 'm'));
		expect(result.stdout).toMatch(
			/^stallSeconds +600 +default +board --stall, snapshot --stall, explain --stall, timeline --stall$/m,
		);
		expect(result.stdout).toMatch(/^endedWindow +"24h" +default +board --since, snapshot --since$/m);
		// Reading settings creates nothing: neither the file nor its folder.
		expect(readdirSync(dir)).toEqual([]);
	});

	it('says where each value came from: a variable over the file, the file over the default', () => {
		const {path, env} = configFile(JSON.stringify({stallSeconds: 900, slots: 4, endedWindow: '7d', agentNames: ['aider']}));
		const result = runCli(['config'], {env: {...env, CONTROLROOM_SLOTS: '3'}});
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toContain(`config file: ${path} (read)`);
		expect(result.stdout).toMatch(
			/^stallSeconds +900 +file +board --stall, snapshot --stall, explain --stall, timeline --stall$/m,
		);
		expect(result.stdout).toMatch(/^endedWindow +"7d" +file /m);
		expect(result.stdout).toMatch(/^agentNames +\["aider"\] +file /m);
		expect(result.stdout).toMatch(/^slots +3 +CONTROLROOM_SLOTS +run --slots$/m);
		expect(result.stdout).toMatch(/^budgetTokens +40000000 +default /m);
	});

	it('prints the same as JSON, each setting with its source, variable and users', () => {
		const {path, env} = configFile('{"heartbeatSeconds": 2.5}');
		const result = runCli(['config', 'show', '--json'], {env: {...env, CONTROLROOM_AGENT_NAMES: 'goose'}});
		expect(result.status, result.stderr).toBe(0);
		const shown = JSON.parse(result.stdout) as {
			version: number;
			path: string;
			exists: boolean;
			settings: {key: string; value: unknown; source: string; origin: string | null; env: string | null}[];
		};
		expect({version: shown.version, path: shown.path, exists: shown.exists}).toEqual({version: 1, path, exists: true});
		expect(shown.settings.map(setting => setting.key)).toEqual(SETTING_KEYS);
		const byKey = new Map(shown.settings.map(setting => [setting.key, setting]));
		expect(byKey.get('heartbeatSeconds')).toMatchObject({
			value: 2.5,
			source: 'file',
			origin: path,
			env: 'CONTROLROOM_HEARTBEAT_SECONDS',
		});
		expect(byKey.get('agentNames')).toMatchObject({value: ['goose'], source: 'environment', origin: 'CONTROLROOM_AGENT_NAMES'});
		expect(byKey.get('endedWindow')).toMatchObject({value: '24h', source: 'default', origin: null, env: null});
	});

	it('finds the file: CONTROLROOM_CONFIG, else $XDG_CONFIG_HOME (if absolute), else ~/.config', () => {
		const dir = scratchDir('cr-config-');
		const path = (env: NodeJS.ProcessEnv, cwd?: string) => {
			const result = runCli(['config', 'path'], {env, ...(cwd === undefined ? {} : {cwd})});
			expect(result.status, result.stderr).toBe(0);
			return result.stdout;
		};
		expect(path({CONTROLROOM_CONFIG: join(dir, 'mine.json')})).toBe(`${join(dir, 'mine.json')}\n`);
		expect(path({CONTROLROOM_CONFIG: 'rel/mine.json'}, dir)).toBe(`${join(dir, 'rel', 'mine.json')}\n`);
		expect(path({CONTROLROOM_CONFIG: '', XDG_CONFIG_HOME: dir})).toBe(`${join(dir, 'controlroom', 'config.json')}\n`);
		expect(path({CONTROLROOM_CONFIG: '', XDG_CONFIG_HOME: 'relative', HOME: dir})).toBe(
			`${join(dir, '.config', 'controlroom', 'config.json')}\n`,
		);
		expect(path({CONTROLROOM_CONFIG: '', XDG_CONFIG_HOME: '', HOME: dir})).toBe(
			`${join(dir, '.config', 'controlroom', 'config.json')}\n`,
		);
	});

	it('reads the file under $XDG_CONFIG_HOME when CONTROLROOM_CONFIG is not set', () => {
		const dir = scratchDir('cr-config-');
		mkdirSync(join(dir, 'controlroom'));
		writeFileSync(join(dir, 'controlroom', 'config.json'), '{"budgetTokens": 1000}');
		const result = runCli(['config'], {env: {CONTROLROOM_CONFIG: '', XDG_CONFIG_HOME: dir}});
		expect(result.stdout).toMatch(/^budgetTokens +1000 +file /m);
	});

	it('refuses a bad command line with 64', () => {
		expectOneLine(runCli(['config', 'edit']), 64, /config: expected show or path, got 'edit'/);
		expectOneLine(runCli(['config', 'show', 'stallSeconds', 'extra']), 64, /config: unexpected argument 'extra'/);
		expectOneLine(runCli(['config', 'path', 'stallSeconds']), 64, /config: unexpected argument 'stallSeconds'/);
		// A key no setting has: one line with the nearest
		expectOneLine(
			runCli(['config', 'show', 'stalSeconds']),
			64,
			/config show: no setting 'stalSeconds' \(did you mean stallSeconds\?\); controlroom config lists them/,
		);
		const one = runCli(['config', 'show', 'stallSeconds', '--json']);
		expect((JSON.parse(one.stdout) as {settings: {key: string}[]}).settings.map(setting => setting.key)).toEqual([
			'stallSeconds',
		]);
		expectOneLine(runCli(['config', '--ledger', '/tmp/x.db']), 64, /config: takes no --ledger/);
		expectOneLine(runCli(['config', 'path', '--json']), 64, /config: --json goes with show/);
	});
});

describe('a config file that is wrong: one line naming the file and the field, exit 78', () => {
	it('names the field and what is wrong with its value', () => {
		const {path, env} = configFile('{"stallSeconds": "600"}');
		expectOneLine(
			runCli(['config'], {env}),
			78,
			new RegExp(`^controlroom: config ${path}: stallSeconds: expected a positive whole number, got "600"\\n$`),
		);
	});

	it('names an unknown key with the setting it most likely meant', () => {
		const {path, env} = configFile('{\n  "stalSeconds": 900\n}\n');
		expectOneLine(
			runCli(['config'], {env}),
			78,
			new RegExp(`config ${path}: stalSeconds: not a setting \\(did you mean stallSeconds\\?\\); controlroom config lists them`),
		);
	});

	it('keeps escape codes in a key out of the terminal', () => {
		const {env} = configFile(JSON.stringify({'\u001b]0;owned\u0007\u001b[2J': 1}));
		const result = runCli(['config'], {env});
		expectOneLine(result, 78, /not a setting/);
		expect(result.stderr).not.toContain('\u001b');
		expect(result.stderr).not.toContain('\u0007');
	});

	/** Each makes something hostile where the config file would be, and returns the path to point at. */
	const hostile: readonly [what: string, make: (dir: string) => string, message: RegExp][] = [
		['a FIFO', dir => fifo(join(dir, 'config.json')), /: a FIFO, not a file$/],
		['a folder', dir => (mkdirSync(join(dir, 'config.json')), join(dir, 'config.json')), /: a folder, not a file$/],
		['a link to /dev/zero', dir => link('/dev/zero', join(dir, 'config.json')), /: a device, not a file$/],
		['a link to a FIFO', dir => link(fifo(join(dir, 'fifo')), join(dir, 'config.json')), /: a FIFO, not a file$/],
		[
			'a link to nothing',
			dir => link(join(dir, 'gone.json'), join(dir, 'config.json')),
			/: a link to \S+gone\.json, which does not exist$/,
		],
		[
			'a loop of links',
			dir => (link(join(dir, 'b'), join(dir, 'a')), link(join(dir, 'a'), join(dir, 'b'))),
			/: a loop of links$/,
		],
		[
			'a huge file',
			dir => write(join(dir, 'config.json'), `{"stallSeconds": 900${' '.repeat(10 * 1024 * 1024)}}`),
			/: 10485781 bytes; a config file is at most 65536 bytes$/,
		],
		[
			'bytes that are not UTF-8',
			dir => write(join(dir, 'config.json'), Buffer.from([0x7b, 0xff, 0xfe, 0x7d])),
			/: not UTF-8 text$/,
		],
		['NUL bytes', dir => write(join(dir, 'config.json'), '{"stallSeconds":\u0000900}'), /: not valid JSON: /],
		['text that is not JSON', dir => write(join(dir, 'config.json'), 'stallSeconds: 900\n'), /: not valid JSON: /],
		['a list', dir => write(join(dir, 'config.json'), '[{"stallSeconds": 900}]'), /: expected a JSON object of settings/],
		[
			'a path through a file',
			dir => join(write(join(dir, 'plain'), ''), 'config.json'),
			/: part of the path is a file, not a folder$/,
		],
	];

	it.each(hostile)('refuses %s at once, without blocking', (_what, make, message) => {
		const path = make(scratchDir('cr-config-'));
		const result = runBounded(['config'], {CONTROLROOM_CONFIG: path});
		expectOneLine(result, 78, new RegExp(`^controlroom: config ${path.replace(/[.]/g, '\\.')}${message.source}`, 'm'));
	});

	it('follows a link to a regular file (a dotfiles checkout)', () => {
		const {path, dir} = configFile('{"stallSeconds": 120}');
		const link = join(dir, 'link.json');
		symlinkSync(path, link);
		const result = runCli(['config'], {env: {CONTROLROOM_CONFIG: link}});
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toMatch(/^stallSeconds +120 +file /m);
	});

	it('stops a command that owns a setting before it does anything', () => {
		const {env} = configFile('{"slots": 0}');
		const home = scratchDir('cr-home-');
		const marker = join(home, 'ran');
		const run = runCli(['run', '--', 'touch', marker], {env: {...env, CONTROLROOM_HOME: home}});
		expectOneLine(run, 78, /config \S+: slots: expected a positive whole number, got 0/);
		expect(existsSync(marker)).toBe(false);
		expect(readdirSync(home)).toEqual([]);
		expectOneLine(runCli(['reconcile', '--once'], {env}), 78, /slots: expected a positive whole number/);
		expectOneLine(runCli(['snapshot'], {env}), 78, /slots: expected a positive whole number/);
	});

	it('leaves commands that own no setting, and the hook, as they were', () => {
		const {env} = configFile('{"slots": 0}');
		const {home, ledgerFile} = homeWithLedger();
		expect(runCli(['work', '--ledger', ledgerFile], {env}).status).toBe(0);
		expect(runCli(['--version'], {env}).status).toBe(0);
		const hook = runHookBin(home, [], fixture('claude/SessionStart.json'), env);
		expect(hook.status).toBe(0);
		expect(withLedger(ledgerFile, ledger => ledger.reader.tasksForView(null).length)).toBe(1);
	});

	it('refuses a CONTROLROOM_* variable with a bad value the same way, naming it', () => {
		const home = scratchDir('cr-home-');
		const result = runCli(['run', '--', 'true'], {env: {CONTROLROOM_HOME: home, CONTROLROOM_SLOTS: 'many'}});
		expectOneLine(result, 78, /^controlroom: CONTROLROOM_SLOTS: expected a positive whole number, got 'many'\n$/);
		expect(readdirSync(home)).toEqual([]);
		// The flag wins, so the variable is not read.
		expect(runCli(['run', '--slots', '1', '--', 'true'], {env: {CONTROLROOM_HOME: home, CONTROLROOM_SLOTS: 'many'}}).status).toBe(
			0,
		);
	});
});
