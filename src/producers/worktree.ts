import {spawnSync} from 'node:child_process';
import {appendFileSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync} from 'node:fs';
import {dirname, isAbsolute, join, relative, resolve, sep} from 'node:path';

/**
 * A run's own git worktree (`run --worktree [BRANCH]`, docs/wrapper.md "A worktree per run"):
 * checked before anything runs, made after the run is admitted, recorded on its task.
 */

/** Where run worktrees live, inside the repository's main checkout (kept out of `git status` by info/exclude). */
export const WORKTREES_FOLDER = join('.controlroom', 'worktrees');

/** A worktree that can be made: every check passed. */
export type WorktreePlan = {
	/** The repository's main checkout (the first entry of `git worktree list`). */
	readonly repository: string;
	/** The repository's shared git directory (`git rev-parse --git-common-dir`, absolute). */
	readonly commonDir: string;
	readonly branch: string;
	/** `<repository>/.controlroom/worktrees/<branch>`. */
	readonly path: string;
	/** The commit the branch starts from: HEAD of the folder the run was asked for. */
	readonly base: string;
	/** The branch checked out there (what `worktree remove` checks the work is merged into); null when detached. */
	readonly from: string | null;
};

/** A worktree cannot be planned or made: one line naming the problem. */
export class WorktreeError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'WorktreeError';
	}
}

type GitResult = {readonly ok: boolean; readonly out: string; readonly err: string};

function git(cwd: string, args: readonly string[]): GitResult {
	const result = spawnSync('git', ['-C', cwd, ...args], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		timeout: 20_000,
	});
	return {ok: result.status === 0, out: result.stdout ?? '', err: (result.stderr ?? '').trim().split('\n')[0] ?? ''};
}

/** The default branch of a run given `--worktree` alone. */
export function defaultBranchOf(taskId: string): string {
	return `cr/${taskId}`;
}

/** The repository's main checkout: git lists it first, whichever worktree asks. */
function mainCheckoutOf(cwd: string): string | null {
	const listed = git(cwd, ['worktree', 'list', '--porcelain']);
	if (!listed.ok) return null;
	const first = listed.out.split('\n').find(line => line.startsWith('worktree '));
	const isBare = listed.out.split('\n\n')[0]?.split('\n').includes('bare') ?? false;
	return first === undefined || isBare ? null : first.slice('worktree '.length);
}

