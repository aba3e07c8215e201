import {appendFileSync, closeSync, openSync, readFileSync} from 'node:fs';
import * as z from 'zod/mini';
import type {ChainBreak} from '../core/chain-break.ts';
import {PRIVATE_FILE_MODE} from './private-files.ts';
import type {LedgerReader} from './reader.ts';

/**
 * An anchor: the chain's head at a moment, kept where the ledger's writers cannot change it
 * afterwards (docs/ledger.md, "Anchors"). `verify --anchor` prints one as a JSON line; the
 * reconciler appends one to the ledger's anchors file every LOCAL_ANCHOR_INTERVAL_MS.
 */
export type Anchor = {readonly host: string | null; readonly seq: number; readonly hash: string; readonly at: string | null};

/** How often the reconciler appends the head to the anchors file beside the ledger. */
export const LOCAL_ANCHOR_INTERVAL_MS = 5 * 60_000;

/** The anchors file beside a ledger: `ledger.db.anchors`, one JSON line an anchor. */
export function anchorsFile(ledgerFile: string): string {
	return `${ledgerFile}.anchors`;
}

const HEX = /^[0-9a-f]{64}$/;
const anchorLine = z.object({
	host: z.optional(z.nullable(z.string())),
	seq: z.number().check(z.int(), z.positive()),
	hash: z.string().check(z.regex(HEX)),
	at: z.optional(z.nullable(z.string())),
});

/** The head of the chain now, as an anchor (null on an empty ledger). */
export function headAnchor(reader: LedgerReader, now: number): Anchor | null {
	const seq = reader.lastSeq();
	const hash = seq === 0 ? null : reader.storedEventAt(seq)?.hash;
	if (!hash) return null;
	return {host: reader.hostId(), seq, hash, at: new Date(now).toISOString()};
}

/**
 * Reads anchors from text: JSON lines as `verify --anchor` prints them, or `SEQ:HASH`. A line that
 * is neither throws naming its number; blank lines are skipped.
 */
export function parseAnchors(text: string): Anchor[] {
	const anchors: Anchor[] = [];
	text.split('\n').forEach((raw, index) => {
		const line = raw.trim();
		if (line === '') return;
		const short = /^(\d+):([0-9a-f]{64})$/.exec(line);
		if (short) {
			anchors.push({host: null, seq: Number(short[1]), hash: short[2] as string, at: null});
			return;
		}
		let parsed: unknown;
		try {
			parsed = JSON.parse(line);
		} catch {
			parsed = undefined;
		}
		const anchor = anchorLine.safeParse(parsed);
		if (!anchor.success) throw new Error(`line ${index + 1} is not an anchor (a JSON line from verify --anchor, or SEQ:HASH)`);
		anchors.push({host: anchor.data.host ?? null, seq: anchor.data.seq, hash: anchor.data.hash, at: anchor.data.at ?? null});
	});
	return anchors;
}

/** The anchors in a file of anchors, oldest first; none when there is no file or it does not parse. */
export function anchorsIn(file: string): Anchor[] {
	try {
		return parseAnchors(readFileSync(file, 'utf8'));
	} catch {
		return [];
	}
}

/** The newest anchor in a file of anchors, or null when there is none (or no file). */
function lastAnchorIn(file: string): Anchor | null {
	return anchorsIn(file).at(-1) ?? null;
}

/**
 * Appends the head to the ledger's anchors file when the newest anchor there is older than the
 * interval and the head moved since. The file is created owner-only. Returns the anchor written, or null.
 */
export function appendAnchorIfDue(
	reader: LedgerReader,
	ledgerFile: string,
	now: number,
	intervalMs = LOCAL_ANCHOR_INTERVAL_MS,
): Anchor | null {
	const file = anchorsFile(ledgerFile);
	const last = lastAnchorIn(file);
	const head = headAnchor(reader, now);
	if (head === null || (last !== null && last.seq >= head.seq)) return null;
	if (last?.at && now - Date.parse(last.at) < intervalMs) return null;
	closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
	appendFileSync(file, `${JSON.stringify(head)}\n`);
	return head;
}

/**
 * Checks that the ledger still reaches each anchor (oldest first): the event at its seq is there
 * and carries its hash. A verified chain that does not reach an anchor was written again from some
 * seq on: after the last anchor that still holds, at or before this one.
 */
export function checkAnchors(reader: LedgerReader, anchors: readonly Anchor[]): ChainBreak | null {
	const lastSeq = reader.lastSeq();
	let heldUpTo = 0;
	for (const anchor of [...anchors].sort((a, b) => a.seq - b.seq)) {
		if (anchor.seq > lastSeq) {
			return {
				kind: 'truncated',
				seq: lastSeq + 1,
				missing: {from: lastSeq + 1, to: anchor.seq},
				why: `the ledger ends at seq ${lastSeq}, and an anchor names seq ${anchor.seq}: the tail was cut`,
			};
		}
		const hash = reader.storedEventAt(anchor.seq)?.hash ?? null;
		if (hash !== anchor.hash) {
			const from = heldUpTo + 1;
			return {
				kind: 'rewritten',
				seq: from,
				why:
					hash === null
						? `seq ${anchor.seq}, which an anchor names, is missing`
						: `seq ${anchor.seq} does not carry the anchor's hash: the events were written again from a seq in ${from}-${anchor.seq}`,
			};
		}
		heldUpTo = anchor.seq;
	}
	return null;
}
