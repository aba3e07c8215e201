/**
 * What a break in the ledger's hash chain means (docs/ledger.md, "verify"): given the rows around
 * the first event whose link does not hold, which of the ways a ledger is tampered with explains
 * it, and which seq it names. Pure: the hashing is passed in.
 */

/**
 * How a ledger was found changed. `rewritten`: the chain holds, but does not reach an anchor kept
 * elsewhere (the events from a seq on were written again, with their links).
 */
export type ChainBreakKind = 'edited' | 'deleted' | 'inserted' | 'reordered' | 'truncated' | 'rewritten';

export type ChainBreak = {
	readonly kind: ChainBreakKind;
	/** The first event that is not as it was written (for deleted and truncated: the first missing seq). */
	readonly seq: number;
	/** For deleted and truncated: the seqs that are gone, first to last. */
	readonly missing?: {readonly from: number; readonly to: number};
	/** One line saying what was found. */
	readonly why: string;
};

/** A row as the check sees it: its seq and the hash it carries (null: it carries none). */
export type LinkedRow = {readonly seq: number; readonly hash: Uint8Array | null};

export type BreakContext<R extends LinkedRow> = {
	/** The last row that verified, or null when the break is the first row checked. */
	readonly previous: R | null;
	/** The hash the broken row should follow: the previous row's, or the chain's start. */
	readonly previousHash: Uint8Array;
	/** The hash the previous row itself followed (null at the start). */
	readonly beforePreviousHash: Uint8Array | null;
	/** The seq the broken row should have: one after the previous row's. */
	readonly expectedSeq: number;
	/** The first row whose link does not hold. */
	readonly broken: R;
	/** The rows after it, oldest first: a window to find where its true successor went. */
	readonly following: readonly R[];
	/** The hash a row carries when it follows `previous`. */
	readonly link: (previous: Uint8Array, row: R) => Uint8Array;
};

export function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
	if (a === null || b === null || a.length !== b.length) return false;
	for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false;
	return true;
}

const links = <R extends LinkedRow>(context: BreakContext<R>, previous: Uint8Array, row: R): boolean =>
	sameBytes(context.link(previous, row), row.hash);

const range = (from: number, to: number): string => (from === to ? `seq ${from}` : `seqs ${from}-${to}`);

/** Names the first tampered event around a broken link, and how it was tampered with. */
export function classifyBreak<R extends LinkedRow>(context: BreakContext<R>): ChainBreak {
	const {broken, previous, previousHash, beforePreviousHash, following, expectedSeq} = context;
	// seqs are never reused or skipped (AUTOINCREMENT in one writer's transaction): a gap is a deletion.
	if (broken.seq > expectedSeq) {
		const missing = {from: expectedSeq, to: broken.seq - 1};
		return {
			kind: 'deleted',
			seq: expectedSeq,
			missing,
			why: `${range(missing.from, missing.to)} ${missing.from === missing.to ? 'is' : 'are'} missing: seq ${broken.seq} follows seq ${expectedSeq - 1}`,
		};
	}
	if (broken.seq < expectedSeq) {
		return {kind: 'inserted', seq: broken.seq, why: `seq ${broken.seq} comes again after seq ${expectedSeq - 1}`};
	}
	if (broken.hash === null) {
		return {
			kind: 'inserted',
			seq: broken.seq,
			why: `seq ${broken.seq} carries no link: it was written around the ledger's writer`,
		};
	}
	// The previous row linked only because whoever added it computed its hash: this row follows the one before it.
	if (previous !== null && beforePreviousHash !== null && links(context, beforePreviousHash, broken)) {
		return {
			kind: 'inserted',
			seq: previous.seq,
			why: `seq ${previous.seq} was inserted: seq ${broken.seq} follows the event before it`,
		};
	}
	const trueNext = following.findIndex(row => links(context, previousHash, row));
	if (trueNext >= 0) {
		const moved = following[trueNext] as R;
		const isMovedUp = [moved, ...following].some(row => row.hash !== null && links(context, row.hash, broken));
		return isMovedUp
			? {
					kind: 'reordered',
					seq: broken.seq,
					why: `seq ${broken.seq} was moved: it follows a later event, and seq ${moved.seq} follows seq ${expectedSeq - 1}`,
				}
			: {
					kind: 'inserted',
					seq: broken.seq,
					why: `${range(broken.seq, moved.seq - 1)} ${moved.seq - 1 === broken.seq ? 'was' : 'were'} inserted: seq ${moved.seq} follows seq ${expectedSeq - 1}`,
				};
	}
	const next = following[0];
	if (next !== undefined && links(context, broken.hash, next)) {
		return {kind: 'edited', seq: broken.seq, why: `seq ${broken.seq} was edited: its content no longer matches its hash`};
	}
	if (following.some(row => row.hash !== null && links(context, row.hash, broken))) {
		return {kind: 'reordered', seq: broken.seq, why: `seq ${broken.seq} was moved: it follows a later event`};
	}
	return {
		kind: 'edited',
		seq: broken.seq,
		why:
			next === undefined
				? `seq ${broken.seq} was edited: its content no longer matches its hash`
				: `seq ${broken.seq} was edited: its content and its hash no longer match the chain`,
	};
}

/** The tail cut: every event that remains links, but seqs were handed out after the last one. */
export function truncation(lastSeq: number, issuedSeq: number): ChainBreak | null {
	if (issuedSeq <= lastSeq) return null;
	const missing = {from: lastSeq + 1, to: issuedSeq};
	return {
		kind: 'truncated',
		seq: missing.from,
		missing,
		why: `the ledger was cut: ${range(missing.from, missing.to)} ${missing.from === missing.to ? 'was' : 'were'} written and ${missing.from === missing.to ? 'is' : 'are'} gone`,
	};
}
