import {spawn, spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {BIN} from '../helpers/cli.ts';
import {withRawDb} from '../helpers/raw-db.ts';
import {installClaudeHooks, realClientBox, realClientScript, type RealClientBox} from '../helpers/realclients.ts';

// The handoff written when a hooked real Claude Code 2.1.328 session (offline) ends: from what its
// hooks recorded and git, by the reconciler's pass, never by the SessionEnd hook (docs/handoffs.md).

const SLOW = 240_000;

function git(cwd: string, ...args: string[]): string {
	const run = spawnSync('git', ['-C', cwd, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {encoding: 'utf8'});
	if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
	return run.stdout.trim();
}

/** A box whose project folder is a git repository with one commit, hooks installed. */
function hookedRepository(): {box: RealClientBox; project: string} {
	const box = realClientBox();
	const project = join(box.dir, 'project');
	spawnSync('mkdir', ['-p', project]);
	git(project, 'init', '-q');
	writeFileSync(join(project, 'README'), 'hello\n');
	git(project, 'add', 'README');
	git(project, 'commit', '-qm', 'start');
	installClaudeHooks(box);
	return {box, project};
}

function claude(box: RealClientBox, turns: unknown[], prompt: string): number | null {
	const script = join(box.dir, `script-${Date.now()}-${Math.random()}.json`);
	writeFileSync(script, JSON.stringify(turns));
	const run = spawnSync(realClientScript('claude-offline.sh'), [box.dir, '-p', prompt, '--dangerously-skip-permissions'], {
		env: {...box.env, SCENARIO: 'script', SCRIPT_FILE: script},
		encoding: 'utf8',
	});
	return run.status;
}

function handoffFiles(project: string): string[] {
	const folder = join(project, '.controlroom', 'handoffs');
	return existsSync(folder) ? readdirSync(folder).filter(name => name.endsWith('.md')).map(name => join(folder, name)) : [];
}

type Row = {task_id: string; type: string; data: string; dedup_key: string | null};
function handoffEvents(box: RealClientBox): Row[] {
	return withRawDb(join(box.dir, 'cr', 'ledger.db'), db =>
		db.prepare("SELECT task_id, type, data, dedup_key FROM events WHERE type LIKE 'handoff.%' ORDER BY seq").all() as Row[],
	);
}

const FAIL_THEN_COMMIT = [
	{tool: 'Bash', input: {command: 'ls no-such-file', description: 'look'}},
	{tool: 'Bash', input: {command: "echo ok > a.txt && git add a.txt && git -c user.email=t@example.com -c user.name=t commit -qm 'add a'", description: 'commit'}},
	{text: 'Added a.txt. Next: a test for a.txt.'},
];

describe('the handoff of a hooked real claude -p session', () => {
	it(
		'is written by the next reconciler pass with the commit, the failed command under Gotchas and the exit codes recorded',
		() => {
			const {box, project} = hookedRepository();
			expect(claude(box, FAIL_THEN_COMMIT, 'add a.txt')).toBe(0);
			const commit = git(project, 'rev-parse', 'HEAD');
			expect(handoffFiles(project)).toEqual([]); // nothing at the session's end: the hook only spools
			const pass = box.cli(['reconcile', '--once']);
			expect(pass.status).toBe(0);
			const [file, ...more] = handoffFiles(project);
			expect(more).toEqual([]);
			const text = readFileSync(file!, 'utf8');
			expect(text).toContain(`- ${commit.slice(0, 12)} add a`);
			expect(text).toContain('- `a.txt`');
			expect(text).toContain('- `ls no-such-file`: exit 2');
			expect(text).toMatch(/- `echo ok > a.txt && git add a.txt && .*`: exit 0/);
			const gotchas = text.split('## Gotchas')[1]!.split('\n## ')[0]!;
			expect(gotchas).toContain("`ls no-such-file` failed (exit 2): ls: cannot access 'no-such-file': No such file or directory");
			expect(text).toContain("The agent's claim, not checked: Added a.txt. Next: a test for a.txt.");
			expect(text).toContain('exit code: unknown (not recorded for this session)');
			// A transfer contract the contract checker reads as valid.
			const check = box.cli(['contract', 'check', file!]);
			expect(check.stdout).toContain('valid transfer contract');
			// Recorded once, with the file's hash; a second pass writes nothing more.
			const [written, ...others] = handoffEvents(box);
			expect(others).toEqual([]);
			expect(written!.type).toBe('handoff.written');
			expect(JSON.parse(written!.data)).toMatchObject({path: file, sha256: createHash('sha256').update(text).digest('hex'), trigger: 'auto'});
			expect(written!.dedup_key).toBe(`handoff:${written!.task_id}`);
			expect(box.cli(['reconcile', '--once']).status).toBe(0);
			expect(handoffFiles(project)).toHaveLength(1);
			// On demand, another file beside it: history is kept, nothing overwritten.
			const onDemand = box.cli(['handoff', written!.task_id]);
			expect(onDemand.status).toBe(0);
			expect(handoffFiles(project)).toHaveLength(2);
			expect(readFileSync(file!, 'utf8')).toBe(text);
		},
		SLOW,
	);

	it(
		'is not written for a session that only read, and two writers at once write one',
		async () => {
			const {box, project} = hookedRepository();
			expect(claude(box, [{tool: 'Read', input: {file_path: join(project, 'README')}}, {text: 'It says hello.'}], 'read it')).toBe(0);
			expect(box.cli(['reconcile', '--once']).status).toBe(0);
			expect(handoffFiles(project)).toEqual([]);
			const [skipped] = handoffEvents(box);
			expect(skipped!.type).toBe('handoff.skipped');
			expect(JSON.parse(skipped!.data).reason).toMatch(/did nothing but read: no handoff/);
			const refused = box.cli(['handoff', skipped!.task_id]);
			expect(refused.status).toBe(1);
			expect(refused.stderr).toMatch(/did nothing but read/);

			expect(claude(box, FAIL_THEN_COMMIT, 'add a.txt')).toBe(0);
			const passes = [0, 1].map(
				() =>
					new Promise<number | null>(resolve => {
						const child = spawn(process.execPath, [BIN, 'reconcile', '--once'], {env: box.env, stdio: 'ignore'});
						child.on('exit', code => resolve(code));
					}),
			);
			expect(await Promise.all(passes)).toEqual([0, 0]);
			expect(handoffFiles(project)).toHaveLength(1);
			expect(handoffEvents(box).filter(row => row.type === 'handoff.written')).toHaveLength(1);
		},
		SLOW,
	);
});
