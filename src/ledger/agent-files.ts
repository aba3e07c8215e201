import {randomBytes} from 'node:crypto';
import {
	closeSync,
	constants,
	fstatSync,
	openSync,
	readSync,
	realpathSync,
	renameSync,
	unlinkSync,
	writeSync,
	type Stats,
} from 'node:fs';
import {basename, dirname, isAbsolute, join, normalize, relative, sep} from 'node:path';
import {PRIVATE_FILE_MODE} from './private-files.ts';

// An agent can write wherever controlroom reads its files from (the spool, contracts, orders,
// reports, evidence, transcripts, task logs). It may put a link there (to a secret, to /dev/zero),
// a FIFO (whose open blocks until a writer comes), or a file of any size. (Node opens every file
// close-on-exec already.) So such a file is opened
// without following a link and without blocking, and checked on the open descriptor, never by
// name first (a FIFO swapped in between a stat and an open defeats that). docs/security.md, "Files
// an agent can write".

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Why a file an agent could have written was not read. */
export type AgentFileProblem =
	| 'missing'
	| 'link'
	| 'hard link'
	| 'fifo'
	| 'device'
	| 'socket'
	| 'folder'
	| 'too large'
	| 'not UTF-8'
	| 'unreadable'
	| 'outside';

/** A file an agent could have written that is not a regular file of a sane size (the message names the problem, never the content). */
export class AgentFileError extends Error {
	readonly path: string;
	readonly problem: AgentFileProblem;
	/** The problem in words, without the path (`is a FIFO, not a regular file`). */
	readonly detail: string;
	constructor(path: string, problem: AgentFileProblem, detail: string) {
		super(`${path}: ${detail}`);
		this.name = 'AgentFileError';
		this.path = path;
		this.problem = problem;
		this.detail = detail;
	}
}

/** An agent's file, open and checked: a regular file no larger than the caller's limit. */
export type OpenAgentFile = {readonly fd: number; readonly size: number; readonly stats: Stats};

const KIND_OF = (stats: Stats): AgentFileProblem | null => {
	if (stats.isFile()) return null;
	if (stats.isFIFO()) return 'fifo';
	if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'device';
	if (stats.isSocket()) return 'socket';
	if (stats.isDirectory()) return 'folder';
	return 'unreadable';
};

const DESCRIBE: Record<AgentFileProblem, string> = {
	missing: 'no such file',
	link: 'is a symbolic link (not followed)',
	'hard link': 'has other names (a hard link), so it may be a copy of a file from elsewhere',
	fifo: 'is a FIFO, not a regular file',
	device: 'is a device, not a regular file',
	socket: 'is a socket, not a regular file',
	folder: 'is a folder, not a regular file',
	'too large': 'is too large',
	'not UTF-8': 'is not valid UTF-8 text',
	unreadable: 'cannot be read',
	outside: 'is not under a folder it may be read from',
};

const openError = (path: string, error: unknown): AgentFileError => {
	const code = (error as {code?: unknown} | null)?.code;
	if (code === 'ENOENT' || code === 'ENOTDIR') return new AgentFileError(path, 'missing', DESCRIBE.missing);
	// O_NOFOLLOW on a link: Linux says ELOOP, the BSDs and macOS EMLINK or EFTYPE.
	if (code === 'ELOOP' || code === 'EMLINK' || code === 'EFTYPE') return new AgentFileError(path, 'link', DESCRIBE.link);
	// A device that cannot be opened without blocking (a tty, some character devices).
	if (code === 'ENXIO' || code === 'EAGAIN') return new AgentFileError(path, 'device', DESCRIBE.device);
	if (code === 'EISDIR') return new AgentFileError(path, 'folder', DESCRIBE.folder);
	return new AgentFileError(path, 'unreadable', `${DESCRIBE.unreadable} (${typeof code === 'string' ? code : 'error'})`);
};

/** What else a caller asks of the file. */
export type AgentFileOptions = {
	/**
	 * Refuse a file with other hard links. Where controlroom alone makes the files (the spool: each
	 * made once and renamed into place), a second name means someone linked another file in.
	 */
	readonly isOneNameOnly?: boolean;
};

/**
 * Opens a file an agent could have written for reading: no link followed, no blocking, then
 * checked on the descriptor to be a regular file of at most `maxBytes`. Throws AgentFileError
 * otherwise; the caller closes `fd`.
 */