/** The repository's shared git directory, absolute and real; null outside a repository. */
export function gitCommonDir(cwd: string): string | null {
	const found = git(cwd, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
	if (!found.ok) return null;
	const dir = found.out.trim();
	try {
		return realpathSync(isAbsolute(dir) ? dir : resolve(cwd, dir));
	} catch {
		return null;
	}
}

/** A path that goes out of `root` once symlinks are followed, or passes through a symlink under it: the first such, else null. */
function symlinkOnTheWay(root: string, target: string): string | null {
	const parts = relative(root, target).split(sep);
	let current = root;
	for (const part of parts) {
		current = join(current, part);
		let isLink: boolean;
		try {
			isLink = lstatSync(current).isSymbolicLink();
		} catch {
			return null; // not there yet: made by git below a real folder
		}
		if (isLink) return current;
	}
	return null;
}

/**
 * Checks everything `run --worktree` needs before anything is admitted or registered: a git
 * repository with a commit, a valid branch name no branch has yet, a path nothing holds, no symlink
 * on the way to it. Throws one line naming the first problem.
 */
export function planWorktree(cwd: string, branch: string): WorktreePlan {
	const commonDir = gitCommonDir(cwd);
	if (commonDir === null) throw new WorktreeError(`${cwd} is not in a git repository`);
	const repository = mainCheckoutOf(cwd);
	if (repository === null) throw new WorktreeError(`${cwd}: the repository has no main checkout to branch from (bare)`);
	const head = git(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD']);
	if (!head.ok) throw new WorktreeError(`${cwd}: the repository has no commit to start a branch from`);
	// check-ref-format refuses `..`, spaces, control characters, `~^:?*[\`, a leading `-` and the rest of git's rules.
	const isValid = branch !== '' && !branch.startsWith('-') && git(cwd, ['check-ref-format', '--branch', branch]).ok;
	if (!isValid || branch.includes('..') || branch.startsWith('@'))
		throw new WorktreeError(`'${branch}' is not a valid branch name (git check-ref-format)`);
	if (git(cwd, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`]).ok)
		throw new WorktreeError(`a branch ${branch} exists already; name another (--worktree BRANCH)`);
	const root = realpathSync(repository);
	const path = join(root, WORKTREES_FOLDER, ...branch.split('/'));
	const link = symlinkOnTheWay(root, path);
	if (link !== null) throw new WorktreeError(`${link} is a symlink; a run's worktree must stay inside ${root}`);
	if (existsSync(path) || isDanglingLink(path)) throw new WorktreeError(`${path} exists already`);
	return {repository: root, commonDir, branch, path, base: head.out.trim(), from: currentBranch(cwd)};
}

function isDanglingLink(path: string): boolean {
	try {
		lstatSync(path);
		return true;
	} catch {
		return false;
	}
}

/** Keeps the worktrees folder out of `git status` without touching a tracked file: the repository's own info/exclude. */
function excludeWorktreesFolder(plan: WorktreePlan): void {
	const probe = join(WORKTREES_FOLDER, 'probe');
	if (git(plan.repository, ['check-ignore', '--quiet', '--no-index', probe]).ok) return;
	const exclude = join(plan.commonDir, 'info', 'exclude');
	mkdirSync(dirname(exclude), {recursive: true});
	const before = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
	appendFileSync(exclude, `${before === '' || before.endsWith('\n') ? '' : '\n'}/.controlroom/\n`);
}

/**
 * Makes the branch and its worktree at the plan's base. On any failure neither is left behind
 * (a branch git made before failing is deleted) and the error names the problem.
 */
export function createWorktree(plan: WorktreePlan): void {
	const link = symlinkOnTheWay(plan.repository, plan.path);
	if (link !== null) throw new WorktreeError(`${link} is a symlink; a run's worktree must stay inside ${plan.repository}`);
	const branchRef = `refs/heads/${plan.branch}`;
	if (git(plan.repository, ['show-ref', '--verify', '--quiet', branchRef]).ok)
		throw new WorktreeError(`a branch ${plan.branch} exists already; name another (--worktree BRANCH)`);
	if (existsSync(plan.path) || isDanglingLink(plan.path)) throw new WorktreeError(`${plan.path} exists already`);
	excludeWorktreesFolder(plan);
	const added = git(plan.repository, ['worktree', 'add', '--quiet', '-b', plan.branch, plan.path, plan.base]);
	if (added.ok) return;
	// Only what this call made is undone: the branch was not there a moment ago.
	removeWorktree(plan.repository, plan.path, plan.branch);
	throw new WorktreeError(`git worktree add ${plan.path} failed: ${added.err}`);
}

/** Removes a worktree and its branch whatever they hold (the undo of a run that could not be registered). */
export function removeWorktree(repository: string, path: string, branch: string | null): void {
	if (existsSync(path)) git(repository, ['worktree', 'remove', '--force', '--force', path]);
	git(repository, ['worktree', 'prune']);
	if (branch !== null) git(repository, ['branch', '--quiet', '-D', branch]);
}

/** What stands in the way of removing a run's worktree: its uncommitted files, and its commits not on the branch it came from. */
export type WorktreeHold = {
	readonly uncommitted: number;
	/** Commits of its branch not in `into`; null when git could not compare them (taken as not merged). */
	readonly unmerged: number | null;
	/** What they were compared with: the branch it came from, else the commit it started from. */
	readonly into: string;
};

/**
 * What removing the worktree would lose: files changed or untracked in it (`git status
 * --porcelain`), and commits of its branch not merged into `from` (the branch it started from;
 * without one, or when that branch is gone, the commits after `base`). A branch that is gone
 * holds nothing.
 */
export function worktreeHold(
	repository: string,
	worktree: {path: string; branch: string; base: string | null; from: string | null},
): WorktreeHold {
	const status = existsSync(worktree.path) ? git(worktree.path, ['status', '--porcelain', '-z']) : null;
	const uncommitted = status?.ok ? status.out.split('\0').filter(entry => /^.. /.test(entry)).length : 0;
	const isBranchThere = git(repository, ['show-ref', '--verify', '--quiet', `refs/heads/${worktree.branch}`]).ok;
	const fromRef = worktree.from === null ? null : `refs/heads/${worktree.from}`;
	const isFromThere = fromRef !== null && git(repository, ['show-ref', '--verify', '--quiet', fromRef]).ok;
	const into = isFromThere ? worktree.from! : (worktree.base?.slice(0, 7) ?? 'its start');
	if (!isBranchThere) return {uncommitted, unmerged: 0, into};
	const against = isFromThere ? fromRef : worktree.base;
	const counted =
		against === null ? null : git(repository, ['rev-list', '--count', `${against}..refs/heads/${worktree.branch}`, '--']);
	const unmerged = counted?.ok ? Number(counted.out.trim()) : Number.NaN;
	return {uncommitted, unmerged: Number.isInteger(unmerged) ? unmerged : null, into};
}

/** The branch checked out where the run was asked for, or null (a detached HEAD). */
export function currentBranch(cwd: string): string | null {
	const found = git(cwd, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
	return found.ok ? found.out.trim() || null : null;
}

/**
 * Checks that a task's recorded worktree is one `run --worktree` made, before anything is removed:
 * its path strictly inside `<repository>/.controlroom/worktrees`, no symlink on the way there, and,
 * while it exists, a worktree git lists for that repository. Throws one line naming the problem;
 * so a changed ledger or a link planted later never turns `remove` on another folder.
 */
export function checkRunWorktree(repository: string, worktree: {path: string}): void {
	let root: string;
	try {
		root = realpathSync(repository);
	} catch {
		throw new WorktreeError(`the repository ${repository} is gone`);
	}
	const folder = join(root, WORKTREES_FOLDER);
	const inside = relative(folder, worktree.path);
	if (!isAbsolute(worktree.path) || inside === '' || inside.startsWith('..') || isAbsolute(inside))
		throw new WorktreeError(`${worktree.path} is not under ${folder}; only a run's worktree is removed`);
	const link = symlinkOnTheWay(root, worktree.path);
	if (link !== null) throw new WorktreeError(`${link} is a symlink; only a run's worktree inside ${folder} is removed`);
	if (!existsSync(worktree.path)) return;
	const listed = git(root, ['worktree', 'list', '--porcelain', '-z']);
	const isListed = listed.ok && listed.out.split('\0').includes(`worktree ${worktree.path}`);
	if (!isListed) throw new WorktreeError(`${worktree.path} is not a worktree of ${root}; nothing removed`);
}

/**
 * Removes a run's worktree (`--force`: whatever it holds) and then its branch when `isBranchDone`
 * (merged into where it came from, or forced); checkRunWorktree first.
 */
export function removeRunWorktree(
	repository: string,
	worktree: {path: string; branch: string},
	options: {readonly isForced: boolean; readonly isBranchDone: boolean},
): {readonly isBranchKept: boolean} {
	checkRunWorktree(repository, worktree);
	if (existsSync(worktree.path)) {
		const force = options.isForced ? ['--force', '--force'] : [];
		const removed = git(repository, ['worktree', 'remove', ...force, worktree.path]);
		if (!removed.ok) throw new WorktreeError(`git worktree remove ${worktree.path} failed: ${removed.err}`);
	}
	git(repository, ['worktree', 'prune']);
	if (!git(repository, ['show-ref', '--verify', '--quiet', `refs/heads/${worktree.branch}`]).ok) return {isBranchKept: false};
	if (!options.isBranchDone) return {isBranchKept: true};
	return {isBranchKept: !git(repository, ['branch', '--quiet', '-D', worktree.branch]).ok};
}
