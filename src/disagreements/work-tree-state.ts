import {spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {statSync} from 'node:fs';
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
