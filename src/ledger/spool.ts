import {hash, randomBytes} from 'node:crypto';
import {closeSync, lstatSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import type {HookAncestor} from '../core/agent-process.ts';
import type {NewEvent} from '../core/events.ts';
import {AgentFileError, openAgentFile, readAt, replaceOwnFile} from './agent-files.ts';
import {DROPPED_COUNTER} from './counters.ts';
import {dropMarkers} from './drop-markers.ts';
import {createLineBatcher, type LineBatch} from './ingest-batch.ts';
import {lineKey} from './ingest-keys.ts';
import {decodeLine, parseJsonText, rejectReason} from './ingest-line.ts';
import {parseValue} from './ingest-map.ts';
import {emptyStats, REPORTED_REJECTS, writeLineBatch, type IngestStats} from './ingest-write.ts';
import type {Ledger} from './open-ledger.ts';
import {MAX_LINE_BYTES} from './payload-limits.ts';
import {describeIssue, spoolHeaderSchema, type AgentSource} from './payload-schema.ts';
import {makePrivateDir, PRIVATE_FILE_MODE} from './private-files.ts';
import {
	commitTranscriptRead,
	helpersFirst,
	readTranscriptSinceCursor,
	transcriptTargets,
	type TranscriptTarget,
} from './transcript-tokens.ts';
import {MAX_REJECT_RAW_CHARS, type Reject} from './writer.ts';

/** Files of the spool hook (spool-hook.sh): a one-line JSON header, then the payload as received. */
const HOOK_SUFFIX = '.spool';
/** Files of `controlroom hook --direct` when the ledger was busy: spool envelopes, one a line. */
const ENVELOPE_SUFFIX = '.jsonl';
/** Files folded per transaction: few commits for a large backlog, short holds of the write lock. */
const FILES_PER_TRANSACTION = 200;
/** A temporary file older than this was left by a hook killed while writing. */
const STALE_TEMPORARY_MS = 60_000;
/** Where spool files that held bad input are moved, with a `.reason` file beside each. */
export const REJECTED_DIR = 'rejected';
/** An envelope file holds one envelope (a hook's) or a few lines; one larger than this is set aside unread. */
export const MAX_SPOOL_FILE_BYTES = 16 * MAX_LINE_BYTES;
/** Room for a hook file's header line before its payload. */
const HOOK_HEADER_ROOM = 64 * 1024;

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
	const final = join(dir, `${id}${ENVELOPE_SUFFIX}`);
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
	envelope: {
		at: string;
		source: AgentSource;
		payload: unknown;
		pid?: number;
		wrapperTaskId?: string;
		configDir?: string;
		ancestors?: readonly HookAncestor[];
		tmux?: string;
		tmuxPane?: string;
	},
): string {
	return writeSpoolFile(dir, `${JSON.stringify({...envelope, id: newSpoolName()})}\n`);
}

/** Writes raw, unparseable hook input to the spool so the fold can record it as a reject. */
export function writeSpoolRaw(dir: string, raw: string): string {
	return writeSpoolFile(dir, raw.endsWith('\n') ? raw : `${raw}\n`);
}

function removeFolded(file: string): void {
	try {
		unlinkSync(file);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
	}
}

/**
 * Moves the drop markers into the ledger's counter. Counted before the markers are removed: a
 * crash between the two counts those drops twice, which says more than was lost, never less.
 */
function foldDropMarkers(ledger: Ledger, dir: string): number {
	const markers = dropMarkers(dir);
	if (markers.length === 0) return 0;
	ledger.writer.bump(DROPPED_COUNTER, markers.length);
	for (const name of markers) removeFolded(join(dir, name));
	return markers.length;
}

/**
 * Whether the spool folder's name is a symbolic link. The fold never follows one: it would read,
 * move and remove files wherever the link points (`doctor` names it as a problem).
 */
export function isLinkedSpool(dir: string): boolean {
	try {
		return lstatSync(dir).isSymbolicLink();
	} catch {
		return false;
	}
}

/** A file waiting in the spool. */
export type SpoolFile = {readonly name: string; readonly path: string; readonly mtimeMs: number; readonly size: number};

const isSpoolName = (name: string): boolean =>
	!name.startsWith('.') && (name.endsWith(HOOK_SUFFIX) || name.endsWith(ENVELOPE_SUFFIX));

