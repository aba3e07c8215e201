import {classifyBreak, truncation, type ChainBreak} from '../core/chain-break.ts';
import {chainHash, GENESIS} from './chain.ts';
import type {ChainRow} from './chain-rows.ts';
import {linkRun} from './chain-verify-fast.ts';
import type {LedgerReader} from './reader.ts';

/** Rows read at a time: a chunk's memory, not the ledger's. */
const CHUNK = 5000;
/** How far past a broken link the check looks for where its true successor went (a moved or inserted event). */
const LOOK_AHEAD = 2000;

/** Which part of the chain to check (both ends included; the whole chain by default). */
export type VerifyRange = {readonly fromSeq?: number; readonly toSeq?: number};

export type ChainHead = {readonly seq: number; readonly hash: string};

export type VerifyResult =
	| {
			readonly isIntact: true;
			/** Events checked. */
			readonly checked: number;
			readonly fromSeq: number;
			/** The last event checked, and its hash (hex): the head when the whole chain was checked. */
			readonly head: ChainHead | null;
	  }
	| {readonly isIntact: false; readonly checked: number; readonly fromSeq: number; readonly found: ChainBreak};

const link = (previous: Uint8Array, row: ChainRow): Uint8Array => chainHash(previous, row);

/**
 * Checks the chain from `fromSeq` to `toSeq`: each event's hash must be the SHA-256 of the one
 * before it and its own content, and seqs must follow one another. A range starts from the hash
 * its first event's predecessor carries (trusted: check from the start to cover it). The check
 * stops at the first event that does not hold, and says how it was tampered with; checking to the
 * end also finds a cut tail (seqs handed out after the last event that remains).
 */
export function verifyChain(reader: LedgerReader, range: VerifyRange = {}): VerifyResult {
	const facts = reader.chainFacts();
	const fromSeq = Math.max(range.fromSeq ?? facts.fromSeq, facts.fromSeq);
	const toSeq = range.toSeq ?? Number.MAX_SAFE_INTEGER;
	let previous: ChainRow | null = null;
	let previousHash: Uint8Array = GENESIS;
	let beforePreviousHash: Uint8Array | null = null;
	if (fromSeq > facts.fromSeq) {
		const before = reader.chainRows(fromSeq - 2, fromSeq - 1, 1)[0];
		if (before === undefined || before.hash === null) {
			const found: ChainBreak = {
				kind: 'deleted',
				seq: fromSeq - 1,
				missing: {from: fromSeq - 1, to: fromSeq - 1},
				why: `seq ${fromSeq - 1}, where the range's chain starts, is missing`,
			};
			return {isIntact: false, checked: 0, fromSeq, found};
		}
		previousHash = before.hash;
	}
	let expectedSeq = fromSeq;
	let checked = 0;
	let after = fromSeq - 1;
	// The last event that held, when the bulk path checked it (its row is read again only if a break follows it).
	let previousSeq: number | null = null;
	for (;;) {
		const chunk = reader.chainChunk(after, toSeq, CHUNK);
		if (chunk === null) break;
		const run = linkRun(chunk, previousHash, expectedSeq);
		if (run !== null) {
			beforePreviousHash = run.beforeLastHash;
			previousHash = run.lastHash;
			previousSeq = run.lastSeq;
			previous = null;
			expectedSeq = run.lastSeq + 1;
			checked += chunk.count;
			after = run.lastSeq;
			if (chunk.count < CHUNK) break;
			continue;
		}
		// Something in this run does not hold (or is not in the bulk path's shape): read it row by row.
		const rows = reader.chainRows(after, toSeq, CHUNK);
		if (previous === null && previousSeq !== null) previous = reader.chainRows(previousSeq - 1, previousSeq, 1)[0] ?? null;
		for (let index = 0; index < rows.length; index += 1) {
			const row = rows[index] as ChainRow;
			// Before the chain, an ignored insert could use up a seq: a gap there is no deletion if the link holds.
			const isInOrder = row.seq === expectedSeq || (row.seq > expectedSeq && row.seq <= facts.chainedUpTo + 1);
			const isLinked = isInOrder && row.hash !== null && row.hash.equals(link(previousHash, row));
			if (!isLinked) {
				const following = [...rows.slice(index + 1, index + 1 + LOOK_AHEAD)];
				if (following.length < LOOK_AHEAD && rows.length === CHUNK) {
					following.push(...reader.chainRows(rows.at(-1)?.seq ?? row.seq, toSeq, LOOK_AHEAD - following.length));
				}
				const found = classifyBreak({previous, previousHash, beforePreviousHash, expectedSeq, broken: row, following, link});
				return {isIntact: false, checked, fromSeq, found};
			}
			beforePreviousHash = previousHash;
			previousHash = row.hash as Buffer;
			previous = row;
			previousSeq = row.seq;
			expectedSeq = row.seq + 1;
			checked += 1;
		}
		if (rows.length < CHUNK) break;
		after = rows.at(-1)?.seq ?? after;
	}
	const end = Math.min(toSeq, facts.issuedSeq);
	const cut = end > facts.chainedUpTo ? truncation(expectedSeq - 1, end) : null;
	// Missing at the end of a range with events after it: those were deleted, not cut from the tail.
	if (cut !== null && toSeq < facts.lastSeq)
		return {
			isIntact: false,
			checked,
			fromSeq,
			found: {...cut, kind: 'deleted', why: cut.why.replace('the ledger was cut', 'missing')},
		};
	if (cut !== null) return {isIntact: false, checked, fromSeq, found: cut};
	return {
		isIntact: true,
		checked,
		fromSeq,
		head: previousSeq === null ? null : {seq: previousSeq, hash: Buffer.from(previousHash).toString('hex')},
	};
}
