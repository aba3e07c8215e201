import canonicalize from 'canonicalize';
import {createHash} from 'node:crypto';
import {copyFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {canonicalEnvelope, chainHash, GENESIS} from '../../src/ledger/chain.ts';
import {verifyChain} from '../../src/ledger/chain-verify.ts';
import {verifyChainInParts} from '../../src/ledger/chain-verify-parts.ts';
import {fileURLToPath} from 'node:url';
import {SCHEMA_VERSION} from '../../src/ledger/migrations.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {event} from '../helpers/ledger.ts';
import {rewriteChainFrom} from '../helpers/rewrite-chain.ts';
import {withRawDb} from '../helpers/raw-db.ts';

let ledger: Ledger | undefined;
afterEach(() => ledger?.close());

/** A ledger of `count` events over a few tasks, written through the writer in batches as ingest does. */
function ledgerOf(count: number): string {
	const file = join(scratchDir('cr-chain-'), 'ledger.db');
	const opened = openLedger(file);
	for (let start = 0; start < count; start += 7) {
		const batch = Array.from({length: Math.min(7, count - start)}, (_, index) =>
			event(`t-${(start + index) % 5}`, EventType.needRaised, {message: `event ${start + index}`}, 1_000 + start + index),
		);
		opened.writer.append(batch);
	}
	opened.close();
	return file;
}

/** A copy of the ledger, opened directly with the append-only triggers dropped, changed by `sql`. */
function tampered(file: string, sql: string): string {
	const copy = join(scratchDir('cr-tampered-'), 'ledger.db');
	withRawDb(file, db => db.pragma('wal_checkpoint(TRUNCATE)'));
	copyFileSync(file, copy);
	withRawDb(copy, db => {
		db.exec('DROP TRIGGER events_refuse_update; DROP TRIGGER events_refuse_delete; DROP TRIGGER events_need_a_link;');
		db.exec(sql);
	});
	return copy;
}

describe('the hash chain', () => {
	it('hashes the canonical envelope exactly as RFC 8785 (canonicalize) writes it, a line break, and the data as stored', () => {
		const row = {
			taskId: 'c-1é\u2028',
			type: 'agent.event',
			at: 1_700_000_000_123,
			arrivedAt: null,
			source: 'claude',
			data: '{"b":1,"a":"x\\"y\\n\u00e9😀"}',
			dedupKey: null,
		};
		const {data: _data, ...envelope} = row;
		expect(canonicalEnvelope(row)).toBe(canonicalize(envelope));
		const withKey = {...row, arrivedAt: 1_700_000_000_200, dedupKey: '@0123.abc#1:0'};
		const {data: _same, ...keyed} = withKey;
		expect(canonicalEnvelope(withKey)).toBe(canonicalize(keyed));
		const expected = createHash('sha256')
			.update(GENESIS)
			.update(`${canonicalize(keyed)}\n`)
			.update(withKey.data)
			.digest();
		expect(chainHash(GENESIS, withKey).equals(expected)).toBe(true);
		// The same data as the blob SQLite returns hashes the same
		expect(chainHash(GENESIS, {...withKey, data: Buffer.from(withKey.data)}).equals(expected)).toBe(true);
	});

	it('links every event to the one before it, written with it, and arrival never goes back', () => {
		const file = ledgerOf(40);
		const rows = withRawDb(file, db => db.prepare('SELECT * FROM events ORDER BY seq').all()) as {
			seq: number;
			task_id: string;
			type: string;
			at: number;
			arrived_at: number;
			source: string;
			data: string;
			dedup_key: string | null;
			hash: Buffer;
		}[];
		let previous: Buffer = GENESIS;
		let arrived = 0;
		for (const row of rows) {
			const content = {
				taskId: row.task_id,
				type: row.type,
				at: row.at,
				arrivedAt: row.arrived_at,
				source: row.source,
				data: row.data,
				dedupKey: row.dedup_key,
			};
			expect(row.hash.equals(chainHash(previous, content))).toBe(true);
			expect(row.arrived_at).toBeGreaterThanOrEqual(arrived);
			previous = row.hash;
			arrived = row.arrived_at;
		}
	});

	it('refuses an event without its link in the database itself', () => {
		const file = ledgerOf(3);
		const insert = () =>
			withRawDb(file, db =>
				db.prepare(`INSERT INTO events (task_id, type, at, source, data) VALUES ('x', 'need.raised', 1, 'cli', '{}')`).run(),
			);
		expect(insert).toThrow(/link in the chain/);
	});

	it('a key already in the ledger adds nothing and the chain goes on from the same head', () => {
		ledger = openLedger(join(scratchDir('cr-chain-'), 'ledger.db'));
		const keyed = {...event('t', EventType.needRaised, {message: 'once'}), dedupKey: 'k-1'};
		ledger.writer.append([keyed]);
		ledger.writer.append([keyed, event('t', EventType.needRaised, {message: 'next'})]);
		expect(verifyChain(ledger.reader)).toMatchObject({isIntact: true, checked: 2});
	});
});

describe('controlroom verify on a scratch ledger opened directly, triggers dropped', () => {
	const file = ledgerOf(120);
	const verify = (ledgerFile: string, ...args: string[]) => runCli(['verify', '--ledger', ledgerFile, ...args]);

	it('an untouched ledger exits 0 and says how many events hold', () => {
		const result = verify(file);
		expect(result.stderr).toBe('');
		expect(result.stdout).toMatch(/^intact: 120 events checked, seq 1-120, head [0-9a-f]{64}$/m);
		expect(result.status).toBe(0);
	});

	it.each([
		['an edited payload', `UPDATE events SET data = json_set(data, '$.message', 'forged') WHERE seq = 40`, 40, 'edited'],
		['an edited time', `UPDATE events SET at = at + 1 WHERE seq = 120`, 120, 'edited'],
		['a deleted event', `DELETE FROM events WHERE seq = 55`, 55, 'deleted'],
		[
			'an inserted event (later ones moved up a seq)',
			`UPDATE events SET seq = -seq WHERE seq >= 70; UPDATE events SET seq = 1 - seq WHERE seq < 0;
			INSERT INTO events (seq, task_id, type, at, source, data, arrived_at, hash)
				VALUES (70, 't-0', 'need.raised', 2000, 'cli', '{"message":"forged"}', 2000, randomblob(32))`,
			70,
			'inserted',
		],
		[
			'two events swapped',
			`UPDATE events SET seq = -1 WHERE seq = 90; UPDATE events SET seq = 90 WHERE seq = 91; UPDATE events SET seq = 91 WHERE seq = -1`,
			90,
			'reordered',
		],
		[
			'two far apart swapped',
			`UPDATE events SET seq = -1 WHERE seq = 20; UPDATE events SET seq = 20 WHERE seq = 33; UPDATE events SET seq = 33 WHERE seq = -1`,
			20,
			'reordered',
		],
		['the tail cut', `DELETE FROM events WHERE seq > 117`, 118, 'truncated'],
	])('%s exits 1 naming the first bad seq and the kind', (_name, sql, seq, kind) => {
		const result = verify(tampered(file, sql));
		expect(result.stdout).toMatch(new RegExp(`^tampered: seq ${seq} ${kind}: `));
		expect(result.status).toBe(1);
	});

	it('an inserted event whose link was computed is named, and so is one with no link', () => {
		const computed = tampered(file, 'SELECT 1');
		withRawDb(computed, db => {
			const before = db.prepare('SELECT hash FROM events WHERE seq = 69').pluck().get() as Buffer;
			db.exec('UPDATE events SET seq = -seq WHERE seq >= 70; UPDATE events SET seq = 1 - seq WHERE seq < 0');
			const content = {taskId: 't-0', type: 'need.raised', at: 2000, arrivedAt: 2000, source: 'cli', data: '{}', dedupKey: null};
			db.prepare(
				`INSERT INTO events (seq, task_id, type, at, source, data, arrived_at, hash) VALUES (70, 't-0', 'need.raised', 2000, 'cli', '{}', 2000, ?)`,
			).run(chainHash(before, content));
		});
		expect(verify(computed).stdout).toMatch(
			/^tampered: seq 70 inserted: seq 70 was inserted: seq 71 follows the event before it/,
		);
		const bare = tampered(
			file,
			`INSERT INTO events (task_id, type, at, source, data) VALUES ('x', 'need.raised', 1, 'cli', '{}')`,
		);
		expect(verify(bare).stdout).toMatch(/^tampered: seq 121 inserted: .*carries no link/);
	});

	it('a deletion names every missing seq, and --json says the same', () => {
		const result = verify(tampered(file, 'DELETE FROM events WHERE seq IN (30, 31, 32)'), '--json');
		expect(JSON.parse(result.stdout)).toMatchObject({
			version: 1,
			intact: false,
			found: {kind: 'deleted', seq: 30, missing: {from: 30, to: 32}},
		});
		expect(result.status).toBe(1);
	});

	it('checks a range: a change outside it is not seen, one inside is', () => {
		const edited = tampered(file, `UPDATE events SET data = '{"message":"x"}' WHERE seq = 40`);
		expect(verify(edited, '--from', '50', '--to', '100')).toMatchObject({status: 0});
		expect(verify(edited, '--from', '41').stdout).toMatch(/^intact: 80 events checked, seq 41-120/);
		expect(verify(edited, '--from', '30', '--to', '45').stdout).toMatch(/^tampered: seq 40 edited/);
		expect(verify(file, '--from', '50', '--to', '40')).toMatchObject({status: 64});
	});

	it('--anchor prints the head; --against it holds, and fails once the ledger was rewritten consistently from seq N', () => {
		const anchor = verify(file, '--anchor');
		expect(anchor.status).toBe(0);
		const head = JSON.parse(anchor.stdout) as {seq: number; hash: string; host: string};
		expect(head).toMatchObject({seq: 120, hash: expect.stringMatching(/^[0-9a-f]{64}$/)});
		const dir = scratchDir('cr-anchor-');
		const kept = join(dir, 'anchors');
		writeFileSync(kept, anchor.stdout);
		expect(verify(file, '--against', kept)).toMatchObject({status: 0});
		expect(verify(file, '--against', `${head.seq}:${head.hash}`)).toMatchObject({status: 0});
		// The agent's user rewrites from seq 100 on, and every link after it, so the chain itself holds.
		const rewritten = tampered(file, 'SELECT 1');
		rewriteChainFrom(rewritten, 100, '{"message":"nothing happened"}');
		expect(verify(rewritten)).toMatchObject({status: 0});
		const against = verify(rewritten, '--against', kept);
		expect(against.stdout).toMatch(/^tampered: seq 1 rewritten: seq 120 does not carry the anchor's hash/);
		expect(against.status).toBe(1);
		expect(verify(rewritten, '--against', join(dir, 'none'))).toMatchObject({status: 66});
		expect(verify(rewritten, '--against', '{"seq": "x"}')).toMatchObject({status: 64});
	}, 120_000);
});

describe('verify on two threads', () => {
	const workerFile = fileURLToPath(new URL('../../dist/ledger/integrity-worker.js', import.meta.url));
	const file = ledgerOf(120);
	const inParts = async (ledgerFile: string) => {
		const opened = openLedger(ledgerFile);
		try {
			return await verifyChainInParts(opened.reader, ledgerFile, workerFile, {}, 10);
		} finally {
			opened.close();
		}
	};

	it.each([
		['none', 'SELECT 1', null, null],
		['in the first half', `UPDATE events SET at = at + 1 WHERE seq = 30`, 30, 'edited'],
		['at the split', 'DELETE FROM events WHERE seq = 60', 60, 'deleted'],
		['in the second half', `UPDATE events SET at = at + 1 WHERE seq = 100`, 100, 'edited'],
		['the tail cut', 'DELETE FROM events WHERE seq > 117', 118, 'truncated'],
	])('gives the answer one thread gives (%s)', async (_name, sql, seq, kind) => {
		const copy = tampered(file, sql);
		const result = await inParts(copy);
		if (seq === null) expect(result).toMatchObject({isIntact: true, checked: 120, head: {seq: 120}});
		else expect(result).toMatchObject({isIntact: false, found: {seq, kind}});
	});
});

describe('a ledger from before the chain', () => {
	it('is chained from its first event on migration, and says since when', () => {
		// A version 5 ledger: events with neither arrival nor link.
		const file = ledgerOf(30);
		withRawDb(file, db => {
			db.exec(`DROP TRIGGER events_need_a_link; DROP TRIGGER events_refuse_update;
				ALTER TABLE events DROP COLUMN hash; ALTER TABLE events DROP COLUMN arrived_at;
				DELETE FROM ledger_meta WHERE name LIKE 'chain%';
				CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
				PRAGMA user_version = 5;`);
		});
		ledger = openLedger(file);
		expect(withRawDb(file, db => db.pragma('user_version', {simple: true}))).toBe(SCHEMA_VERSION);
		ledger.writer.append([event('t-9', EventType.needRaised, {message: 'after'})]);
		expect(verifyChain(ledger.reader)).toMatchObject({isIntact: true, checked: 31});
		expect(ledger.reader.chainFacts()).toMatchObject({fromSeq: 1, chainedUpTo: 30, since: expect.any(Number)});
		ledger.close();
		ledger = undefined;
		expect(runCli(['verify', '--ledger', file]).stdout).toMatch(/chained since .* \(events up to seq 30 were chained then/);
	});

	it("made by a build whose version 5 was the chain, is given the transcripts' cost_state and never chained again", () => {
		const file = ledgerOf(10);
		withRawDb(file, db => db.exec('ALTER TABLE transcript_cursors DROP COLUMN cost_state; PRAGMA user_version = 5;'));
		// Changed before it is opened again: chaining it anew would give the change a link.
		const copy = tampered(file, `UPDATE events SET data = '{"message":"changed"}' WHERE seq = 4`);
		ledger = openLedger(copy);
		const columns = withRawDb(copy, db => db.prepare('PRAGMA table_info(transcript_cursors)').all() as {name: string}[]);
		expect(columns.map(column => column.name)).toContain('cost_state');
		expect(withRawDb(copy, db => db.pragma('user_version', {simple: true}))).toBe(SCHEMA_VERSION);
		expect(verifyChain(ledger.reader)).toMatchObject({isIntact: false, found: {seq: 4, kind: 'edited'}});
		expect(ledger.reader.chainFacts()).toMatchObject({since: null});
	});
});
