import {spawnSync} from 'node:child_process';
import {chmodSync, existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli, scratchDir, type CliResult} from '../helpers/cli.ts';
import {event} from '../helpers/ledger.ts';
import {expectOneLine} from '../helpers/one-line.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

/** A ledger with two wrapper tasks whose ids share the prefix `w-ab`; the second failed a minute ago. */
function ledgerWithTwoTasks(): string {
	const file = join(scratchDir(), 'ledger.db');
	const ledger = openLedger(file);
	const now = Date.now();
	ledger.writer.append([
		event('w-ab01', EventType.registered, {title: 'first', source: 'wrapper'}, now - 120_000),
		event('w-ab02', EventType.registered, {title: 'second', source: 'wrapper'}, now - 120_000),
		event('w-ab02', EventType.exited, {exitCode: 3}, now - 60_000),
	]);
	ledger.close();
	return file;
}

function bytes(file: string): string {
	return readFileSync(file).toString('base64');
}

describe('the mistakes a new user makes, each one line and an exit code', () => {
	it('records a run whose --log cannot be opened as failed, with the reason, before anything is spawned', () => {
		// Given a log path in a folder that does not exist, and a command that would leave a mark
		const dir = scratchDir();
		const ledger = freshLedgerFile(dir);
		const log = join(dir, 'no-such-folder', 'out.log');
		const marker = join(dir, 'ran');
		// When the run starts
		const result = runCli(['run', '--ledger', ledger, '--log', log, '--', 'touch', marker]);
		// Then one line names the log, exit 127, nothing ran, and the task is failed with the reason
		expectOneLine(result, 127, new RegExp(`cannot open the log ${log}: its folder does not exist`));
		expect(existsSync(marker)).toBe(false);
		const snapshot = JSON.parse(runCli(['snapshot', '--json', '--ledger', ledger]).stdout) as {
			tasks: {status: string; exitCode: number | null; error: string | null}[];
		};
		expect(snapshot.tasks).toEqual([
			expect.objectContaining({status: 'failed', exitCode: 127, error: `cannot open the log ${log}: its folder does not exist`}),
		]);
	});

	it('refuses a --ledger whose folder does not exist, creating nothing', () => {
		const dir = scratchDir();
		const ledger = join(dir, 'typo', 'x.db');
		const result = runCli(['run', '--ledger', ledger, '--', 'true']);
		expectOneLine(result, 64, new RegExp(`--ledger: no folder ${join(dir, 'typo')} to hold x\\.db`));
		expect(readdirSync(dir)).toEqual([]);
	});

	it('refuses a --ledger that is a folder, naming it', () => {
		const dir = scratchDir();
		for (const command of [['snapshot'], ['run', '--', 'true'], ['ingest', '-']]) {
			const result = runCli([command[0]!, '--ledger', dir, ...command.slice(1)], {input: ''});
			expectOneLine(result, 64, new RegExp(`--ledger: ${dir} is a folder; give the ledger file's path`));
		}
		expect(readdirSync(dir)).toEqual([]);
	});

	it('refuses an empty --ledger= instead of using the default, creating nothing', () => {
		const home = scratchDir('cr-home-');
		for (const args of [
			['snapshot', '--ledger='],
			['run', '--ledger', '', '--', 'true'],
		]) {
			const result = runCli(args, {env: {CONTROLROOM_HOME: home}});
			expectOneLine(result, 64, /--ledger: expected the path of a ledger file, got an empty value/);
		}
		expect(readdirSync(home)).toEqual([]);
	});

	it('says there is no ledger at a --ledger path a reading command was given, creating none', () => {
		const dir = scratchDir();
		for (const command of ['snapshot', 'timeline', 'work', 'rejects']) {
			const args = command === 'timeline' ? [command, 'w-1'] : [command];
			expectOneLine(runCli([...args, '--ledger', join(dir, 'x.db')]), 64, /--ledger: no ledger at /);
		}
		expect(readdirSync(dir)).toEqual([]);
	});

	it('creates the default home, folders and all, for a first snapshot', () => {
		const home = join(scratchDir(), 'not', 'yet', 'there');
		const result = runCli(['snapshot', '--json'], {env: {CONTROLROOM_HOME: home}});
		expect(result.status).toBe(0);
		expect(JSON.parse(result.stdout)).toMatchObject({version: 1, tasks: []});
		expect(existsSync(join(home, 'ledger.db'))).toBe(true);
	});

	it('names the matches of an ambiguous TASK and refuses an empty one', () => {
		const ledger = ledgerWithTwoTasks();
		expectOneLine(
			runCli(['timeline', 'w-ab', '--ledger', ledger]),
			64,
			/timeline: task 'w-ab' is ambiguous: it matches w-ab01 "first", w-ab02 "second"; give more of the id or the title/,
		);
		expectOneLine(runCli(['timeline', '', '--ledger', ledger]), 64, /timeline: TASK is empty/);
		expectOneLine(runCli(['stop', '', '--ledger', ledger]), 64, /stop: TASK is empty/);
		expect(runCli(['timeline', 'w-ab01', '--ledger', ledger]).stdout).toContain('first');
	});

	it('checks a negative number given to a flag like any bad value, and registers nothing', () => {
		const dir = scratchDir();
		const ledger = join(dir, 'ledger.db');
		expectOneLine(
			runCli(['run', '--ledger', ledger, '--budget', '-5', '--', 'true']),
			64,
			/--budget: expected a positive whole number, got '-5'/,
		);
		expectOneLine(runCli(['run', '--ledger', ledger, '--title', '--', 'true']), 64, /run: --title needs a value/);
		expect(existsSync(ledger)).toBe(false);
	});

	it("says an unknown option in our words, without node's parser hints", () => {
		for (const [args, message] of [
			[['timeline', 'w-1', '--bogus'], 'controlroom: timeline: unknown option --bogus (see controlroom timeline --help)\n'],
			[['snapshot', 'extra'], "controlroom: snapshot: unexpected argument 'extra' (see controlroom snapshot --help)\n"],
			[['snapshot', '--json=yes'], 'controlroom: snapshot: --json takes no value\n'],
		] as const) {
			const result = runCli(args);
			expect(result.status).toBe(64);
			expect(result.stderr).toBe(message);
		}
	});

	it('says which --fail-on lane matched and which tasks are in it', () => {
		const ledger = ledgerWithTwoTasks();
		const result = runCli(['snapshot', '--ledger', ledger, '--fail-on', 'lost', '--fail-on', 'failed']);
		expect(result.status).toBe(1);
		expect(result.stderr).toBe('controlroom: --fail-on failed: 1 task (w-ab02)\n');
		expect(runCli(['snapshot', '--ledger', ledger, '--fail-on', 'lost']).status).toBe(0);
	});

	it('fails an ingest where nothing landed, listing the first rejects by line, and `rejects` lists them all', () => {
		// Given a file of garbage: not JSON, an array, a payload without a session, and seven more
		const dir = scratchDir();
		const ledger = freshLedgerFile(dir);
		const file = join(dir, 'garbage.jsonl');
		const lines = [
			'not json',
			'[1, 2]',
			'',
			JSON.stringify({hook_event_name: 'Stop'}),
			...Array.from({length: 7}, (_, index) => `{bad ${index}`),
		];
		writeFileSync(file, `${lines.join('\n')}\n`);
		// When it is ingested
		const result = runCli(['ingest', file, '--ledger', ledger]);
		// Then it exits 1 with one line on stderr, and stdout names the first five rejects by line number and reason
		expectOneLine(result, 1, new RegExp(`ingest: nothing landed: all 10 lines of ${file} were rejected`));
		expect(result.stdout.split('\n').slice(0, 7)).toEqual([
			'ingested 10 lines: 0 events added, 10 rejected',
			'  line 1: line: not valid JSON',
			'  line 2: payload: expected a JSON object, got an array',
			expect.stringMatching(/^ {2}line 4: session_id: /),
			'  line 5: line: not valid JSON',
			'  line 6: line: not valid JSON',
			'  ... and 5 more (controlroom rejects lists them all)',
		]);
		// And `rejects` lists every one, newest first, with its origin and line, as text and JSON
		const listed = runCli(['rejects', '--ledger', ledger]);
		expect(listed.status).toBe(0);
		expect(listed.stdout.split('\n')[0]).toBe(`10 rejects in ${ledger}`);
		expect(listed.stdout).toContain(`ingest:${file} line 4\n    session_id: `);
		const json = JSON.parse(runCli(['rejects', '--json', '--limit', '3', '--ledger', ledger]).stdout) as {
			total: number;
			rejects: {line: number; origin: string; reason: string}[];
		};
		expect(json.total).toBe(10);
		// Line numbers count every line of the file, the empty third one too.
		expect(json.rejects.map(reject => reject.line)).toEqual([11, 10, 9]);
		// A file with one good line among the bad exits 0 and still lists the bad ones
		const mixed = join(dir, 'mixed.jsonl');
		writeFileSync(mixed, `not json\n${JSON.stringify({hook_event_name: 'SessionStart', session_id: 's-1', cwd: '/tmp'})}\n`);
		const partly = runCli(['ingest', mixed, '--ledger', ledger]);
		expect(partly.status).toBe(0);
		expect(partly.stdout).toMatch(/^ingested 2 lines: [1-9]\d* events added, 1 rejected\n {2}line 1: line: not valid JSON\n$/);
	});
});

