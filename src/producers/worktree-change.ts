import {spawnSync} from 'node:child_process';
import {closeSync, lstatSync, openSync, readSync} from 'node:fs';
import {join} from 'node:path';

/** How many files a measure names one by one; the rest are counted in `more`. */
const STAT_FILES = 50;
/** An untracked file's lines are counted in its first MiB; a longer one counts what that holds. */
const UNTRACKED_READ_BYTES = 1024 * 1024;

/** One file's change: lines added and removed, null for a binary file. */
export type FileChange = {readonly path: string; readonly added: number | null; readonly removed: number | null};

/** The change on a worktree's branch against where it started: committed, staged, edited and untracked files. */
export type WorktreeChange = {
	readonly files: number;
	readonly added: number;
	readonly removed: number;
	readonly stat: readonly FileChange[];
	readonly more: number;
};

function git(cwd: string, args: readonly string[]): string | null {
	const result = spawnSync('git', ['-C', cwd, ...args], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'ignore'],
		timeout: 10_000,
		maxBuffer: 16 * 1024 * 1024,
	});
	return result.status === 0 ? result.stdout : null;
}

/** Lines in the first MiB of an untracked file; null when it holds a NUL (binary) or cannot be read (a FIFO is never opened). */
function untrackedLines(path: string): number | null {
	let fd: number | null = null;
	try {
		if (!lstatSync(path).isFile()) return null;
		fd = openSync(path, 'r', 0o0);
		const buffer = Buffer.alloc(UNTRACKED_READ_BYTES);
		const read = readSync(fd, buffer, 0, buffer.length, 0);
		const bytes = buffer.subarray(0, read);
		if (bytes.includes(0)) return null;
		let lines = 0;
		for (const byte of bytes) if (byte === 0x0a) lines += 1;
		return read > 0 && bytes[read - 1] !== 0x0a ? lines + 1 : lines;
	} catch {
		return null;
	} finally {
		if (fd !== null) closeSync(fd);
	}
}

/** `git diff --numstat -z` output: `added\tremoved\tpath\0` (`-\t-` for binary; renames are off). */
function numstat(out: string): FileChange[] {
	const changes: FileChange[] = [];
	for (const entry of out.split('\0')) {
		const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(entry);
		if (!match) continue;
		const [, added = '-', removed = '-', path = ''] = match;
		changes.push({path, added: added === '-' ? null : Number(added), removed: removed === '-' ? null : Number(removed)});
	}
	return changes;
}

/**
 * Measures a worktree's change against `base`: tracked files as `git diff --numstat BASE` (its
 * commits, staged and unstaged edits), untracked files (not ignored) as all added. Two git calls;
 * null when git cannot read the worktree (removed, not a repository).
 */
export function measureWorktree(path: string, base: string): WorktreeChange | null {
	const tracked = git(path, ['diff', '--numstat', '-z', '--no-renames', base, '--']);
	const untracked = git(path, ['ls-files', '--others', '--exclude-standard', '-z']);
	if (tracked === null || untracked === null) return null;
	const files = numstat(tracked);
	for (const file of untracked.split('\0').filter(Boolean)) {
		const lines = untrackedLines(join(path, file));
		files.push({path: file, added: lines, removed: lines === null ? null : 0});
	}
	return {
		files: files.length,
		added: files.reduce((sum, file) => sum + (file.added ?? 0), 0),
		removed: files.reduce((sum, file) => sum + (file.removed ?? 0), 0),
		stat: files.slice(0, STAT_FILES),
		more: Math.max(0, files.length - STAT_FILES),
	};
}

/** Whether two measures say the same (a heartbeat records a measure only when it differs from the last). */
export function isSameChange(left: WorktreeChange | null, right: WorktreeChange | null): boolean {
	return JSON.stringify(left) === JSON.stringify(right);
}
