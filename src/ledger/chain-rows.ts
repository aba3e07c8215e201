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
