import {hash} from 'node:crypto';

/**
 * The hash chain over the ledger's events (docs/ledger.md, "The hash chain"). Every event carries
 *
 *   hash = SHA-256(previous event's hash ‖ canonical envelope ‖ "\n" ‖ data)
 *
 * the first event chaining from GENESIS (32 zero bytes). The envelope is the RFC 8785 canonical
 * JSON of the event's columns but its seq and data (the chain itself is the order; an anchor binds
 * a seq to its hash):
 *
 *   {"arrivedAt":A,"at":T,"dedupKey":K,"source":S,"taskId":I,"type":Y}
 *
 * and `data` is the data column's JSON text exactly as stored, as UTF-8 bytes: a verifier needs no
 * JSON parser and no escaping pass over a payload, and any change of one byte of it is seen. The
 * canonical envelope holds no raw line break, so the "\n" after it ends it unambiguously. Keys are
 * in RFC 8785's order (UTF-16 code units), numbers are integers, strings are what JSON.stringify
 * writes (the RFC's escaping): the same text `canonicalize` gives for that object (tested), built
 * by hand because it runs once per event on the ingest path.
 */
export const GENESIS: Buffer = Buffer.alloc(32);

/** The columns of an event that its hash covers. */
export type ChainContent = {
	readonly taskId: string;
	readonly type: string;
	readonly at: number;
	/** When the event arrived in the ledger (the writer's clock); null for events recorded before the chain. */
	readonly arrivedAt: number | null;
	readonly source: string;
	/** The data column exactly as stored (JSON text, or its UTF-8 bytes as SQLite returns a blob). */
	readonly data: string | Uint8Array;
	readonly dedupKey: string | null;
};

const number = (value: number | null): string => (value === null ? 'null' : String(value));
const text = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value));

/** RFC 8785 canonical JSON of an event's envelope: its columns but seq and data (see above). */
export function canonicalEnvelope(row: ChainContent): string {
	return (
		`{"arrivedAt":${number(row.arrivedAt)},"at":${number(row.at)},"dedupKey":${text(row.dedupKey)},` +
		`"source":${JSON.stringify(row.source)},"taskId":${JSON.stringify(row.taskId)},"type":${JSON.stringify(row.type)}}`
	);
}

/** Where an event's bytes are laid out to be hashed in one call; made on first use (a hook that loads this module hashes nothing), grown for a larger event, kept while small. */
let scratch: Buffer | null = null;
const FIRST_BYTES = 64 * 1024;
const KEPT_BYTES = 1 << 20;
const LINE_BREAK = 10;

/**
 * The hash an event carries: SHA-256 of the previous event's hash, its canonical envelope and a line
 * break, and its data. The bytes are written once into a reused buffer and hashed by one native
 * call: the writer does this once per event, and a hash object with three updates cost it more than
 * the insert.
 */
export function chainHash(previous: Uint8Array, row: ChainContent): Buffer {
	const envelope = canonicalEnvelope(row);
	const {data} = row;
	// A UTF-16 code unit is at most 3 bytes of UTF-8.
	const most = 32 + envelope.length * 3 + 1 + (typeof data === 'string' ? data.length * 3 : data.length);
	scratch ??= Buffer.allocUnsafe(FIRST_BYTES);
	const into = most <= scratch.length ? scratch : Buffer.allocUnsafe(most);
	if (most <= KEPT_BYTES) scratch = into;
	into.set(previous, 0);
	let end = 32 + into.write(envelope, 32, 'utf8');
	into[end] = LINE_BREAK;
	end += 1;
	if (typeof data === 'string') end += into.write(data, end, 'utf8');
	else {
		into.set(data, end);
		end += data.length;
	}
	return hash('sha256', into.subarray(0, end), 'buffer');
}