/** The files waiting in the spool, oldest first (by the time the hook wrote them, then by name). */
export function listSpool(dir: string): SpoolFile[] {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
		throw error;
	}
	const files: SpoolFile[] = [];
	for (const name of names) {
		if (!isSpoolName(name)) continue;
		const path = join(dir, name);
		try {
			// The name's own entry, never what a link points to: the read checks the open file itself.
			const stat = lstatSync(path);
			files.push({name, path, mtimeMs: stat.mtimeMs, size: stat.size});
		} catch {
			// Folded and removed by another process meanwhile.
		}
	}
	return files.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What is waiting in the spool, for `hooks status`. */
export type SpoolBacklog = {
	readonly files: number;
	readonly bytes: number;
	/** When the oldest waiting file was written (ms), or null when none waits. */
	readonly oldestAt: number | null;
	/** Temporary files older than a minute: hooks killed while writing (their event is lost). */
	readonly staleTemporary: number;
};

/** Counts the spool's waiting files and left-over temporary ones. */
export function spoolBacklog(dir: string, now = Date.now()): SpoolBacklog {
	const files = listSpool(dir);
	let staleTemporary = 0;
	try {
		for (const name of readdirSync(dir)) {
			if (!name.startsWith('.') || !name.endsWith('.tmp')) continue;
			try {
				if (now - statSync(join(dir, name)).mtimeMs > STALE_TEMPORARY_MS) staleTemporary += 1;
			} catch {
				// Renamed or removed meanwhile.
			}
		}
	} catch {
		// No folder: nothing waits.
	}
	return {
		files: files.length,
		bytes: files.reduce((sum, file) => sum + file.size, 0),
		oldestAt: files[0]?.mtimeMs ?? null,
		staleTemporary,
	};
}

/** What one spool file holds, ready to be written. */
export type SpoolContent =
	/** Keyed events and rejects, the same shape `ingest` writes. */
	| {readonly kind: 'batch'; readonly batch: LineBatch; readonly at: number}
	/** Removed by another fold between the listing and the read. */
	| {readonly kind: 'gone'}
	/** Could not be read as a spool file at all (a folder, unreadable): set aside with the reason. */
	| {readonly kind: 'fault'; readonly reason: string};

const isGone = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

function rejectBatch(reject: Reject): LineBatch {
	return {events: [], legacyKeys: null, rejects: [reject], inputs: [], lines: 1, skipped: 0};
}

/**
 * A spool file, opened as every file an agent could have written is (agent-files.ts: no link
 * followed, no blocking on a FIFO, checked on the descriptor to be a regular file), and read
 * whole when it is at most `wholeBytes`, else only its first `headBytes` (a file too large to
 * read whole is kept only in part, as a reject). `size` is the open file's own size.
 */
function readSpoolBytes(path: string, wholeBytes: number, headBytes: number): {bytes: Buffer; size: number} {
	const file = openAgentFile(path, Number.POSITIVE_INFINITY, {isOneNameOnly: true});
	try {
		const isWhole = file.size <= wholeBytes;
		// A file that grows while it is read is read only up to what its size allowed.
		return {bytes: readAt(file.fd, 0, isWhole ? file.size : headBytes), size: file.size};
	} finally {
		closeSync(file.fd);
	}
}

/**
 * Reads a spool hook file (spool-hook.sh; format in docs/hooks.md): the header's JSON, then the
 * payload exactly as the agent sent it. Any fault in it (a header that does not parse, a payload
 * too large, not JSON, not a payload) is one reject naming the fault, keeping the payload's first
 * 64 KiB and its size; the file never stops the fold.
 */
