import {spawnSync} from 'node:child_process';

/**
 * The commit checked out in `cwd` (`git rev-parse HEAD`), or null when `cwd` is not in a git work
 * tree, has no commit yet, or git is not installed. Recorded when a task starts, so its diff is
 * the task's own (docs/review.md).
 */
export function headRevision(cwd: string): string | null {
	const result = spawnSync('git', ['-C', cwd, 'rev-parse', '--verify', '--quiet', 'HEAD'], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'ignore'],
		timeout: 5000,
	});
	const revision = result.status === 0 ? result.stdout.trim() : '';
	return /^[0-9a-f]{40,64}$/.test(revision) ? revision : null;
}
