import {createHash} from 'node:crypto';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {parseLine} from '../../src/ledger/ingest-map.ts';
import {ingestLines} from '../../src/ledger/ingest.ts';
import {SCHEMA_VERSION} from '../../src/ledger/migrations.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {withLedger} from '../helpers/hook.ts';
import {claudePayload, claudeSessionLines} from '../helpers/payloads.ts';
import {withRawDb} from '../helpers/raw-db.ts';

const envelope = (at: string, payload: Record<string, unknown>) => JSON.stringify({at, source: 'claude', payload});

/** Envelope lines of one session, a minute apart from `start`. */
function sessionEnvelopes(sessionId: string, start: number): string[] {
	return claudeSessionLines(sessionId, 3).map((line, index) =>
		envelope(new Date(start + index * 60_000).toISOString(), JSON.parse(line) as Record<string, unknown>),
	);
}

describe('ingest keys', () => {
	it('begin with the time the line carries, so a batch lands in index order', () => {
		const dir = scratchDir();
		const ledgerFile = join(dir, 'ledger.db');
		const lines = sessionEnvelopes('33333333-aaaa-4bbb-8ccc-000000000001', Date.parse('2026-01-02T03:04:05.000Z'));
		withLedger(ledgerFile, ledger => ingestLines(ledger, lines, {origin: 'test', now: Date.now()}));
		const keys = withRawDb(ledgerFile, db => db.prepare('SELECT dedup_key FROM events ORDER BY seq').pluck().all() as string[]);
		expect(keys.length).toBeGreaterThan(lines.length);
		// The events of each line, in the order they were appended, have keys in ascending order
		expect([...keys].sort()).toEqual(keys);
		expect(keys[0]).toMatch(/^@[0-9a-f]{12}\.[\w-]{16}#1:0$/);
		expect(Number.parseInt(keys[0]?.slice(1, 13) ?? '', 16)).toBe(Date.parse('2026-01-02T03:04:05.000Z'));
	});

	it('keep two identical lines two events, and a re-read of the same or a longer file adds only the new lines', () => {
		const dir = scratchDir();
		const ledgerFile = join(dir, 'ledger.db');
		const stop = JSON.stringify(claudePayload('Stop', '44444444-aaaa-4bbb-8ccc-000000000001'));
		const first = [stop, stop, JSON.stringify(claudePayload('UserPromptSubmit', '44444444-aaaa-4bbb-8ccc-000000000001'))];
		withLedger(ledgerFile, ledger => {
			expect(ingestLines(ledger, first, {origin: 'a', now: 1_000}).appended).toBe(3);
			expect(ingestLines(ledger, first, {origin: 'a', now: 2_000}).appended).toBe(0);
			expect(ingestLines(ledger, [...first, stop], {origin: 'a', now: 3_000}).appended).toBe(1);
		});
	});

	it('in a ledger written before version 3, old keys are looked up too: re-ingesting an old file adds nothing, new lines land', () => {
		// Given a ledger whose events were ingested with the keys of schema version 2: sha1(line)#n:i
		const dir = scratchDir();
		const ledgerFile = join(dir, 'ledger.db');
		const lines = [
			...sessionEnvelopes('55555555-aaaa-4bbb-8ccc-000000000001', Date.parse('2026-02-01T00:00:00.000Z')),
			JSON.stringify(claudePayload('Stop', '55555555-aaaa-4bbb-8ccc-000000000002')),
			JSON.stringify(claudePayload('Stop', '55555555-aaaa-4bbb-8ccc-000000000002')),
			'not json',
		];
		const file = join(dir, 'history.jsonl');
		writeFileSync(file, `${lines.join('\n')}\n`);
		openLedger(ledgerFile).close();
		const origin = `ingest:${file}`;
		withRawDb(ledgerFile, db => {
			// A version 2 ledger: no ledger_meta, and events without a link in a chain.
			db.exec('DROP TABLE ledger_meta; DROP TRIGGER events_need_a_link');
			db.pragma('user_version = 2');
			const insert = db.prepare('INSERT INTO events (task_id, type, at, source, data, dedup_key) VALUES (?, ?, ?, ?, ?, ?)');
			const seen = new Map<string, number>();
			lines.forEach((line, lineIndex) => {
				const hash = createHash('sha1').update(line).digest('hex');
				const occurrence = (seen.get(hash) ?? 0) + 1;
				seen.set(hash, occurrence);
				if (line === 'not json') {
					db.prepare(
						'INSERT INTO rejects (at, origin, line, reason, raw, raw_bytes, dedup_key) VALUES (?, ?, ?, ?, ?, ?, ?)',
					).run(1, origin, lineIndex + 1, 'line: not valid JSON', line, line.length, `${origin}:${hash}#${occurrence}`);
					return;
				}
				parseLine(line, {now: 5_000}).forEach((event, index) =>
					insert.run(
						event.taskId,
						event.type,
						event.at,
						event.source,
						JSON.stringify(event.data),
						`${hash}#${occurrence}:${index}`,
					),
				);
			});
		});
		const before = withRawDb(ledgerFile, db => db.prepare('SELECT COUNT(*) FROM events').pluck().get() as number);
		// When it is opened by this version (migration 3) and the same file is ingested again
		const again = runCli(['ingest', file, '--ledger', ledgerFile, '--json']);
		// Then nothing is added, not even the reject
		expect(again.status, again.stderr).toBe(0);
		expect(JSON.parse(again.stdout)).toMatchObject({lines: lines.length, appended: 0, rejected: 1, rejectsAdded: 0});
		expect(withRawDb(ledgerFile, db => db.prepare('SELECT COUNT(*) FROM events').pluck().get())).toBe(before);
		expect(withRawDb(ledgerFile, db => db.pragma('user_version', {simple: true}))).toBe(SCHEMA_VERSION);
		// And a longer version of the file adds only its new line
		writeFileSync(
			file,
			`${[...lines, JSON.stringify(claudePayload('Stop', '55555555-aaaa-4bbb-8ccc-000000000002'))].join('\n')}\n`,
		);
		const longer = runCli(['ingest', file, '--ledger', ledgerFile, '--json']);
		expect(JSON.parse(longer.stdout)).toMatchObject({appended: 1});
	});

	it('a ledger with no old keys is not marked, so its ingests look nothing else up', () => {
		const dir = scratchDir();
		const ledgerFile = join(dir, 'ledger.db');
		withLedger(ledgerFile, ledger => {
			ingestLines(ledger, sessionEnvelopes('66666666-aaaa-4bbb-8ccc-000000000001', 1_000_000), {origin: 'a', now: 1});
			expect(ledger.reader.hasLegacyLineKeys()).toBe(false);
		});
	});
});