function readHookFile(file: SpoolFile, now: number): SpoolContent {
	const origin = `spool:${file.name}`;
	const reject = (reason: string, raw: string, rawBytes: number): SpoolContent => ({
		kind: 'batch',
		at: now,
		batch: rejectBatch({origin, line: null, reason, raw: raw.slice(0, MAX_REJECT_RAW_CHARS), rawBytes, dedupKey: origin}),
	});
	const headerRoom = HOOK_HEADER_ROOM;
	const {bytes, size} = readSpoolBytes(file.path, MAX_LINE_BYTES + headerRoom, headerRoom + MAX_REJECT_RAW_CHARS * 4);
	const newline = bytes.indexOf(0x0a);
	if (newline < 0 || newline > headerRoom) return reject('spool header: no header line', bytes.toString('utf8'), size);
	const payloadBytes = size - newline - 1;
	const payloadText = bytes.toString('utf8', newline + 1);
	let header: unknown;
	try {
		header = JSON.parse(bytes.toString('utf8', 0, newline));
	} catch {
		return reject('spool header: not valid JSON', payloadText, payloadBytes);
	}
	const parsed = spoolHeaderSchema.safeParse(header);
	if (!parsed.success) return reject(`spool header ${describeIssue(parsed.error)}`, payloadText, payloadBytes);
	const {source, origin: hookOrigin = 'stdin', pid, wrapperTaskId, configDir, ancestors, tmux, tmuxPane} = parsed.data;
	const at = parsed.data.at === undefined ? Math.round(file.mtimeMs) : Date.parse(parsed.data.at);
	if (payloadBytes > MAX_LINE_BYTES) {
		return reject(`${hookOrigin}: larger than ${MAX_LINE_BYTES} bytes`, payloadText, payloadBytes);
	}
	if (payloadText.trim().length === 0) {
		return reject(hookOrigin === 'notify' ? 'notify: no JSON argument' : 'stdin: empty', payloadText, payloadBytes);
	}
	let value: unknown;
	try {
		// The same edge as every line: UTF-8 and nesting, before JSON.
		value = parseJsonText(decodeLine(bytes.subarray(newline + 1), payloadBytes));
	} catch (error) {
		const reason = rejectReason(error);
		return reject(reason === 'line: not valid JSON' ? 'payload: not valid JSON' : reason, payloadText, payloadBytes);
	}
	let events: NewEvent[];
	try {
		events = parseValue(value, {
			agent: source,
			now: at,
			pid: pid ?? null,
			wrapperTaskId: wrapperTaskId ?? null,
			configDir: configDir ?? null,
			ancestors: ancestors ?? null,
			tmux: tmux ?? null,
			tmuxPane: tmuxPane ?? null,
		});
	} catch (error) {
		return reject(rejectReason(error), payloadText, payloadBytes);
	}
	// The file's name is a fresh random id: with the time in front, the key is unique and stays the
	// same when a fold that died before removing the file reads it again.
	const key = lineKey(at, hash('sha1', file.name, 'base64url'), 1);
	events.forEach((event, index) => ((event as {dedupKey?: string | null}).dedupKey = `${key}:${index}`));
	return {
		kind: 'batch',
		at,
		batch: {events, legacyKeys: null, rejects: [], inputs: [{line: 1, events: events.length}], lines: 1, skipped: 0},
	};
}

/** Reads an envelope file (`controlroom hook --direct` when the ledger was busy) through the same path as `ingest`. */
function readEnvelopeFile(file: SpoolFile, now: number, withLegacyKeys: boolean): SpoolContent {
	const origin = `spool:${file.name}`;
	const {bytes, size} = readSpoolBytes(file.path, MAX_SPOOL_FILE_BYTES, MAX_REJECT_RAW_CHARS);
	if (size > MAX_SPOOL_FILE_BYTES) {
		const reason = `file: ${size} bytes, over the ${MAX_SPOOL_FILE_BYTES} a spool file may hold; not read`;
		const head = bytes;
		return {
			kind: 'batch',
			at: now,
			batch: rejectBatch({
				origin,
				line: null,
				reason,
				raw: head.toString('utf8'),
				rawBytes: size,
				dedupKey: `${origin}:file`,
			}),
		};
	}
	// Split on bytes, not decoded text: invalid UTF-8 is refused by the edge, not patched by a decoder.
	const batches: LineBatch[] = [];
	const batcher = createLineBatcher({origin, now, withLegacyKeys}, batch => batches.push(batch));
	let start = 0;
	for (let end = bytes.indexOf(0x0a, start); end >= 0; end = bytes.indexOf(0x0a, start)) {
		batcher.push(bytes.subarray(start, end));
		start = end + 1;
	}
	if (start < bytes.length) batcher.push(bytes.subarray(start));
	batcher.finish();
	const batch: LineBatch = {
		events: batches.flatMap(part => part.events),
		legacyKeys: withLegacyKeys ? batches.flatMap(part => part.legacyKeys ?? []) : null,
		rejects: batches.flatMap(part => part.rejects),
		inputs: batches.flatMap(part => part.inputs),
		lines: batches.reduce((sum, part) => sum + part.lines, 0),
		skipped: batches.reduce((sum, part) => sum + part.skipped, 0),
	};
	return {kind: 'batch', at: batch.events.at(-1)?.at ?? now, batch};
}

/**
 * Reads one spool file into what the ledger is to record: keyed events, or the reject that says
 * why there are none. The one place that decides what a spool file means; every fault of the
 * file's own is a reject, never an exception that would stop the fold.
 */
