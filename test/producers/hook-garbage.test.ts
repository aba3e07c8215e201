import {randomBytes} from 'node:crypto';
import {spawnSync} from 'node:child_process';
import {copyFileSync, mkdirSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {withRawDb} from '../helpers/raw-db.ts';
import {fixture, homeWithLedger, runHookBin, spoolFiles, withLedger} from '../helpers/hook.ts';

const LIMIT = 4 * 1024 * 1024;
const SESSION_TASK = sessionTaskId('claude', 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9');

/** Deterministic bytes that are not valid UTF-8 and contain NULs and newlines. */
function binary(size: number): Buffer {
	const bytes = randomBytes(size);
	bytes[0] = 0xff;
	bytes[1] = 0x00;
	return bytes;
}

const GARBAGE: readonly {name: string; input: string | Buffer; reason: RegExp}[] = [
	{name: 'empty stdin', input: '', reason: /^stdin: empty$/},
	{name: 'text that is not JSON', input: 'hello, this is not json\nand a second line', reason: /not valid JSON/},
	{
		name: 'a JSON array',
		input: '[{"session_id":"s","hook_event_name":"Stop"}]',
		reason: /payload: expected a JSON object, got an array/,
	},
	{name: '10 MB of text', input: `{"session_id": "${'x'.repeat(10 * 1024 * 1024)}`, reason: /^stdin: larger than 4194304 bytes$/},
	{name: 'binary bytes', input: binary(64 * 1024), reason: /^line: not valid UTF-8 \(at byte 0\)$/},
	{
		name: 'JSON nested 10,000 deep',
		input: `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
		reason: /^payload: nested deeper than 64 levels$/,
	},
	{
		name: 'a 200 KB session id',
		input: JSON.stringify({session_id: 's'.repeat(200_000), hook_event_name: 'Stop'}),
		reason: /^session_id: 200000 characters, over the 256 allowed$/,
	},
	{name: 'a payload without session_id', input: '{"hook_event_name":"Stop","cwd":"/tmp"}', reason: /^session_id: /},
];

describe('controlroom hook with garbage on stdin', () => {
	it.each(GARBAGE)('$name: exit 0, empty stdout, one reject with the reason, nothing else lost', ({input, reason}) => {
		// Given a ledger that already holds a session
		const {home, ledgerFile} = homeWithLedger();
		runHookBin(home, [], fixture('claude/SessionStart.json'));
		const before = withLedger(ledgerFile, ledger => ledger.reader.eventsOf(SESSION_TASK));
		// When garbage arrives
		const run = runHookBin(home, [], input);
		// Then
		expect(run.status).toBe(0);
		expect(run.stdout.length).toBe(0);
		withLedger(ledgerFile, ledger => {
			const rejects = ledger.reader.rejects(10);
			expect(rejects).toHaveLength(1);
			expect(rejects[0]?.reason).toMatch(reason);
			// The size as it arrived; past the limit the hook stops reading, so only "more than the limit" is known.
			const size = Buffer.byteLength(input);
			if (size > LIMIT) expect(rejects[0]?.rawBytes).toBeGreaterThan(LIMIT);
			else expect(rejects[0]?.rawBytes).toBe(size);
			expect(ledger.reader.eventsOf(SESSION_TASK)).toEqual(before);
		});
		// And the next good payload still lands
		expect(runHookBin(home, [], fixture('claude/Stop.json')).status).toBe(0);
		withLedger(ledgerFile, ledger => expect(ledger.reader.eventsOf(SESSION_TASK).length).toBe(before.length + 1));
	});

	it.each(GARBAGE)('$name with no ledger: spooled, and the fold records exactly one reject', ({input}) => {
		// Given no ledger: the hook can only spool
		const home = scratchDir('cr-hook-');
		const run = runHookBin(home, [], input);
		expect(run.status).toBe(0);
		expect(run.stdout.length).toBe(0);
		expect(spoolFiles(join(home, 'spool'))).toHaveLength(1);
		// When folded
		withLedger(join(home, 'ledger.db'), ledger => {
			const stats = foldSpool(ledger, join(home, 'spool'));
			// Then one reject, no events
			expect(stats.rejected).toBe(1);
			expect(ledger.reader.rejectCount()).toBe(1);
			expect(ledger.reader.eventCount()).toBe(0);
		});
	});
});

describe('controlroom hook when neither the ledger nor the spool takes the event', () => {
	it('exits 0 with empty stdout, says so on stderr, and bumps hook.dropped', () => {
		// Given a ledger whose events table cannot take an append, and a spool path that is a file
		const {home, ledgerFile, spool} = homeWithLedger();
		withRawDb(ledgerFile, db =>
			db.exec("CREATE TRIGGER refuse_all BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk says no'); END"),
		);
		writeFileSync(spool, 'not a folder');
		// When an event arrives
		const run = runHookBin(home, [], fixture('claude/Stop.json'));
		// Then
		expect(run.status).toBe(0);
		expect(run.stdout.length).toBe(0);
		expect(run.stderr).toMatch(/^controlroom hook: dropped one event, the spool could not be written: /);
		withLedger(ledgerFile, ledger => {
			expect(ledger.reader.counter('hook.dropped')).toBe(1);
			expect(ledger.reader.eventCount()).toBe(0);
		});
	});
});

describe('controlroom hook when its bundle cannot load', () => {
	it('still exits 0 with empty stdout, and says why on stderr', () => {
		// Given an install whose hook bundle is missing (as when a native addon fails to load)
		const root = scratchDir('cr-broken-');
		mkdirSync(join(root, 'bin'));
		mkdirSync(join(root, 'dist', 'producers'), {recursive: true});
		copyFileSync(BIN, join(root, 'bin', 'controlroom'));
		copyFileSync(join(dirname(BIN), '..', 'dist', 'producers', 'hook-main.js'), join(root, 'dist', 'producers', 'hook-main.js'));
		writeFileSync(join(root, 'package.json'), '{"type": "module"}');
		// When the hook runs
		const result = spawnSync(process.execPath, [join(root, 'bin', 'controlroom'), 'hook'], {input: fixture('claude/Stop.json')});
		// Then
		expect(result.status).toBe(0);
		expect(result.stdout.length).toBe(0);
		expect(result.stderr.toString()).toMatch(/^controlroom hook: cannot load the hook \(Cannot find module/);
	});
});