export function openAgentFile(path: string, maxBytes: number, options: AgentFileOptions = {}): OpenAgentFile {
	let fd: number;
	try {
		fd = openSync(path, READ_FLAGS);
	} catch (error) {
		throw openError(path, error);
	}
	try {
		const stats = fstatSync(fd);
		const kind = KIND_OF(stats);
		if (kind !== null) throw new AgentFileError(path, kind, DESCRIBE[kind]);
		if (options.isOneNameOnly && stats.nlink > 1) throw new AgentFileError(path, 'hard link', DESCRIBE['hard link']);
		if (stats.size > maxBytes) {
			throw new AgentFileError(path, 'too large', `${DESCRIBE['too large']} (${stats.size} bytes; the limit is ${maxBytes})`);
		}
		return {fd, size: stats.size, stats};
	} catch (error) {
		closeSync(fd);
		throw error;
	}
}

/** A folder's real path, or null when it cannot be resolved (gone, unreadable). */
function realFolder(path: string): string | null {
	try {
		return realpathSync(path);
	} catch {
		return null;
	}
}

/**
 * Opens a file an agent could have written whose path came from the agent (a transcript path in a
 * hook payload), only when it lies under one of `roots` with no link anywhere between that root
 * and the file: the path is absolute and normal (no `..`), its folder's real path is the root's
 * real path with the same folders below it, and the file itself is opened as openAgentFile opens
 * it. A link above the root (a home folder reached through one) is the person's own and allowed.
 */
export function openAgentFileUnder(path: string, roots: readonly string[], maxBytes: number): OpenAgentFile {
	if (!isAbsolute(path) || normalize(path) !== path) throw new AgentFileError(path, 'outside', 'is not a plain absolute path');
	const folder = dirname(path);
	const root = roots.find(candidate => candidate !== '' && (folder === candidate || folder.startsWith(`${candidate}${sep}`)));
	if (root === undefined) throw new AgentFileError(path, 'outside', `${DESCRIBE.outside} (${roots.join(', ') || 'none'})`);
	const realRoot = realFolder(root);
	const real = realFolder(folder);
	if (real === null || realRoot === null) throw new AgentFileError(path, 'missing', DESCRIBE.missing);
	if (real !== join(realRoot, relative(root, folder))) {
		throw new AgentFileError(path, 'link', 'has a symbolic link among its folders (not followed)');
	}
	return openAgentFile(path, maxBytes);
}

/** Reads up to `length` bytes at `position` of an open file (fewer at its end). */
export function readAt(fd: number, position: number, length: number): Buffer {
	const buffer = Buffer.allocUnsafe(length);
	let filled = 0;
	while (filled < length) {
		const got = readSync(fd, buffer, filled, length - filled, position + filled);
		if (got === 0) break;
		filled += got;
	}
	return buffer.subarray(0, filled);
}

/** The last `bytes` of an open file, and whether anything before them was left out. */
export function readTail(file: OpenAgentFile, bytes: number): {bytes: Buffer; isCut: boolean} {
	const start = Math.max(0, file.size - bytes);
	return {bytes: readAt(file.fd, start, file.size - start), isCut: start > 0};
}

/**
 * Reads a whole file an agent could have written, checked as openAgentFile checks it. A file
 * that grows while it is read is read only up to `maxBytes`, and then refused as too large.
 */
export function readAgentFile(path: string, maxBytes: number): Buffer {
	const file = openAgentFile(path, maxBytes);
	try {
		const bytes = readAt(file.fd, 0, maxBytes + 1);
		if (bytes.length > maxBytes)
			throw new AgentFileError(path, 'too large', `${DESCRIBE['too large']} (it grew past ${maxBytes} bytes)`);
		return bytes;
	} finally {
		closeSync(file.fd);
	}
}

const STRICT_UTF8 = new TextDecoder('utf-8', {fatal: true, ignoreBOM: false});

/** Decodes bytes as UTF-8 or throws AgentFileError (Latin-1 and binary are refused, never guessed). */
export function decodeAgentText(path: string, bytes: Uint8Array): string {
	try {
		return STRICT_UTF8.decode(bytes);
	} catch {
		throw new AgentFileError(path, 'not UTF-8', DESCRIBE['not UTF-8']);
	}
}

/** Reads a whole text file an agent could have written: checked as readAgentFile, then strict UTF-8. */
export function readAgentText(path: string, maxBytes: number): string {
	return decodeAgentText(path, readAgentFile(path, maxBytes));
}

/**
 * Writes one of controlroom's own files where an agent can write too, without ever writing
 * through what is there: the bytes go to a new file (created exclusively, owner-only) beside it,
 * which then replaces the name. A link or a hard link planted under the name is replaced, its
 * target untouched.
 */
export function replaceOwnFile(path: string, data: string | Uint8Array, mode: number = PRIVATE_FILE_MODE): void {
	const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
	const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
	try {
		const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
		let written = 0;
		while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
	} catch (error) {
		closeSync(fd);
		unlinkSync(temporary);
		throw error;
	}
	closeSync(fd);
	try {
		renameSync(temporary, path);
	} catch (error) {
		unlinkSync(temporary);
		throw error;
	}
}