export function readSpoolFile(file: SpoolFile, options: {readonly now: number; readonly withLegacyKeys: boolean}): SpoolContent {
	try {
		return file.name.endsWith(HOOK_SUFFIX)
			? readHookFile(file, options.now)
			: readEnvelopeFile(file, options.now, options.withLegacyKeys);
	} catch (error) {
		if (error instanceof AgentFileError) {
			if (error.problem === 'missing') return {kind: 'gone'};
			// A link, a FIFO, a device, a folder by a spool name: never followed, opened or waited on.
			return {kind: 'fault', reason: `file: not folded: it ${error.detail}`};
		}
		if (isGone(error)) return {kind: 'gone'};
		// Anything else is about this file (unreadable): say why, go on.
		const message = error instanceof Error ? error.message : String(error);
		return {kind: 'fault', reason: `file: could not be folded: ${message}`.slice(0, 500)};
	}
}

/** The events of each input line (their keys share everything before `:index`), in order. */
function byInputLine(events: readonly NewEvent[]): NewEvent[][] {
	const lines = new Map<string, NewEvent[]>();
	for (const event of events) {
		const key = event.dedupKey ?? '';
		const line = key.slice(0, key.lastIndexOf(':'));
		const group = lines.get(line);
		if (group) group.push(event);
		else lines.set(line, [event]);
	}
	return [...lines.values()];
}

/**
 * Reads what the transcripts of these events grew by since their cursors and records it as
 * tokens, as the Node hook does on each event: once per transcript for the whole group, inside
 * the group's transaction, at the time of the latest event that named it.
 */
function recordTranscripts(ledger: Ledger, batches: readonly {batch: LineBatch; at: number}[]): void {
	const latest = new Map<string, {target: TranscriptTarget; at: number; source: string}>();
	for (const {batch} of batches) {
		for (const events of byInputLine(batch.events)) {
			const agentEvent = events.find(event => event.type === 'agent.event');
			const payload = agentEvent?.type === 'agent.event' ? agentEvent.data.payload : null;
			if (!agentEvent || !payload || typeof payload !== 'object' || Array.isArray(payload)) continue;
			for (const target of transcriptTargets(payload as Record<string, unknown>, events)) {
				latest.set(target.path, {target, at: agentEvent.at, source: agentEvent.source});
			}
		}
	}
	// Helpers' transcripts first: a session's own count (cost-state) is settled against theirs (transcript-tokens.ts).
	for (const {target, at, source} of [...latest.values()].sort((a, b) => helpersFirst(a.target.path, b.target.path))) {
		try {
			const read = readTranscriptSinceCursor(ledger, target);
			if (read) commitTranscriptRead(ledger, read, {at, source});
		} catch {
			// Token counts are optional: an unreadable transcript leaves them unknown, never stops the fold.
		}
	}
}

/** What a fold did: the ingest totals, the files folded, those set aside in `spool/rejected/`, the drops counted. */
export type FoldStats = IngestStats & {
	files: number;
	setAside: number;
	/** Drop markers counted into `hook.dropped`. */
	dropped: number;
};

/**
 * Whether `spool/rejected/` is a folder of the spool's own (made here when missing). An agent
 * can write in the spool: a link planted under that name would send the set-aside files, and
 * their reasons, wherever it points.
 */
function rejectedFolder(dir: string): string | null {
	const rejected = join(dir, REJECTED_DIR);
	makePrivateDir(rejected);
	try {
		const stat = lstatSync(rejected);
		return stat.isDirectory() && !stat.isSymbolicLink() ? rejected : null;
	} catch {
		return null;
	}
}

/**
 * Moves a spool file into `rejected/` with its reasons beside it; false when another fold got
 * there first, or when `rejected/` is not a real folder (the file then stays; doctor says why).
 * The rename moves the name itself, never what a link points to, and the reasons replace
 * whatever is planted under their name (agent-files.ts, replaceOwnFile).
 */
function setAside(dir: string, name: string, reasons: readonly string[]): boolean {
	let rejected: string | null;
	try {
		rejected = rejectedFolder(dir);
	} catch {
		rejected = null;
	}
	if (rejected === null) return false;
	try {
		renameSync(join(dir, name), join(rejected, name));
	} catch (error) {
		if (isGone(error)) return false;
		throw error;
	}
	try {
		replaceOwnFile(join(rejected, `${name}.reason`), `${reasons.join('\n')}\n`);
	} catch {
		// The reasons are in the ledger's rejects too; a full disk must not stop the fold here.
	}
	return true;
}

