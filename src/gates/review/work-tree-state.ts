import {spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {readFileSync, statSync} from 'node:fs';
import {join} from 'node:path';

function git(cwd: string, args: readonly string[]): string | null {
	const result = spawnSync('git', ['-C', cwd, ...args], {encoding: 'utf8', maxBuffer: 256 * 1024 * 1024});
	return result.status === 0 ? result.stdout : null;
}

/**
 * A fingerprint of a git work tree's changes (the diff against HEAD, and each untracked file's
 * size and time), or null outside a work tree: taken before and after a read-only reviewer runs,
 * a difference means it wrote.
 */
export function workTreeFingerprint(cwd: string): string | null {
	const root = git(cwd, ['rev-parse', '--show-toplevel'])?.trim();
	if (!root) return null;
	const hash = createHash('sha1');
	hash.update(git(root, ['diff', 'HEAD', '--no-color', '--no-ext-diff', '--binary']) ?? '');
	for (const path of (git(root, ['ls-files', '--others', '--exclude-standard', '-z']) ?? '').split('\0').filter(Boolean)) {
		try {
			const stat = statSync(join(root, path));
			hash.update(`\0${path}\0${stat.size}\0${stat.mtimeMs}`);
		} catch {
			hash.update(`\0${path}\0gone`);
		}
	}
	return hash.digest('hex');
}

/** A file larger than this is compared by size and time, not read whole. */
const CONTENT_HASH_LIMIT = 16 * 1024 * 1024;

/** What a work tree holds beyond its commit: HEAD, and each changed or untracked file's digest. */
export type WorkTreeState = {
	readonly root: string;
	readonly head: string;
	readonly files: ReadonlyMap<string, string>;
};

function nulList(text: string | null): string[] {
	return (text ?? '').split('\0').filter(Boolean);
}

function fileDigest(path: string): string {
	try {
		const stat = statSync(path);
		if (!stat.isFile() || stat.size > CONTENT_HASH_LIMIT) return `${stat.size}\0${stat.mtimeMs}\0${stat.mode}`;
		return createHash('sha1').update(readFileSync(path)).digest('hex');
	} catch {
		return 'gone';
	}
}

/**
 * A work tree's state with its paths (HEAD, and every file that differs from it or is untracked,
 * with a digest of its content), or null outside a work tree: taken before and after a reviewer
 * runs, so what it changed can be named, a commit included.
 */
export function workTreeState(cwd: string): WorkTreeState | null {
	const root = git(cwd, ['rev-parse', '--show-toplevel'])?.trim();
	if (!root) return null;
	const head = git(root, ['rev-parse', '--verify', '-q', 'HEAD'])?.trim() ?? '';
	const paths = new Set([
		...nulList(git(root, ['diff', 'HEAD', '--name-only', '--no-renames', '-z'])),
		...nulList(git(root, ['ls-files', '--others', '--exclude-standard', '-z'])),
	]);
	return {root, head, files: new Map([...paths].map(path => [path, fileDigest(join(root, path))]))};
}

/** The paths that differ between two states of one work tree (a moved HEAD brings the files it changed), sorted. */
export function changedPaths(before: WorkTreeState, after: WorkTreeState): string[] {
	const changed = new Set<string>();
	for (const path of new Set([...before.files.keys(), ...after.files.keys()]))
		if (before.files.get(path) !== after.files.get(path)) changed.add(path);
	if (before.head !== after.head) {
		const committed =
			before.head && after.head ? git(after.root, ['diff', '--name-only', '--no-renames', '-z', before.head, after.head]) : null;
		for (const path of nulList(committed)) changed.add(path);
		if (committed === null) changed.add(`HEAD (${before.head.slice(0, 12) || 'none'} → ${after.head.slice(0, 12) || 'none'})`);
	}
	return [...changed].sort();
}
