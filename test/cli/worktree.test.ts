import {execFileSync} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {newEvent} from '../../src/core/events.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {runAsPerson} from '../helpers/person.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';
import {sandbox, startCli} from '../producers/helpers.ts';

const open: Ledger[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
});

const GIT_ENV = {GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t'};
const git = (cwd: string, ...args: string[]): string =>
	execFileSync('git', ['-C', cwd, ...args], {encoding: 'utf8', env: {...process.env, ...GIT_ENV}}).trim();

/** A repository with one commit on main. */
function repository(): string {
	const repo = join(scratchDir('cr-wtcli-'), 'repo');
	mkdirSync(repo);
	git(repo, 'init', '--quiet', '--initial-branch=main');
	writeFileSync(join(repo, 'README'), 'hello\n');
	git(repo, 'add', 'README');
	git(repo, 'commit', '--quiet', '-m', 'start');
	return repo;
}

const branches = (repo: string): string[] => git(repo, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean);

/** The id of the task whose worktree is on `branch`. */
function taskOnBranch(ledgerFile: string, branch: string): string {
	const ledger = openLedger(ledgerFile);
	try {
		const task = ledger.reader.tasksForView(null).find(each => each.worktree?.branch === branch);
		if (!task) throw new Error(`no task on branch ${branch}`);
		return task.id;
	} finally {
		ledger.close();
	}
}

/** A finished `run --worktree BRANCH -- sh -c SCRIPT` in `repo`: the task's id and its worktree's path. */
function ranIn(repo: string, box: ReturnType<typeof sandbox>, branch: string, script: string): {id: string; path: string} {
	const ran = runCli(['run', '--ledger', box.ledgerFile, '--worktree', branch, '--', 'sh', '-c', script], {
		env: {...box.env, ...GIT_ENV},
		cwd: repo,
	});
	expect(ran.status, ran.stderr).toBe(0);
	return {id: taskOnBranch(box.ledgerFile, branch), path: join(repo, '.controlroom', 'worktrees', ...branch.split('/'))};
}

const cli = (box: ReturnType<typeof sandbox>, ...args: string[]) =>
	runCli([...args, '--ledger', box.ledgerFile], {env: {...box.env, ...GIT_ENV}});

describe('controlroom worktree list', {timeout: 60_000}, () => {
	it('says there are none, then lists each run worktree with its branch, status, change now and path, and gone once removed', () => {
		const box = sandbox();
		const repo = repository();
		runCli(['run', '--ledger', box.ledgerFile, '--', 'true'], {env: box.env, cwd: repo});
		expect(cli(box, 'worktree', 'list').stdout).toBe('no run worktrees (controlroom run --worktree makes one)\n');
		const {id, path} = ranIn(repo, box, 'fix/notes', 'printf "a\\nb\\n" > notes.md');
		expect(cli(box, 'worktree', 'list').stdout).toBe(`${id}  fix/notes  done  1 file +2  ${path}\n`);
		// A person's edit after the run is in the change now
		writeFileSync(join(path, 'more.md'), 'c\n');
		const json = JSON.parse(cli(box, 'worktree', 'list', '--json').stdout) as Record<string, unknown>[];
		expect(json).toMatchObject([{task: id, status: 'done', branch: 'fix/notes', path, from: 'main', now: '2 files +3'}]);
		const forced = runAsPerson(['worktree', 'remove', id, '--force', '--ledger', box.ledgerFile], {env: box.env});
		expect(forced.status, forced.stderr).toBe(0);
		expect(cli(box, 'worktree', 'list').stdout).toBe(`${id}  fix/notes  done  gone  ${path}\n`);
	});
});

describe('controlroom worktree remove', {timeout: 60_000}, () => {
	it('refuses uncommitted work, then commits not merged into the branch the run came from; removes worktree and branch once merged', () => {
		const box = sandbox();
		const repo = repository();
		const {id, path} = ranIn(repo, box, 'notes', 'echo x > a.md; git add a.md; git commit -qm a; echo y > b.md');
		// Uncommitted and unmerged: one line naming both, exit 1, nothing removed
		const both = cli(box, 'worktree', 'remove', id);
		expect(both.status).toBe(1);
		expect(both.stderr).toBe(
			`controlroom: worktree remove: ${path} has 1 uncommitted file and 1 commit not merged into main; nothing removed (--force removes it anyway)\n`,
		);
		expect(readFileSync(join(path, 'b.md'), 'utf8')).toBe('y\n');
		// Committed but not merged: still refused
		git(path, 'add', 'b.md');
		git(path, 'commit', '--quiet', '-m', 'b');
		const unmerged = cli(box, 'worktree', 'remove', id);
		expect(unmerged.status).toBe(1);
		expect(unmerged.stderr).toBe(
			`controlroom: worktree remove: ${path} has 2 commits not merged into main; nothing removed (--force removes it anyway)\n`,
		);
		// Merged into main: the worktree and its branch go
		git(repo, 'merge', '--quiet', '--ff-only', 'notes');
		const removed = cli(box, 'worktree', 'remove', id);
		expect(removed.status, removed.stderr).toBe(0);
		expect(removed.stdout).toBe(`removed ${path} and branch notes\n`);
		expect(existsSync(path)).toBe(false);
		expect(branches(repo)).toEqual(['main']);
		expect(git(repo, 'log', '--format=%s', 'main')).toBe('b\na\nstart');
	});

	it('refuses while the run is live (exit 75), removes once it ended; a task without a worktree is exit 64', async () => {
		const box = sandbox();
		const repo = repository();
		const fifo = join(box.dir, 'go');
		execFileSync('mkfifo', [fifo]);
		const started = startCli(
			['run', '--ledger', box.ledgerFile, '--worktree', 'live', '--', 'sh', '-c', `read line < ${fifo}`],
			{
				...box.env,
				...GIT_ENV,
			},
			repo,
		);
		const ledger = await waitFor(() => (existsSync(box.ledgerFile) ? openLedger(box.ledgerFile) : null), {
			what: 'the ledger',
			timeoutMs: 20_000,
		});
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksForView(null).find(each => each.status === 'running'), {
			what: 'the live run',
			on: [onLedgerChange(box.ledgerFile)],
			timeoutMs: 20_000,
		});
		const path = join(repo, '.controlroom', 'worktrees', 'live');
		const live = cli(box, 'worktree', 'remove', task.id);
		expect(live.status).toBe(75);
		expect(live.stderr).toBe(
			`controlroom: worktree remove: task ${task.id} is running: its run still uses ${path}; nothing removed (stop it first, or --force)\n`,
		);
		expect(existsSync(path)).toBe(true);
		writeFileSync(fifo, 'go\n');
		expect((await started.done).code).toBe(0);
		const removed = cli(box, 'worktree', 'remove', task.id);
		expect(removed.status, removed.stderr).toBe(0);
		expect(existsSync(path)).toBe(false);
		// A task run in place has no worktree to remove
		runCli(['run', '--ledger', box.ledgerFile, '--title', 'in place', '--', 'true'], {env: box.env, cwd: repo});
		const inPlace = cli(box, 'worktree', 'remove', 'in place');
		expect(inPlace.status).toBe(64);
		expect(inPlace.stderr).toMatch(
			/^controlroom: worktree remove: task \S+ has no worktree \(it was not run with --worktree\)\n$/,
		);
	});

	it('never removes a folder outside .controlroom/worktrees, forced by a person or not: a recorded path elsewhere, a symlink planted on the way', () => {
		const box = sandbox();
		const repo = repository();
		// A worktree git knows, but outside the run worktrees folder, recorded on a task (a changed ledger)
		const {id, path} = ranIn(repo, box, 'first', 'true');
		const elsewhere = join(box.dir, 'elsewhere');
		git(repo, 'worktree', 'add', '--quiet', '-b', 'other', elsewhere);
		writeFileSync(join(elsewhere, 'keep.md'), 'mine\n');
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		const worktree = {path: elsewhere, branch: 'other', base: git(repo, 'rev-parse', 'main'), repository: repo, from: 'main'};
		ledger.writer.append([newEvent('task.registered', {worktree}, {taskId: id, at: Date.now(), source: 'wrapper'})]);
		for (const forced of [[], ['--force']]) {
			const refused = runAsPerson(['worktree', 'remove', id, ...forced, '--ledger', box.ledgerFile], {env: box.env});
			expect(refused.status).toBe(1);
			expect(refused.stderr).toBe(
				`controlroom: worktree remove: ${elsewhere} is not under ${join(repo, '.controlroom', 'worktrees')}; only a run's worktree is removed\n`,
			);
		}
		expect(readFileSync(join(elsewhere, 'keep.md'), 'utf8')).toBe('mine\n');
		expect(branches(repo)).toEqual(['first', 'main', 'other']);
		// A folder moved out and a symlink planted where the run's worktree was
		const second = ranIn(repo, box, 'second', 'true');
		const moved = join(box.dir, 'moved');
		renameSync(second.path, moved);
		symlinkSync(moved, second.path);
		writeFileSync(join(moved, 'keep.md'), 'mine\n');
		const linked = runAsPerson(['worktree', 'remove', second.id, '--force', '--ledger', box.ledgerFile], {env: box.env});
		expect(linked.status).toBe(1);
		expect(linked.stderr).toBe(
			`controlroom: worktree remove: ${second.path} is a symlink; only a run's worktree inside ${join(repo, '.controlroom', 'worktrees')} is removed\n`,
		);
		expect(readFileSync(join(moved, 'keep.md'), 'utf8')).toBe('mine\n');
		// And the first run's own worktree, no longer the one its task records, is left as it was
		expect(existsSync(path)).toBe(true);
	});
});
