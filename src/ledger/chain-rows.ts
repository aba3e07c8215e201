import type {ChainContent} from './chain.ts';

/** An event as the chain covers it, with the link it carries (null: none, written around the writer). */
export type ChainRow = ChainContent & {readonly seq: number; readonly hash: Buffer | null};

/** Where a ledger's chain starts and how far its seqs go. */
export type ChainFacts = {
	/** The first seq the chain covers (1, or the first event a ledger held when it was given its chain). */
	readonly fromSeq: number;
	/** When an existing ledger was given its chain (ms), or null: chained from its first event as it was written. */
	readonly since: number | null;
	/** The last event that was chained then (0 when none was). */
	readonly chainedUpTo: number;
	/** The highest seq SQLite ever handed out (sqlite_sequence): above the last event's, the tail was cut. */
	readonly issuedSeq: number;
	readonly lastSeq: number;
};

/**
 * A run of events read in bulk for the chain check (chain-verify-fast.ts): a few values for the
 * whole run instead of nine per row. Each event's bytes to hash are 32 bytes of room for the hash
 * before it, then its canonical envelope (built by SQLite, the same text canonicalEnvelope writes),
 * a line break and its data as stored.
 */
export type ChainChunk = {
	readonly count: number;
	/** Their seqs, in the order of the other lists, comma-separated. */
	readonly seqs: string;
	/** Each event's bytes to hash: its length in `preimages`, comma-separated (an event whose columns do not have the types the writer gives them has none). */
	readonly lengths: string;
	readonly preimages: Buffer;
	/** Each event's hash, 32 bytes each (only when every one of them carries a 32-byte hash). */
	readonly hashes: Buffer | null;
	/** Whether every event has its bytes in `preimages`. */
	readonly isWhole: boolean;
};
