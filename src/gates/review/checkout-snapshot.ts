import {spawnSync} from 'node:child_process';
import {copyFileSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, relative} from 'node:path';

/** A copy of a checkout for a reviewer to read: where it runs, and how it is taken away. */
export type CheckoutSnapshot = {
	/** The reviewer's folder in the copy (the reviewed folder's place in it). */
	readonly cwd: string;
	readonly dir: string;
	remove(): void;
};

function git(cwd: string, args: readonly string[], input?: Buffer): {ok: boolean; out: Buffer} {
	const result = spawnSync('git', ['-C', cwd, ...args], {input, maxBuffer: 512 * 1024 * 1024});
	return {ok: result.status === 0, out: result.stdout ?? Buffer.alloc(0)};
}

/**
 * A separate work tree of the reviewed checkout at its HEAD (`git worktree add --detach`) carrying
 * the uncommitted changes under review (the diff against HEAD applied, the untracked files copied):
 * the reviewer reads the same work and writes only there. Null when the folder is no git work tree
 * with a commit, or the copy cannot be made (the reviewer then runs in the checkout, fingerprinted
 * as before).
 */
export function snapshotCheckout(cwd: string): CheckoutSnapshot | null {
	const top = git(cwd, ['rev-parse', '--show-toplevel']);
	if (!top.ok || !git(cwd, ['rev-parse', '--verify', '-q', 'HEAD']).ok) return null;
	const root = top.out.toString('utf8').trim();
	const dir = mkdtempSync(join(tmpdir(), 'controlroom-review-'));
	const remove = (): void => {
		git(root, ['worktree', 'remove', '--force', dir]);
		rmSync(dir, {recursive: true, force: true});
		git(root, ['worktree', 'prune']);
	};
	try {
		if (!git(root, ['worktree', 'add', '--detach', '--quiet', dir, 'HEAD']).ok) throw new Error('worktree add');
		const diff = git(root, ['diff', 'HEAD', '--binary', '--no-color', '--no-ext-diff']);
		if (diff.out.length > 0 && !git(dir, ['apply', '--whitespace=nowarn', '-'], diff.out).ok) throw new Error('apply');
		const untracked = git(root, ['ls-files', '--others', '--exclude-standard', '-z']).out.toString('utf8');
		for (const path of untracked.split('\0').filter(Boolean)) {
			const from = join(root, path);
			// Only regular files are copied: a FIFO or a device is not work under review.
			if (!lstatSync(from).isFile()) continue;
			mkdirSync(dirname(join(dir, path)), {recursive: true});
			copyFileSync(from, join(dir, path));
		}
		return {cwd: join(dir, relative(root, realpathSync(cwd))), dir, remove};
	} catch {
		remove();
		return null;
	}
}
