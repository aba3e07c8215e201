import {execFileSync} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {layoutColumns, layoutRow} from '../../src/core/board/row-layout.ts';
import {toRowView} from '../../src/core/board/selectors.ts';
import {selectTimeline} from '../../src/core/board/timeline-view.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {sandbox} from './helpers.ts';

const open: Ledger[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
});

const GIT_ENV = {GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t'};

function git(cwd: string, ...args: string[]): string {
	return execFileSync('git', ['-C', cwd, ...args], {encoding: 'utf8', env: {...process.env, ...GIT_ENV}}).trim();
}

/** A repository with one commit. */
function repository(): string {
	const repo = join(scratchDir('cr-wt-'), 'repo');
	mkdirSync(repo);
	git(repo, 'init', '--quiet', '--initial-branch=main');
	writeFileSync(join(repo, 'README'), 'hello\n');
	git(repo, 'add', 'README');
	git(repo, 'commit', '--quiet', '-m', 'start');
	return repo;
}

function tasksOf(ledgerFile: string) {
	if (!existsSync(ledgerFile)) return [];
	const ledger = openLedger(ledgerFile);
	open.push(ledger);
	return ledger.reader.tasksForView(null);
}

/** What the run said, less the notice that a first run made the ledger. */
const ownLines = (stderr: string): string => stderr.replace(/^controlroom: created a new, empty ledger at .*\n/, '');

const branches = (repo: string): string[] => git(repo, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean);
const worktrees = (repo: string): string[] =>
	git(repo, 'worktree', 'list', '--porcelain')
		.split('\n')
		.filter(line => line.startsWith('worktree '));

describe('run --worktree', () => {
	it('runs the agent in a new worktree on a new branch, records both on the task, and leaves the checkout clean', () => {
		// Given a repository
		const box = sandbox();
		const repo = repository();
		// When a run is given its own worktree, and its agent writes a file and commits
		const script = 'pwd > ../where; git branch --show-current >> ../where; echo x > new.txt; git add new.txt; git commit -qm new';
		const result = runCli(['run', '--ledger', box.ledgerFile, '--worktree', 'fix/export', '--', 'sh', '-c', script], {
			env: {...box.env, ...GIT_ENV},
			cwd: repo,
		});
		// Then it ran in <repo>/.controlroom/worktrees/fix/export on branch fix/export
		expect(ownLines(result.stderr)).toBe('');
		expect(result.status).toBe(0);
		const path = join(repo, '.controlroom', 'worktrees', 'fix', 'export');
		expect(readFileSync(join(path, '..', 'where'), 'utf8')).toBe(`${path}\nfix/export\n`);
		// And the task records the worktree, its branch, the commit it started from and the main checkout
		const [task] = tasksOf(box.ledgerFile);
		expect(task?.cwd).toBe(path);
		expect(task?.worktree).toMatchObject({path, branch: 'fix/export', base: git(repo, 'rev-parse', 'main'), repository: repo});
		// And the main checkout shows no untracked work, its branch unmoved
		expect(git(repo, 'status', '--porcelain')).toBe('');
		expect(git(repo, 'log', '--format=%s', 'fix/export')).toBe('new\nstart');
		expect(git(repo, 'log', '--format=%s', 'main')).toBe('start');
	});

	it('names the branch after the task when none is given', () => {
		const box = sandbox();
		const repo = repository();
		const result = runCli(['run', '--ledger', box.ledgerFile, '--worktree', '--', 'true'], {env: box.env, cwd: repo});
		expect(result.status).toBe(0);
		const [task] = tasksOf(box.ledgerFile);
		expect(task?.worktree?.branch).toBe(`cr/${task?.id}`);
		expect(branches(repo)).toEqual([`cr/${task?.id}`, 'main']);
	});

	it.each([
		['a..b', "--worktree: 'a..b' is not a valid branch name (git check-ref-format); nothing made"],
		['bad~name', "--worktree: 'bad~name' is not a valid branch name (git check-ref-format); nothing made"],
		['trailing.lock', "--worktree: 'trailing.lock' is not a valid branch name (git check-ref-format); nothing made"],
		['has\u001b[31mred', 'is not a valid branch name'],
	])('refuses the branch name %j with one line, exit 64, nothing made', (branch, said) => {
		const box = sandbox();
		const repo = repository();
		const result = runCli(['run', '--ledger', box.ledgerFile, `--worktree=${branch}`, '--', 'true'], {env: box.env, cwd: repo});
		expect(result.status).toBe(64);
		expect(result.stderr).toContain(said);
		expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
		expect(result.stderr).not.toContain('\u001b');
		expect(branches(repo)).toEqual(['main']);
		expect(tasksOf(box.ledgerFile)).toEqual([]);
	});

	it('refuses an existing branch, an existing path, a symlink on the way and a folder outside git, nothing made', () => {
		const box = sandbox();
		const repo = repository();
		git(repo, 'branch', 'taken');
		const taken = runCli(['run', '--ledger', box.ledgerFile, '--worktree', 'taken', '--', 'true'], {env: box.env, cwd: repo});
		expect([taken.status, taken.stderr]).toEqual([
			64,
			'controlroom: --worktree: a branch taken exists already; name another (--worktree BRANCH); nothing made\n',
		]);
		mkdirSync(join(repo, '.controlroom', 'worktrees', 'here'), {recursive: true});
		const held = runCli(['run', '--ledger', box.ledgerFile, '--worktree', 'here', '--', 'true'], {env: box.env, cwd: repo});
		expect(held.status).toBe(64);
		expect(held.stderr).toContain(`${join(repo, '.controlroom', 'worktrees', 'here')} exists already`);
		const outside = scratchDir('cr-out-');
		symlinkSync(outside, join(repo, '.controlroom', 'worktrees', 'out'));
		const linked = runCli(['run', '--ledger', box.ledgerFile, '--worktree', 'out/x', '--', 'true'], {env: box.env, cwd: repo});
		expect(linked.status).toBe(64);
		expect(linked.stderr).toContain(`${join(repo, '.controlroom', 'worktrees', 'out')} is a symlink`);
		const notGit = runCli(['run', '--ledger', box.ledgerFile, '--worktree', '--', 'true'], {env: box.env, cwd: outside});
		expect(notGit.status).toBe(64);
		expect(notGit.stderr).toContain('is not in a git repository; nothing made');
		// Nothing was made anywhere: no branch, no worktree, no task
		expect(branches(repo)).toEqual(['main', 'taken']);
		expect(worktrees(repo)).toHaveLength(1);
		expect(tasksOf(box.ledgerFile)).toEqual([]);
	});

	it('leaves no branch behind when git cannot make the worktree', () => {
		// Given a file where the worktrees folder would be, so git can make the branch but not the folder
		const box = sandbox();
		const repo = repository();
		mkdirSync(join(repo, '.controlroom'));
		writeFileSync(join(repo, '.controlroom', 'worktrees'), 'not a folder');
		const result = runCli(['run', '--ledger', box.ledgerFile, '--worktree', 'b', '--', 'true'], {env: box.env, cwd: repo});
		expect(result.status).toBe(64);
		expect(ownLines(result.stderr)).toMatch(/^controlroom: --worktree: git worktree add .* failed: .*; nothing registered\n$/);
		expect(branches(repo)).toEqual(['main']);
		expect(worktrees(repo)).toHaveLength(1);
		expect(tasksOf(box.ledgerFile)).toEqual([]);
	});

	it('changes nothing without the flag: the run stays in its folder and records no worktree', () => {
		const box = sandbox();
		const repo = repository();
		const result = runCli(['run', '--ledger', box.ledgerFile, '--', 'true'], {env: box.env, cwd: repo});
		expect(result.status).toBe(0);
		const [task] = tasksOf(box.ledgerFile);
		expect(task?.cwd).toBe(repo);
		expect(task && 'worktree' in task).toBe(false);
		expect(existsSync(join(repo, '.controlroom'))).toBe(false);
	});

	it('records the change on the branch at the end of the run; the row ends its title with the branch and size, the drill-down has the stat', () => {
		// Given a run whose agent commits a three-line file and leaves an untracked two-line one
		const box = sandbox();
		const repo = repository();
		const script = 'printf "a\\nb\\nc\\n" > notes.txt; git add notes.txt; git commit -qm notes; printf "x\\ny\\n" > loose.txt';
		const result = runCli(
			['run', '--ledger', box.ledgerFile, '--title', 'write notes', '--worktree', 'notes', '--', 'sh', '-c', script],
			{
				env: {...box.env, ...GIT_ENV},
				cwd: repo,
			},
		);
		expect(result.status).toBe(0);
		// Then the task holds the change: both files, +5
		const [task] = tasksOf(box.ledgerFile);
		expect(task?.worktree?.change).toMatchObject({
			files: 2,
			added: 5,
			removed: 0,
			stat: [
				{path: 'notes.txt', added: 3, removed: 0},
				{path: 'loose.txt', added: 2, removed: 0},
			],
			more: 0,
		});
		// And the row, at 160 and at 80 columns, ends its title with the branch and the size
		for (const width of [160, 80]) {
			const columns = layoutColumns([toRowView(task!, Date.now())], width, false, 14);
			const row = layoutRow(toRowView(task!, Date.now()), columns);
			expect(row.before).toContain('⎇ notes 2 files +5');
		}
		const narrow = layoutRow(toRowView(task!, Date.now()), layoutColumns([toRowView(task!, Date.now())], 80, false, 14));
		expect(narrow.before).toMatch(/write notes ⎇ notes 2 files \+5/);
		// And the drill-down has the branch, its start, the size and the stat by file
		const view = selectTimeline(task, [], Date.now());
		expect(view.worktree).toEqual([
			`notes from ${task!.worktree!.base!.slice(0, 7)} · 2 files +5 · ${task!.worktree!.path}`,
			'  notes.txt | +3 -0',
			'  loose.txt | +2 -0',
		]);
	});

	it('shows no worktree line for a task run in place', () => {
		const box = sandbox();
		const result = runCli(['run', '--ledger', box.ledgerFile, '--', 'true'], {env: box.env, cwd: scratchDir('cr-plain-')});
		expect(result.status).toBe(0);
		const [task] = tasksOf(box.ledgerFile);
		expect(toRowView(task!, Date.now()).worktree).toBeUndefined();
		expect(selectTimeline(task, [], Date.now()).worktree).toEqual([]);
	});
});
