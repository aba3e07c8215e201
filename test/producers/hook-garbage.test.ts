import {randomBytes} from 'node:crypto';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {scratchDir} from '../helpers/cli.ts';
import {fixture, homeWithLedger, runHookBin, spoolFiles, withLedger} from '../helpers/hook.ts';

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
	{name: 'a JSON array', input: '[{"session_id":"s","hook_event_name":"Stop"}]', reason: /payload: expected a JSON object, got an array/},
	{name: '10 MB of text', input: `{"session_id": "${'x'.repeat(10 * 1024 * 1024)}`, reason: /not valid JSON/},
	{name: 'binary bytes', input: binary(64 * 1024), reason: /not valid JSON/},
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
			expect(rejects[0]?.rawBytes).toBe(Buffer.byteLength(typeof input === 'string' ? input : input.toString('utf8')));
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