const describeReject = (reject: Reject): string =>
	reject.line === null ? reject.reason : `line ${reject.line}: ${reject.reason}`;

/**
 * Folds every spool file into the ledger, oldest first, a group of files per transaction, then
 * removes them. Each event's key makes the fold exactly-once: a crash after a commit and before
 * the removal leaves files whose second fold adds nothing, and two folds at once (the board and a
 * reconciler) add each event once. A file that held bad input (a line over a limit, not JSON, not
 * UTF-8, a mapping that failed, a file that cannot be read) has its rejects recorded with their
 * reasons and is moved to `spool/rejected/`, and the fold goes on; only a fault of the ledger
 * itself (busy, full, corrupt) stops the fold, leaving the files for the next pass.
 */
export function foldSpool(ledger: Ledger, dir: string, now = Date.now()): FoldStats {
	const total: FoldStats = {...emptyStats(), files: 0, setAside: 0, dropped: 0};
	// A spool folder replaced by a link would have the fold read, move and remove files elsewhere.
	if (isLinkedSpool(dir)) return total;
	total.dropped = foldDropMarkers(ledger, dir);
	const files = listSpool(dir);
	if (files.length === 0) return total;
	const withLegacyKeys = ledger.reader.hasLegacyLineKeys();
	for (let start = 0; start < files.length; start += FILES_PER_TRANSACTION) {
		const group = files.slice(start, start + FILES_PER_TRANSACTION);
		const read = group.map(file => ({file, content: readSpoolFile(file, {now, withLegacyKeys})}));
		const batches = read.flatMap(({content}) => (content.kind === 'batch' ? [{batch: content.batch, at: content.at}] : []));
		const rejectsOf = new Map<string, Reject[]>();
		ledger.writer.transaction(() => {
			for (const {file, content} of read) {
				if (content.kind === 'batch') {
					const rejects = writeLineBatch(ledger, content.batch, total, {origin: `spool:${file.name}`});
					if (rejects.length > 0) rejectsOf.set(file.name, rejects);
				} else if (content.kind === 'fault') {
					const origin = `spool:${file.name}`;
					const reject: Reject = {origin, line: null, reason: content.reason, raw: null, dedupKey: `${origin}:file`};
					if (ledger.writer.reject(reject)) total.rejectsAdded += 1;
					total.rejected += 1;
					if (total.firstRejects.length < REPORTED_REJECTS) total.firstRejects.push({line: 0, reason: content.reason});
					rejectsOf.set(file.name, [reject]);
				}
			}
			recordTranscripts(ledger, batches);
		});
		for (const {file, content} of read) {
			if (content.kind === 'gone') continue;
			total.files += 1;
			const rejects = rejectsOf.get(file.name);
			if (rejects) {
				if (setAside(dir, file.name, rejects.map(describeReject))) total.setAside += 1;
			} else {
				removeFolded(file.path);
			}
		}
	}
	return total;
}

/** Whether a hook can write its spool files there, and if not, why. */
export type SpoolWritability = {readonly isWritable: true} | {readonly isWritable: false; readonly reason: string};

function probe(dir: string): SpoolWritability {
	const name = join(dir, `.probe-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
	try {
		writeFileSync(name, '', {flag: 'wx', mode: PRIVATE_FILE_MODE});
		unlinkSync(name);
		return {isWritable: true};
	} catch (error) {
		return {isWritable: false, reason: `cannot create a file in ${dir} (${(error as NodeJS.ErrnoException).code ?? 'error'})`};
	}
}

/**
 * Checks, by trying, what the spool hook will meet: a folder it can create a file in, or, when
 * there is none yet, a nearest existing folder above it that it can create the spool in.
 */
export function spoolWritability(dir: string): SpoolWritability {
	let missing = dir;
	for (;;) {
		let stat;
		try {
			stat = statSync(missing);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code !== 'ENOENT') return {isWritable: false, reason: `cannot reach ${missing} (${code ?? 'error'})`};
			const parent = join(missing, '..');
			if (parent === missing) return {isWritable: false, reason: `no folder above ${dir} exists`};
			missing = parent;
			continue;
		}
		if (!stat.isDirectory()) {
			return {
				isWritable: false,
				reason: `${missing} is not a folder, so ${missing === dir ? 'nothing can be written in it' : `${dir} cannot be created`}`,
			};
		}
		return missing === dir ? probe(dir) : probe(missing);
	}
}
