import {execFileSync, spawn, type ChildProcess} from 'node:child_process';
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {layoutColumns, layoutRow} from '../../src/core/board/row-layout.ts';
import {toRowView} from '../../src/core/board/selectors.ts';
import {readDecisions} from '../../src/ledger/decisions.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {runAsPerson} from '../helpers/person.ts';
import {installClaudeHooks, realClientBox, realClientScript, requireRealClients} from '../helpers/realclients.ts';
import {onExit, onFileChange, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const open: Ledger[] = [];
const started: ChildProcess[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
	for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});

const GIT_ENV = {GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t'};
const git = (cwd: string, ...args: string[]): string =>
	execFileSync('git', ['-C', cwd, ...args], {encoding: 'utf8', env: {...process.env, ...GIT_ENV}}).trim();

describe('run --worktree with the real Claude Code', {timeout: 240_000}, () => {
	it('a scripted claude -p writes a file and commits in its worktree: the row shows the branch and 1 file +N; remove refuses while work is uncommitted', () => {
		const env = requireRealClients();
		const dir = scratchDir('cr-wt-claude-');
		const repo = join(dir, 'repo');
		const home = join(dir, 'home');
		mkdirSync(repo);
		mkdirSync(home);
		git(repo, 'init', '--quiet', '--initial-branch=main');
		git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'start');
		const out = join(dir, 'out');
		mkdirSync(out);
		// claude-offline.sh runs claude in WORKDIR/project: the branch notes/project puts that folder
		// at the run's worktree, so Claude itself works in it (its HOME and the fake server's files go
		// beside it, in .controlroom/worktrees/notes, which git does not show).
		const path = join(repo, '.controlroom', 'worktrees', 'notes', 'project');
		writeFileSync(
			join(out, 'turns.json'),
			JSON.stringify([
				{tool: 'Write', input: {file_path: join(path, 'notes.md'), content: 'one\ntwo\nthree\n'}},
				{tool: 'Bash', input: {command: 'git add notes.md && git commit -qm notes', description: 'commit the notes'}},
				{text: 'done'},
			]),
		);
		const claude = [
			'SCENARIO=script',
			`SCRIPT_FILE="${out}/turns.json"`,
			`FAKE_LOG="${out}/model.jsonl"`,
			`bash "${realClientScript('claude-offline.sh')}" "$PWD/.." -p "Write the notes and commit them." --dangerously-skip-permissions`,
		].join(' ');
		const ledgerFile = join(home, 'ledger.db');
		const ran = runCli(
			['run', '--ledger', ledgerFile, '--title', 'notes by claude', '--worktree', 'notes/project', '--', 'sh', '-c', claude],
			{
				env: {...process.env, ...env, ...GIT_ENV, CONTROLROOM_HOME: home},
				cwd: repo,
			},
		);
		expect(ran.status, ran.stderr).toBe(0);
		// The model was asked three times: after its Write, after its Bash, then it answered
		expect(readFileSync(join(out, 'model.jsonl'), 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(3);
		expect(readFileSync(join(path, 'notes.md'), 'utf8')).toBe('one\ntwo\nthree\n');
		expect(git(repo, 'log', '--format=%s', 'notes/project')).toBe('notes\nstart');
		expect(git(repo, 'log', '--format=%s', 'main')).toBe('start');
		expect(git(repo, 'status', '--porcelain')).toBe('');
		const ledger = openLedger(ledgerFile);
		open.push(ledger);
		const [task] = ledger.reader.tasksForView(null);
		// The row: its title ends with the branch and the change, at 160 and 80 columns
		for (const width of [160, 80]) {
			const row = toRowView(task!, Date.now());
			expect(layoutRow(row, layoutColumns([row], width, false, 14)).before).toContain('⎇ notes/project 1 file +3');
		}
		// worktree remove refuses while the worktree has uncommitted work, and removes once it is merged and clean
		writeFileSync(join(path, 'draft.md'), 'not yet\n');
		const refused = runCli(['worktree', 'remove', task!.id, '--ledger', ledgerFile], {env: {CONTROLROOM_HOME: home}});
		expect(refused.status).toBe(1);
		expect(refused.stderr).toBe(
			`controlroom: worktree remove: ${path} has 1 uncommitted file and 1 commit not merged into main; nothing removed (--force removes it anyway)\n`,
		);
		expect(git(path, 'status', '--porcelain')).toBe('?? draft.md');
		// An agent's --force is refused by the actor rule (stdin not a terminal)
		const agentForce = runCli(['worktree', 'remove', task!.id, '--force', '--ledger', ledgerFile], {
			env: {CONTROLROOM_HOME: home},
		});
		expect(agentForce.status).toBe(77);
		expect(git(path, 'status', '--porcelain')).toBe('?? draft.md');
		// A person's --force removes the worktree and the branch
		const forced = runAsPerson(['worktree', 'remove', task!.id, '--force', '--ledger', ledgerFile], {
			env: {CONTROLROOM_HOME: home},
		});
		expect(forced.status, forced.stderr).toBe(0);
		expect(forced.stdout).toBe(`removed ${path} and branch notes/project\n`);
		expect(git(repo, 'branch', '--format=%(refname:short)')).toBe('main');
		const listed = runCli(['worktree', 'list', '--ledger', ledgerFile], {env: {CONTROLROOM_HOME: home}});
		expect(listed.stdout).toBe(`${task!.id}  notes/project  done  gone  ${path}\n`);
	});

	it('a hooked session edits src/a.ts in the checkout and goes on; a run in its own worktree edits src/a.ts too: no collision, both edits land', async () => {
		const box = realClientBox({SCENARIO: 'script', CLAUDE_TIMEOUT: '200'});
		installClaudeHooks(box);
		expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
		const ledgerFile = join(box.dir, 'cr', 'ledger.db');
		const project = join(box.dir, 'project');
		mkdirSync(join(project, 'src'), {recursive: true});
		writeFileSync(join(project, 'src', 'a.ts'), 'export const a = 1;\n');
		git(project, 'init', '--quiet', '--initial-branch=main');
		git(project, 'add', '.');
		git(project, 'commit', '--quiet', '-m', 'init');
		// The first session edits the checkout's src/a.ts, then stays busy (a live task with an uncommitted edit)
		const firstScript = join(box.dir, 'first.json');
		writeFileSync(
			firstScript,
			JSON.stringify([
				{tool: 'Edit', input: {file_path: join(project, 'src', 'a.ts'), old_string: '1', new_string: 'FIRST'}},
				{text: 'first done', delay_ms: 120_000},
			]),
		);
		const first = spawn(realClientScript('claude-offline.sh'), [box.dir, '-p', 'edit a', '--dangerously-skip-permissions'], {
			env: {...box.env, SCRIPT_FILE: firstScript, FAKE_LOG: join(box.dir, 'first.jsonl')},
			stdio: 'ignore',
		});
		started.push(first);
		const spool = join(box.dir, 'cr', 'spool');
		mkdirSync(spool, {recursive: true});
		const hasEdit = (): boolean => {
			const inSpool = readdirSync(spool).some(name => {
				try {
					return name.endsWith('.spool') && readFileSync(join(spool, name), 'utf8').includes('"PostToolUse"');
				} catch {
					return false;
				}
			});
			if (inSpool) return true;
			const ledger = openLedger(ledgerFile, {isReadonly: true});
			try {
				return ledger.reader.editsOfLiveTasks(['Edit'], 1).length > 0;
			} finally {
				ledger.close();
			}
		};
		await waitFor(hasEdit, {
			what: "the first session's PostToolUse",
			timeoutMs: 90_000,
			on: [onFileChange(join(spool, 'any')), onLedgerChange(ledgerFile), onExit(first)],
		});
		expect(first.exitCode).toBe(null);
		// The second: claude -p run with --worktree second/project, so Claude itself works in the
		// worktree (claude-offline.sh's WORKDIR/project), with the same hook settings as the first
		const path = join(project, '.controlroom', 'worktrees', 'second', 'project');
		const secondScript = join(box.dir, 'second.json');
		writeFileSync(
			secondScript,
			JSON.stringify([
				{tool: 'Edit', input: {file_path: join(path, 'src', 'a.ts'), old_string: 'export', new_string: 'export /* SECOND */'}},
				{text: 'second done'},
			]),
		);
		const claude = [
			`mkdir -p ../home && cp -R "${join(box.dir, 'home', '.claude')}" ../home/ &&`,
			`SCRIPT_FILE="${secondScript}" FAKE_LOG="${join(box.dir, 'second.jsonl')}"`,
			`bash "${realClientScript('claude-offline.sh')}" "$PWD/.." -p "edit a" --dangerously-skip-permissions`,
		].join(' ');
		const ran = runCli(['run', '--title', 'second in a worktree', '--worktree', 'second/project', '--', 'sh', '-c', claude], {
			env: {...box.env, ...GIT_ENV},
			cwd: project,
		});
		expect(ran.status, ran.stderr).toBe(0);
		// Its Edit ran, in its worktree; the checkout holds only the first's change; no collision was asked
		expect(readFileSync(join(path, 'src', 'a.ts'), 'utf8')).toBe('export /* SECOND */ const a = 1;\n');
		expect(readFileSync(join(project, 'src', 'a.ts'), 'utf8')).toBe('export const a = FIRST;\n');
		const ledger = openLedger(ledgerFile, {isReadonly: true});
		open.push(ledger);
		expect([...readDecisions(ledger.reader).values()].filter(decision => decision.kind === 'collision')).toEqual([]);
		// And the hooks did run for it: its task knows its Claude session and its Edit of the worktree's file
		const second = ledger.reader.tasksForView(null).find(task => task.title === 'second in a worktree');
		expect(second?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
		expect(second?.worktree?.change).toMatchObject({files: 1, added: 1, removed: 1});
		expect(readFileSync(join(box.dir, 'second.jsonl'), 'utf8')).not.toContain('hook error');
	});
});
