import {readdirSync, readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {EXIT_CODES, HELP_COLUMNS, HELP_GROUPS, renderHelp} from '../../src/cli/help.ts';
import {COMMANDS, overview} from '../../src/cli/main.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';

expect(HELP_COLUMNS).toBe(80);

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {version: string};
const NAMES = Object.keys(COMMANDS);

describe('controlroom --help and --version', () => {
	it('prints the version from package.json for --version, -V and version', () => {
		for (const flag of ['--version', '-V', 'version']) {
			const result = runCli([flag]);
			expect(result).toEqual({status: 0, stdout: `${pkg.version}\n`, stderr: ''});
		}
	});

	it('lists every command, hook included, in --help', () => {
		const result = runCli(['--help']);
		expect(result.status).toBe(0);
		expect(result.stdout).toBe(`${overview()}\n`);
		for (const name of NAMES) expect(result.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
		expect(NAMES).toContain('hook');
	});

	it('groups the commands by what a person is doing, the five most used first, each command once, within 80 columns', () => {
		const text = runCli(['--help']).stdout;
		// Every command is in exactly one group, and every name a group gives is a command
		const grouped = HELP_GROUPS.flatMap(group => group.commands);
		expect([...grouped].sort()).toEqual([...NAMES].sort());
		expect(new Set(grouped).size).toBe(grouped.length);
		// The groups, in this order, the five most used first
		const titles = [...text.matchAll(/^([a-z][a-z ,]+):$/gm)].map(match => match[1]);
		expect(titles).toEqual([
			'most used',
			'watch',
			'audit',
			'run agents',
			'answer',
			'hand off',
			'fleet',
			'set up',
			'run by the agents, not by hand',
			'examples',
		]);
		expect(HELP_GROUPS[0]?.commands).toHaveLength(5);
		expect(
			text
				.split('most used:\n')[1]
				?.split('\n')
				.slice(0, 5)
				.map(line => line.trim().split(' ')[0]),
		).toEqual(HELP_GROUPS[0]?.commands);
		for (const line of text.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
		// doctor and explain are named where a newcomer looks first
		expect(text).toContain('Something wrong? controlroom doctor');
		expect(text).toContain('controlroom explain TASK');
	});

	// Compiles and loads every command's module in the test process: 11-15 s at load 20, and past
	// vitest's 30 s default beside a type-check; nothing here waits for a moment, so the bound is wide.
	it('gives every command a help with its options, exit codes and at least one example', {timeout: 120_000}, async () => {
		// One process prints them all (`help --markdown`, what docs/cli.md is made of): the same
		// modules and the same renderer that `COMMAND --help` uses, below, for a few commands.
		const home = scratchDir('cr-home-');
		const all = runCli(['help', '--markdown'], {env: {CONTROLROOM_HOME: home}});
		expect(all.status).toBe(0);
		for (const name of NAMES) {
			const {help} = await COMMANDS[name]!.load();
			const text = renderHelp(help);
			expect(all.stdout, name).toContain(text);
			expect(text, name).toMatch(/\nexit codes:\n {2}\S/);
			expect(help.examples.length, name).toBeGreaterThan(0);
			for (const [code] of help.exits) expect(EXIT_CODES.map(([known]) => known).concat('N')).toContain(code);
			for (const line of text.split('\n')) expect([...line].length, `${name}: ${line}`).toBeLessThanOrEqual(HELP_COLUMNS);
			// It ends with its examples: a command line that runs controlroom, then what it does
			const [command = ''] = (text.split('\nexamples:\n')[1] ?? '').split(/\n {6}(?! )/);
			expect(command, name).toMatch(/^ {2}\S/);
			expect(command, name).toContain('controlroom');
			expect(text.split('\nexamples:\n'), name).toHaveLength(2);
			// What TASK may be is said once, the same for every command that takes one
			if (help.synopsis.some(line => /\bTASK\b/.test(line)))
				expect(text.replace(/\s+/g, ' '), name).toContain("a task's title or the start of one");
		}
		expect(readdirSync(home)).toEqual([]);
	});

	it.each([
		['run', ['--help', '--', 'echo', 'hi']],
		['snapshot', ['-h']],
		['contract', ['check', '--help']],
		['timeline', ['w-1', '--help']],
	])('prints `%s --help` and exits 0 without doing anything', async (name, args) => {
		const home = scratchDir('cr-home-');
		const {help} = await COMMANDS[name]!.load();
		const result = runCli([name, ...args], {env: {CONTROLROOM_HOME: home}});
		expect(result).toEqual({status: 0, stdout: `${renderHelp(help)}\n`, stderr: ''});
		expect(readdirSync(home)).toEqual([]);
	});

	it('passes --help after -- to the child, as its own argument', () => {
		const home = scratchDir('cr-home-');
		const result = runCli(['run', '--', 'sh', '-c', 'echo "$1"', 'sh', '--help'], {env: {CONTROLROOM_HOME: home}});
		expect(result.status).toBe(0);
		expect(result.stdout).toBe('--help\n');
	});

	it('answers `hook --help` with help and records nothing (the hook itself is not run)', () => {
		const home = scratchDir('cr-home-');
		for (const args of [
			['hook', '--help'],
			['hook', '-h'],
			['help', 'hook'],
		]) {
			const result = runCli(args, {env: {CONTROLROOM_HOME: home}, input: ''});
			expect(result.status).toBe(0);
			expect(result.stdout).toMatch(/^usage: controlroom hook /);
		}
		expect(readdirSync(home)).toEqual([]);
	});

	it('keeps docs/cli.md in step with every command help and the exit code table', async () => {
		const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
		expect(doc).toContain(overview());
		for (const name of NAMES) {
			const {help} = await COMMANDS[name]!.load();
			expect(doc, `docs/cli.md is out of date for ${name}: run npm run docs:cli`).toContain(renderHelp(help));
		}
		for (const [code] of EXIT_CODES) expect(doc).toMatch(new RegExp(`^\\| ${code.replace('+', '\\+')} +\\|`, 'm'));
	});

	it('says an unknown command in one line, exit 64', () => {
		const result = runCli(['snapshto']);
		expect(result.status).toBe(64);
		expect(result.stderr).toBe(
			"controlroom: unknown command 'snapshto' (did you mean snapshot?) (controlroom --help lists the commands)\n",
		);
	});
});
