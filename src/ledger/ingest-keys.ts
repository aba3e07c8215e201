import {hash} from 'node:crypto';

/** Characters of the line's sha1 (base64url) kept in its key: 96 bits, with the time in front of them. */
const KEY_HASH_CHARS = 16;
/** Slots of the occurrence table (256 KiB); see Occurrences. */
const OCCURRENCE_SLOTS = 1 << 16;

/** The line's sha1 in base64url (27 characters), by the one-shot hash: several times cheaper than createHash. */
export function lineHash(line: string | Uint8Array): string {
	return hash('sha1', line, 'base64url');
}

/**
 * The key of one input line (docs/ledger.md, "Idempotence"): the time the line carries, then 96
 * bits of its sha1, then its occurrence number. Lines arrive roughly in time order, so a batch's
 * keys land side by side in the UNIQUE index instead of on a random page each. A line with no time
 * of its own (a raw hook payload, whose time is the moment of reading) has none in its key.
 */
export function lineKey(at: number | null, lineSha1: string, occurrence: number): string {
	const short = lineSha1.slice(0, KEY_HASH_CHARS);
	if (at === null || !Number.isFinite(at)) return `r.${short}#${occurrence}`;
	return `@${Math.max(0, Math.trunc(at)).toString(16).padStart(12, '0')}.${short}#${occurrence}`;
}

/**
 * Occurrence numbers that keep identical lines of one input apart in constant memory: a line's
 * number is one more than the lines before it that fell in the same slot of a fixed table
 * (indexed by bits of its hash). Identical lines always share a slot, so their numbers differ;
 * two different lines that share one only raise each other's number, which changes nothing (their
 * hashes already differ). The same input, or a longer version of it, gives the same numbers.
 */
export class Occurrences {
	private slots: Uint32Array | null = null;
	private first = -1;

	next(lineSha1: string): number {
		// Bits of the hash beyond those in the key: three base64url characters.
		const slot =
			((lineSha1.charCodeAt(KEY_HASH_CHARS) << 12) ^
				(lineSha1.charCodeAt(KEY_HASH_CHARS + 1) << 6) ^
				lineSha1.charCodeAt(KEY_HASH_CHARS + 2)) &
			(OCCURRENCE_SLOTS - 1);
		if (this.slots === null) {
			// Most spool files hold one line: the table is made only when a second one comes.
			if (this.first < 0) {
				this.first = slot;
				return 1;
			}
			this.slots = new Uint32Array(OCCURRENCE_SLOTS);
			this.slots[this.first] = 1;
		}
		const count = (this.slots[slot] ?? 0) + 1;
		this.slots[slot] = count;
		return count;
	}
}

/**
 * The keys of the shape used before schema version 3 (`sha1 in hex#occurrence`), counted exactly as
 * they were: only a ledger written before that version needs them, to find what it already holds.
 */
export class LegacyLineKeys {
	private readonly seen = new Map<string, number>();

	next(lineSha1: string): string {
		const hex = Buffer.from(lineSha1, 'base64url').toString('hex');
		const count = (this.seen.get(hex) ?? 0) + 1;
		this.seen.set(hex, count);
		return `${hex}#${count}`;
	}
}