/**
 * Runs the real binary as a user who cannot write the ledger. Root writes anything, so under root
 * (this machine's tests) the child runs as nobody; elsewhere permissions already hold.
 */
function runAsReader(args: readonly string[], home: string): CliResult {
	const isRoot = process.getuid?.() === 0;
	const result = spawnSync(process.execPath, [BIN, ...args], {
		encoding: 'utf8',
		// The reader's own home too: root's may be closed to it (mode 700), and its config then unreadable.
		env: {...process.env, CONTROLROOM_HOME: home, HOME: home, XDG_CONFIG_HOME: join(home, '.config')},
		...(isRoot ? {uid: 65534, gid: 65534} : {}),
	});
	return {status: result.status, stdout: result.stdout, stderr: result.stderr};
}

describe('a ledger the user cannot write', () => {
	function readOnlyLedger(mode: 'folder' | 'file'): {dir: string; ledger: string; home: string} {
		const dir = scratchDir();
		const ledger = join(dir, 'ledger.db');
		const db = openLedger(ledger);
		db.writer.append([
			event('w-ro1', EventType.registered, {title: 'kept for reading', source: 'wrapper'}),
			event('w-ro1', EventType.exited, {exitCode: 0}, 2_000),
		]);
		db.close();
		chmodSync(ledger, 0o444);
		// The folder is readable by everyone; `folder` also makes it unwritable (no -shm can be made there).
		chmodSync(dir, mode === 'folder' ? 0o555 : 0o777);
		const home = scratchDir('cr-home-');
		chmodSync(home, 0o555);
		return {dir, ledger, home};
	}

	it.each(['folder', 'file'] as const)(
		'is read by snapshot, timeline, work and rejects when its %s is read-only, and left as it was',
		mode => {
			const {dir, ledger, home} = readOnlyLedger(mode);
			const before = bytes(ledger);
			// What the owner made (the ledger, the lock file its creation took): a reader adds nothing to it.
			const entries = readdirSync(dir);
			const snapshot = runAsReader(['snapshot', '--json', '--all', '--ledger', ledger], home);
			expect(snapshot.stderr).toBe('');
			expect(snapshot.status).toBe(0);
			expect((JSON.parse(snapshot.stdout) as {tasks: {id: string; status: string}[]}).tasks).toEqual([
				expect.objectContaining({id: 'w-ro1', status: 'done'}),
			]);
			const timeline = runAsReader(['timeline', 'w-ro1', '--ledger', ledger], home);
			expect(timeline.status).toBe(0);
			expect(timeline.stdout).toContain('kept for reading');
			expect(runAsReader(['work', '--ledger', ledger], home).status).toBe(0);
			expect(runAsReader(['rejects', '--ledger', ledger], home).stdout).toBe(`no rejects in ${ledger}\n`);
			expect(bytes(ledger)).toBe(before);
			expect(readdirSync(dir)).toEqual(entries);
		},
	);

	it("is read in place while its owner's writer has it open, seeing what was committed last", () => {
		// Given the owner's writer holding the ledger open (its -shm and -wal beside it) in a folder others cannot write
		const {dir, ledger, home} = readOnlyLedger('folder');
		chmodSync(dir, 0o755);
		chmodSync(ledger, 0o644);
		const owner = openLedger(ledger);
		try {
			owner.writer.append([event('w-ro2', EventType.registered, {title: 'still in the wal', source: 'wrapper'}, Date.now())]);
			chmodSync(dir, 0o555);
			// When another user reads it
			const snapshot = runAsReader(['snapshot', '--json', '--all', '--ledger', ledger], home);
			// Then the reader sees the owner's latest commit, and the owner can still write
			expect(snapshot.stderr).toBe('');
			expect((JSON.parse(snapshot.stdout) as {tasks: {id: string}[]}).tasks.map(task => task.id).sort()).toEqual([
				'w-ro1',
				'w-ro2',
			]);
			owner.writer.append([event('w-ro2', EventType.exited, {exitCode: 0}, Date.now())]);
			expect(owner.reader.task('w-ro2')?.status).toBe('done');
		} finally {
			owner.close();
			chmodSync(dir, 0o755);
		}
	});

	it('is refused by a writing command with one line naming it, and nothing runs', () => {
		const {dir, ledger, home} = readOnlyLedger('folder');
		const entries = readdirSync(dir);
		const marker = join(scratchDir(), 'ran');
		const result = runAsReader(['run', '--ledger', ledger, '--', 'touch', marker], home);
		expectOneLine(result, 1, new RegExp(`ledger ${ledger} is read-only .*snapshot, timeline, work, rejects can still read it`));
		expect(existsSync(marker)).toBe(false);
		expect(readdirSync(dir)).toEqual(entries);
	});
});
