import {hash} from 'node:crypto';
import type {ChainChunk} from './chain-rows.ts';

/** Where a run of events that all link ends: its last event, the hash it carries and the hash before that. */
export type FastRun = {readonly lastSeq: number; readonly lastHash: Buffer; readonly beforeLastHash: Buffer};

const COMMA = 44;
const ZERO = 48;

/** The next number in a comma-separated list of them, from `at`: its value and where the one after it starts. */
function nextNumber(list: string, at: number): {readonly value: number; readonly next: number} {
	let value = 0;
	let index = at;
	for (; index < list.length; index += 1) {
		const code = list.charCodeAt(index);
		if (code === COMMA) break;
		value = value * 10 + code - ZERO;
	}
	return {value, next: index + 1};
}

/**
 * The chain check's common case, on a run of events read in bulk (reader.chainChunk): every event
 * has the seq after the one before it and carries SHA-256(the hash before it ‖ its envelope ‖ "\n" ‖
 * its data). Each event's bytes are hashed where they lie, with the hash before it copied into the
 * 32 bytes of room ahead of them: no object per row but the digest. Answers the run's end when every
 * event holds, or null when any does not (or the run is not in the shape this path reads): the
 * careful check (chain-verify.ts) then reads the run row by row and names what it finds, so this
 * path only ever says "all of these hold", and only for links the careful check would accept.
 */
export function linkRun(chunk: ChainChunk, previousHash: Uint8Array, expectedSeq: number): FastRun | null {
	const {count, seqs, lengths, preimages, hashes} = chunk;
	if (!chunk.isWhole || hashes === null || hashes.length !== count * 32) return null;
	let before: Uint8Array = previousHash;
	let seqAt = 0;
	let lengthAt = 0;
	let offset = 0;
	let seq = expectedSeq - 1;
	for (let index = 0; index < count; index += 1) {
		const nextSeq = nextNumber(seqs, seqAt);
		const size = nextNumber(lengths, lengthAt);
		if (nextSeq.value !== seq + 1 || size.value < 32 || offset + size.value > preimages.length) return null;
		preimages.set(before, offset);
		const digest = hash('sha256', preimages.subarray(offset, offset + size.value), 'buffer');
		if (hashes.compare(digest, 0, 32, index * 32, index * 32 + 32) !== 0) return null;
		before = digest;
		seq = nextSeq.value;
		seqAt = nextSeq.next;
		lengthAt = size.next;
		offset += size.value;
	}
	if (offset !== preimages.length) return null;
	const lastHash = Buffer.from(hashes.subarray((count - 1) * 32, count * 32));
	const beforeLastHash = count > 1 ? Buffer.from(hashes.subarray((count - 2) * 32, (count - 1) * 32)) : Buffer.from(previousHash);
	return {lastSeq: seq, lastHash, beforeLastHash};
}
