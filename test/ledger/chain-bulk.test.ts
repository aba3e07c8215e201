import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {chainHash, GENESIS, type ChainContent} from '../../src/ledger/chain.ts';
import {verifyChain} from '../../src/ledger/chain-verify.ts';
import {linkRun} from '../../src/ledger/chain-verify-fast.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {scratchDir} from '../helpers/cli.ts';
import {withRawDb} from '../helpers/raw-db.ts';

let ledger: Ledger | undefined;
afterEach(() => ledger?.close());

/** Every character but the lone surrogates, in pieces of a few thousand, and a few beyond the BMP. */
function everyCharacter(): string[] {
	const pieces: string[] = [];
	let piece = '';
	for (let code = 0; code <= 0xffff; code += 1) {
		if (code >= 0xd800 && code <= 0xdfff) continue;
		piece += String.fromCharCode(code);
		if (piece.length === 4096) {
			pieces.push(piece);
			piece = '';
		}
	}
	pieces.push(`${piece}😀\u{10ffff}\u{1f600}𝄞`);
	return pieces;
}

/** A ledger whose events are written straight into the table, each with the link chain.ts computes for it. */
function ledgerWith(contents: readonly ChainContent[]): string {
	const file = join(scratchDir('cr-chain-bulk-'), 'ledger.db');
	openLedger(file).close();
	withRawDb(file, db => {
		const insert = db.prepare(
			'INSERT INTO events (task_id, type, at, arrived_at, source, data, dedup_key, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
		);
		let previous: Buffer = GENESIS;
		for (const content of contents) {
			previous = chainHash(previous, content);
			insert.run(
				content.taskId,
				content.type,
				content.at,
				content.arrivedAt,
				content.source,
				content.data,
				content.dedupKey,
				previous,
			);
		}
	});
	return file;
}

const content = (overrides: Partial<ChainContent>): ChainContent => ({
	taskId: 't-1',
	type: 'need.raised',
	at: 1_700_000_000_000,
	arrivedAt: 1_700_000_000_005,
	source: 'cli',
	data: '{"message":"x"}',
	dedupKey: null,
	...overrides,
});

describe('the chain check in bulk', () => {
	it('builds in SQLite the very bytes chain.ts hashes, for every character in every text column', () => {
		const contents = everyCharacter().flatMap((text, index) => [
			content({taskId: text, at: index, arrivedAt: null}),
			content({type: text, dedupKey: text, at: -index, arrivedAt: Number.MAX_SAFE_INTEGER}),
			content({source: text, data: JSON.stringify({text}), dedupKey: `k-${index}`, at: 0, arrivedAt: 0}),
		]);
		ledger = openLedger(ledgerWith(contents), {isReadonly: true});
		const chunk = ledger.reader.chainChunk(0, Number.MAX_SAFE_INTEGER, contents.length + 1);
		expect(chunk?.count).toBe(contents.length);
		expect(linkRun(chunk!, GENESIS, 1)).not.toBeNull();
		expect(verifyChain(ledger.reader)).toMatchObject({isIntact: true, checked: contents.length});
	});

	it('leaves an event whose columns do not have the types the writer gives them to the careful check, which decides', () => {
		const contents = Array.from({length: 12}, (_, index) => content({at: 1_000 + index, data: `{"n":${index}}`}));
		const file = ledgerWith(contents);
		withRawDb(file, db => {
			db.exec('DROP TRIGGER events_refuse_update');
			db.prepare('UPDATE events SET at = at + 0.5 WHERE seq = 5').run();
		});
		ledger = openLedger(file, {isReadonly: true});
		const chunk = ledger.reader.chainChunk(0, Number.MAX_SAFE_INTEGER, 100);
		expect(chunk?.isWhole).toBe(false);
		expect(linkRun(chunk!, GENESIS, 1)).toBeNull();
		expect(verifyChain(ledger.reader)).toMatchObject({isIntact: false, found: {kind: 'edited', seq: 5}});
	});

	it('refuses a run whose seqs do not follow one another, or whose link does not hold', () => {
		const contents = Array.from({length: 6}, (_, index) => content({at: 1_000 + index}));
		ledger = openLedger(ledgerWith(contents), {isReadonly: true});
		const chunk = ledger.reader.chainChunk(0, Number.MAX_SAFE_INTEGER, 100)!;
		expect(linkRun(chunk, GENESIS, 1)?.lastSeq).toBe(6);
		const again = ledger.reader.chainChunk(0, Number.MAX_SAFE_INTEGER, 100)!;
		expect(linkRun(again, GENESIS, 2)).toBeNull();
		const fromElsewhere = ledger.reader.chainChunk(0, Number.MAX_SAFE_INTEGER, 100)!;
		expect(linkRun(fromElsewhere, Buffer.alloc(32, 1), 1)).toBeNull();
	});
});
