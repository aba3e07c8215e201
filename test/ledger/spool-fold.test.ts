import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {ingestLines} from '../../src/ledger/ingest.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {spoolDir} from '../../src/ledger/paths.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {scratchLedger} from '../helpers/ledger.ts';
import {claudePayload} from '../helpers/payloads.ts';
import {withRawDb} from '../helpers/raw-db.ts';

let ledger: Ledger | undefined;
afterEach(() => ledger?.close());

const session = (index: number): string => `44444444-aaaa-4bbb-8ccc-${String(index).padStart(12, '0')}`;
const envelope = (index: number, extra: Record<string, unknown> = {}): string =>
	JSON.stringify({
		at: new Date(1_000 + index).toISOString(),
		source: 'claude',
		payload: claudePayload('Stop', session(index), extra),
	});

describe('the spool fold isolates a bad file', () => {
	it('folds every good file around a poison one, moves the poison to spool/rejected/ with its reason, and records it', () => {
		// Given ten good spool files and, between them, one nested 10,000 deep and one that is a folder
		ledger = scratchLedger();
		const spool = spoolDir(ledger.path);
		mkdirSync(spool, {recursive: true});
		for (let index = 0; index < 10; index += 1) writeFileSync(join(spool, `2-${index}.jsonl`), `${envelope(index)}\n`);
		writeFileSync(join(spool, '1-deep.jsonl'), `${'['.repeat(10_000)}${']'.repeat(10_000)}\n`);
		mkdirSync(join(spool, '3-folder.jsonl'));
		// When folded
		const stats = foldSpool(ledger, spool);
		// Then the ten land, both bad ones are rejects and are set aside with their reasons
		expect(stats).toMatchObject({appended: 10, rejected: 2, setAside: 2});
		expect(ledger.reader.eventCount()).toBe(10);
		const reasons = ledger.reader.rejects(10).map(reject => [reject.origin, reject.reason]);
		expect(reasons).toContainEqual(['spool:1-deep.jsonl', 'payload: nested deeper than 64 levels']);
		expect(reasons).toContainEqual(['spool:3-folder.jsonl', 'file: not folded: it is a folder, not a regular file']);
		expect(readdirSync(spool).sort()).toEqual(['rejected']);
		expect(readdirSync(join(spool, 'rejected')).sort()).toEqual([
			'1-deep.jsonl',
			'1-deep.jsonl.reason',
			'3-folder.jsonl',
			'3-folder.jsonl.reason',
		]);
		expect(readFileSync(join(spool, 'rejected', '1-deep.jsonl.reason'), 'utf8')).toBe(
			'line 1: payload: nested deeper than 64 levels\n',
		);
		// And a second fold has nothing left to do
		expect(foldSpool(ledger, spool)).toMatchObject({files: 0, rejected: 0});
	});

	it('keeps the good lines of a file whose one line the store refuses, and makes only that line a reject', () => {
		// Given a ledger that refuses one session's events (as a constraint would), and a file of five lines
		ledger = scratchLedger();
		withRawDb(ledger.path, db =>
			db.exec(
				`CREATE TRIGGER refuse_one BEFORE INSERT ON events WHEN NEW.data LIKE '%${session(2)}%' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
			),
		);
		const spool = spoolDir(ledger.path);
		mkdirSync(spool, {recursive: true});
		writeFileSync(join(spool, 'five.jsonl'), `${[0, 1, 2, 3, 4].map(index => envelope(index)).join('\n')}\n`);
		// When folded
		const stats = foldSpool(ledger, spool);
		// Then four land and line 3 is the one reject
		expect(stats).toMatchObject({appended: 4, rejected: 1, setAside: 1});
		expect(ledger.reader.rejects(5).map(reject => [reject.line, reject.reason])).toEqual([
			[3, 'events could not be written: mapping failed: SqliteError: refused'],
		]);
	});

	it('leaves the files in place when the ledger itself cannot be written (a store fault is not the input’s)', () => {
		// Given a spool file, and another connection holding the ledger's write lock
		const first = scratchLedger();
		const file = first.path;
		first.close();
		ledger = openLedger(file, {busyTimeoutMs: 10});
		const spool = spoolDir(file);
		mkdirSync(spool, {recursive: true});
		writeFileSync(join(spool, 'one.jsonl'), `${envelope(1)}\n`);
		withRawDb(file, db => {
			db.exec('BEGIN IMMEDIATE');
			// When a fold runs, the ledger is busy
			expect(() => foldSpool(ledger as Ledger, spool)).toThrow(expect.objectContaining({code: 'SQLITE_BUSY'}));
			db.exec('ROLLBACK');
		});
		// Then the file is still there, nothing was set aside, and the next fold lands it
		expect(readdirSync(spool)).toEqual(['one.jsonl']);
		expect(foldSpool(ledger, spool)).toMatchObject({appended: 1, setAside: 0});
	});
});

describe('ingest isolates a bad line', () => {
	it('stores 20 of 21 lines when one is nested 10,000 deep, and says why the one was refused', () => {
		ledger = scratchLedger();
		const lines = Array.from({length: 21}, (_, index) => envelope(index));
		lines[10] = `{"session_id":"x","hook_event_name":"Stop","deep":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
		const stats = ingestLines(ledger, lines, {origin: 'test', now: 0});
		expect(stats).toMatchObject({lines: 21, appended: 20, rejected: 1});
		expect(ledger.reader.rejects(1)[0]).toMatchObject({line: 11, reason: 'payload: nested deeper than 64 levels'});
	});
});
