import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {readDecisions} from '../../src/ledger/decisions.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {endStarted, question, startHeld} from '../helpers/held-runs.ts';
import {runAsPerson} from '../helpers/person.ts';
import {installClaudeHooks, realClientBox, realClientScript, type RealClientBox} from '../helpers/realclients.ts';
import {onExit, onFileChange, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// The second writer held (docs/decisions.md, "Collisions"), with the real Claude Code offline and
// `hooks install --claude`: a first session edits src/a.ts and goes on working; a second session
// in the same checkout then edits it too.

const CLAUDE = realClientScript('claude-offline.sh');
const SLOW = 240_000;
const started: ChildProcess[] = [];
afterEach(() => {
	endStarted(started);
});

/** A git checkout with src/a.ts committed, in the box's project folder, and the ledger the hooks write to. */
function checkout(box: RealClientBox): string {
	expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
	const project = join(box.dir, 'project');
	mkdirSync(join(project, 'src'), {recursive: true});
	writeFileSync(join(project, 'src', 'a.ts'), 'export const a = 1;\n');
	const git = (...args: string[]) => spawnSync('git', ['-C', project, '-c', 'user.email=t@t', '-c', 'user.name=t', ...args]);
	git('init', '-q');
	git('add', '.');
	git('commit', '-qm', 'init');
	return project;
}

/** The first session: edits a.ts, then stays busy in its next turn (a running task). */
function startFirst(box: RealClientBox, project: string): ChildProcess {
	const script = join(box.dir, 'first.json');
	writeFileSync(
		script,
		JSON.stringify([
			{tool: 'Edit', input: {file_path: join(project, 'src', 'a.ts'), old_string: '1', new_string: 'FIRST'}},
			{text: 'first done', delay_ms: 120_000},
		]),
	);
	const child = spawn(CLAUDE, [box.dir, '-p', 'edit a', '--dangerously-skip-permissions'], {
		env: {...box.env, SCRIPT_FILE: script, FAKE_LOG: join(box.dir, 'first.jsonl'), CLAUDE_TIMEOUT: '200'},
		stdio: 'ignore',
		detached: false,
	});
	started.push(child);
	return child;
}

const SECOND_EDIT = (project: string) => ({
	tool: 'Edit',
	input: {file_path: join(project, 'src', 'a.ts'), old_string: 'export', new_string: 'export /* SECOND */'},
});

/** Whether a file in the spool holds a PostToolUse (a fold may take it away while it is read). */
function spoolHasEdit(spool: string): boolean {
	return readdirSync(spool).some(name => {
		try {
			return name.endsWith('.spool') && readFileSync(join(spool, name), 'utf8').includes('"PostToolUse"');
		} catch {
			return false;
		}
	});
}

/** Whether the ledger holds a live task's edit. */
function ledgerHasEdit(box: RealClientBox): boolean {
	const ledger = openLedger(join(box.dir, 'cr', 'ledger.db'), {isReadonly: true});
	try {
		return ledger.reader.editsOfLiveTasks(['Edit'], 1).length > 0;
	} finally {
		ledger.close();
	}
}

/** The first's edit has landed and its PostToolUse is recorded (in the spool or the ledger). */
async function firstEdited(box: RealClientBox, first: ChildProcess): Promise<void> {
	const spool = join(box.dir, 'cr', 'spool');
	mkdirSync(spool, {recursive: true});
	await waitFor(() => spoolHasEdit(spool) || ledgerHasEdit(box), {
		what: "the first session's PostToolUse",
		timeoutMs: 90_000,
		on: [onFileChange(join(spool, 'any')), onLedgerChange(join(box.dir, 'cr', 'ledger.db')), onExit(first)],
	});
}

function collisions(box: RealClientBox) {
	const ledger = openLedger(join(box.dir, 'cr', 'ledger.db'), {isReadonly: true});
	try {
		return [...readDecisions(ledger.reader).values()].filter(decision => decision.kind === 'collision');
	} finally {
		ledger.close();
	}
}

describe('the second writer held (real Claude Code)', () => {
	it(
		'an unwrapped second session is denied with the reason naming both tasks; the file holds only the first change',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			installClaudeHooks(box);
			const project = checkout(box);
			const first = startFirst(box, project);
			await firstEdited(box, first);
			const script = join(box.dir, 'second.json');
			writeFileSync(script, JSON.stringify([SECOND_EDIT(project), {text: 'second done'}]));
			const second = spawnSync(CLAUDE, [box.dir, '-p', 'edit a', '--dangerously-skip-permissions', '--output-format', 'json'], {
				env: {...box.env, SCRIPT_FILE: script, FAKE_LOG: join(box.dir, 'second.jsonl')},
				encoding: 'utf8',
			});
			expect(second.status, second.stderr).toBe(0);
			// Never deferred: the run ended its turn, the Edit denied.
			expect(second.stdout).toContain('"stop_reason":"end_turn"');
			expect(readFileSync(join(project, 'src', 'a.ts'), 'utf8')).toBe('export const a = FIRST;\n');
			const [asked, ...more] = collisions(box);
			expect(more).toHaveLength(0);
			expect(asked?.collision?.file).toBe(join(project, 'src', 'a.ts'));
			const firstTask = asked?.collision?.otherTask ?? '';
			expect(firstTask).toMatch(/^c-/);
			expect(asked?.taskId).not.toBe(firstTask);
			expect(asked?.collision?.isHeadless).toBe(false);
			// The model read the reason as the Edit's error: both tasks, the file, the question.
			const log = readFileSync(join(box.dir, 'second.jsonl'), 'utf8');
			const error = /PreToolUse:Edit hook error: ([^"]*)/.exec(log)?.[1] ?? '';
			expect(error).toContain(firstTask);
			expect(error).toContain(asked?.taskId ?? 'none');
			expect(error).toContain('src/a.ts');
			expect(error).toContain(asked?.id ?? 'none');
		},
		SLOW,
	);

	it(
		'a wrapped claude -p is deferred; allow resumes it and the edit lands once',
		async () => {
			const box = realClientBox({SCENARIO: 'script', CLAUDE_TIMEOUT: '200'});
			installClaudeHooks(box);
			const project = checkout(box);
			const first = startFirst(box, project);
			await firstEdited(box, first);
			const run = startHeld(box, [SECOND_EDIT(project), {text: 'second done'}], started, {
				// The run's folder is the checkout: an edit there is the collision's alone, not the hold policy's (outside the folder).
				flags: ['--cwd', project],
				extra: ['--dangerously-skip-permissions'],
			});
			const id = await question(run);
			const [asked] = collisions(box);
			expect(asked?.id).toBe(id);
			expect(asked?.collision?.isHeadless).toBe(true);
			expect(readFileSync(join(project, 'src', 'a.ts'), 'utf8')).toBe('export const a = FIRST;\n');
			const said = runAsPerson(['decide', id, 'allow'], {env: box.env});
			expect(said.status, said.stderr).toBe(0);
			const ledgerFile = join(box.dir, 'cr', 'ledger.db');
			await waitFor(() => run.stderr().includes('with the answer allow'), {
				what: 'the resume',
				timeoutMs: 60_000,
				on: [onLedgerChange(ledgerFile), onExit(run.child)],
				explain: run.stderr,
			});
			const code = await run.done;
			expect(code, run.stderr()).toBe(0);
			expect(readFileSync(join(project, 'src', 'a.ts'), 'utf8')).toBe('export /* SECOND */ const a = FIRST;\n');
			expect(collisions(box)).toHaveLength(1);
			expect(
				(JSON.parse(box.cli(['snapshot', '--json', '--all']).stdout) as {decisions: {state: string}[]}).decisions.filter(
					each => each.state === 'open',
				),
			).toEqual([]);
		},
		SLOW,
	);
});
