import {randomBytes} from 'node:crypto';
import {closeSync, fstatSync, openSync, readdirSync, readSync, renameSync, unlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {DROPPED_COUNTER} from './counters.ts';
import type {Ledger} from './open-ledger.ts';
import {createIngestor, type IngestStats} from './ingest.ts';
import {MAX_LINE_BYTES} from './payload-limits.ts';
import type {AgentSource} from './payload-schema.ts';
import {makePrivateDir, PRIVATE_FILE_MODE} from './private-files.ts';
import {isStoreFault} from './store-errors.ts';
import {MAX_REJECT_RAW_CHARS} from './writer.ts';

const SPOOL_SUFFIX = '.jsonl';
/** Where spool files that held bad input are moved, with a `.reason` file beside each. */
export const REJECTED_DIR = 'rejected';
/** A spool file holds one envelope (a hook's) or a few lines; one larger than this is set aside unread. */
export const MAX_SPOOL_FILE_BYTES = 16 * MAX_LINE_BYTES;

function newSpoolName(): string {
	return `${Date.now()}-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/**
 * Writes one spool file: under a temporary name, then renamed, so a fold never sees half a line
 * and no two writers ever share a file. Private (0600 in a 0700 folder) whatever the umask; a
 * failed write leaves no temporary file behind.
 */
function writeSpoolFile(dir: string, text: string): string {
	makePrivateDir(dir);
	const id = newSpoolName();
	const temporary = join(dir, `.${id}.tmp`);
	const final = join(dir, `${id}${SPOOL_SUFFIX}`);
	try {
		writeFileSync(temporary, text, {flag: 'wx', mode: PRIVATE_FILE_MODE});
		renameSync(temporary, final);
	} catch (error) {
		try {
			unlinkSync(temporary);
		} catch {
			// Never created, or already renamed: nothing to clean.
		}
		throw error;
	}
	return final;
}

/** Writes one envelope as its own spool file. */
export function writeSpoolEnvelope(
	dir: string,
	envelope: {at: string; source: AgentSource; payload: unknown; pid?: number},
): string {
	return writeSpoolFile(dir, `${JSON.stringify({...envelope, id: newSpoolName()})}\n`);
}

/** Writes raw, unparseable hook input to the spool so the fold can record it as a reject. */
export function writeSpoolRaw(dir: string, raw: string): string {
	return writeSpoolFile(dir, raw.endsWith('\n') ? raw : `${raw}\n`);
}

/** A drop marker's name ends so: an empty file saying one hook event could be written nowhere. */
const DROP_SUFFIX = '.dropped';

/**
 * Marks one hook event lost because neither the ledger nor a spool file could take it (a full
 * disk): an empty file, since a new name in an existing folder needs no data block where a line
 * would. The next fold counts the markers into the ledger's drop counter, so the loss is told.
 */
export function markDropped(dir: string): void {
	makePrivateDir(dir);
	closeSync(openSync(join(dir, `${newSpoolName()}${DROP_SUFFIX}`), 'wx', PRIVATE_FILE_MODE));
}

/**
 * Moves the drop markers into the ledger's counter. Counted before the markers are removed: a
 * crash between the two counts those drops twice, which says more than was lost, never less.
 */
function foldDropMarkers(ledger: Ledger, dir: string): number {
	let markers: string[];
	try {
		markers = readdirSync(dir).filter(name => name.endsWith(DROP_SUFFIX));
	} catch {
		return 0;
	}
	if (markers.length === 0) return 0;
	ledger.writer.bump(DROPPED_COUNTER, markers.length);
	for (const name of markers) removeFolded(join(dir, name));
	return markers.length;
}

function listSpoolFiles(dir: string): string[] {
	try {
		return readdirSync(dir)
			.filter(name => name.endsWith(SPOOL_SUFFIX) && !name.startsWith('.'))
			.sort();
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
		throw error;
	}
}

/** What a fold did: the ingest totals, the files folded, and those set aside in `spool/rejected/`. */
export type FoldStats = Omit<IngestStats, 'firstRejects'> & {
	files: number;
	setAside: number;
	/** Drop markers counted into `hook.dropped`. */ dropped: number;
};

/** The lines of a file's bytes (split on LF; the ingestor trims CR and blanks). */
function* linesOf(bytes: Buffer): Generator<Buffer> {
	let start = 0;
	for (let end = bytes.indexOf(0x0a, start); end >= 0; end = bytes.indexOf(0x0a, start)) {
		yield bytes.subarray(start, end);
		start = end + 1;
	}
	if (start < bytes.length) yield bytes.subarray(start);
}

/** Reads a spool file, or only its head when it is larger than a spool file may be. */
function readSpoolFile(file: string): {bytes: Buffer; size: number} {
	const fd = openSync(file, 'r');
	try {
		const size = fstatSync(fd).size;
		const length = size > MAX_SPOOL_FILE_BYTES ? MAX_REJECT_RAW_CHARS : size;
		const bytes = Buffer.alloc(length);
		let read = 0;
		while (read < length) {
			const got = readSync(fd, bytes, read, length - read, read);
			if (got === 0) break;
			read += got;
		}
		return {bytes: bytes.subarray(0, read), size};
	} finally {
		closeSync(fd);
	}
}

/** Moves a spool file into `rejected/` with its reasons beside it; false when another fold got there first. */
function setAside(dir: string, name: string, reasons: readonly string[]): boolean {
	const rejected = join(dir, REJECTED_DIR);
	makePrivateDir(rejected);
	try {
		renameSync(join(dir, name), join(rejected, name));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
		throw error;
	}
	try {
		writeFileSync(join(rejected, `${name}.reason`), `${reasons.join('\n')}\n`, {mode: PRIVATE_FILE_MODE});
	} catch {
		// The reasons are in the ledger's rejects too; a full disk must not stop the fold here.
	}
	return true;
}

function removeFolded(file: string): void {
	try {
		unlinkSync(file);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
	}
}

/** Folds one spool file; returns its totals and the reasons of its rejected lines. */
function foldFile(ledger: Ledger, dir: string, name: string, now: number): (IngestStats & {reasons: string[]}) | null {
	let file: {bytes: Buffer; size: number};
	try {
		file = readSpoolFile(join(dir, name));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // another fold took it
		throw error;
	}
	const origin = `spool:${name}`;
	const reasons: string[] = [];
	const ingestor = createIngestor(ledger, {origin, now, onReject: (line, reason) => reasons.push(`line ${line}: ${reason}`)});
	if (file.size > MAX_SPOOL_FILE_BYTES) {
		const reason = `file: ${file.size} bytes, over the ${MAX_SPOOL_FILE_BYTES} a spool file may hold; not read`;
		ledger.writer.reject({
			origin,
			line: null,
			reason,
			raw: file.bytes.toString('utf8'),
			rawBytes: file.size,
			dedupKey: `${origin}:file`,
		});
		return {
			lines: 0,
			appended: 0,
			rejected: 1,
			rejectsAdded: 1,
			skipped: 0,
			firstRejects: [{line: 0, reason}],
			reasons: [reason],
		};
	}
	for (const line of linesOf(file.bytes)) ingestor.push(line);
	return {...ingestor.finish(), reasons};
}

/**
 * Folds every spool file into the ledger through the same path as `ingest`, then removes it.
 * Each line's dedup key makes the fold exactly-once: a crash after the commit and before the
 * unlink leaves a file whose second fold adds nothing. A file that held bad input (a line over a
 * limit, not JSON, not UTF-8, a mapping that failed) has its rejects recorded with their reasons
 * and is moved to `spool/rejected/`, and the fold goes on with the next file; only a fault of the
 * ledger itself (busy, full, corrupt) stops the fold, leaving the files for the next pass.
 */
export function foldSpool(ledger: Ledger, dir: string, now = Date.now()): FoldStats {
	const total: FoldStats = {lines: 0, appended: 0, rejected: 0, rejectsAdded: 0, skipped: 0, files: 0, setAside: 0, dropped: 0};
	total.dropped = foldDropMarkers(ledger, dir);
	for (const name of listSpoolFiles(dir)) {
		let folded: ReturnType<typeof foldFile>;
		try {
			folded = foldFile(ledger, dir, name, now);
		} catch (error) {
			if (isStoreFault(error)) throw error;
			// Anything else that went wrong is about this file: set it aside, say why, go on.
			const reason = `file: could not be folded: ${(error as Error).message ?? String(error)}`.slice(0, 500);
			ledger.writer.reject({origin: `spool:${name}`, line: null, reason, raw: null, dedupKey: `spool:${name}:file`});
			if (setAside(dir, name, [reason])) total.setAside += 1;
			total.rejected += 1;
			continue;
		}
		if (folded === null) continue;
		total.lines += folded.lines;
		total.appended += folded.appended;
		total.rejected += folded.rejected;
		total.rejectsAdded += folded.rejectsAdded;
		total.skipped += folded.skipped;
		total.files += 1;
		if (folded.rejected > 0) {
			if (setAside(dir, name, folded.reasons)) total.setAside += 1;
		} else {
			removeFolded(join(dir, name));
		}
	}
	return total;
}
