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

function claudeArgs(box: RealClientBox, turns: unknown[], prompt: string, log: string) {
	const script = join(box.dir, `script-${Date.now()}-${Math.random()}.json`);
	writeFileSync(script, JSON.stringify(turns));
	return {
		command: realClientScript('claude-offline.sh'),
		args: [box.dir, '-p', prompt, '--dangerously-skip-permissions'],
		env: {...box.env, SCENARIO: 'script', SCRIPT_FILE: script, FAKE_LOG: join(box.dir, log)},
	};
}

function claude(box: RealClientBox, turns: unknown[], prompt: string, log = 'fake-anthropic.jsonl'): number | null {
	const {command, args, env} = claudeArgs(box, turns, prompt, log);
	return spawnSync(command, args, {env, encoding: 'utf8'}).status;
}

/** `claude` in the background: resolves with its exit status. */
function claudeAsync(box: RealClientBox, turns: unknown[], prompt: string, log: string): Promise<number | null> {
	const {command, args, env} = claudeArgs(box, turns, prompt, log);
	return new Promise(resolve => spawn(command, args, {env, stdio: 'ignore'}).on('exit', code => resolve(code)));
}

/** Everything the model was sent in the first request a session made, as text (the fake server's log). */
function firstRequest(box: RealClientBox, log: string): string {
	const first = readFileSync(join(box.dir, log), 'utf8')
		.split('\n')
		.filter(Boolean)
		.map(line => JSON.parse(line) as {url: string; body?: {messages?: unknown[]}})
		.find(request => request.url.startsWith('/v1/messages') && request.body?.messages);
	return JSON.stringify(first?.body?.messages ?? null);
}

function handoffFiles(project: string): string[] {
	const folder = join(project, '.controlroom', 'handoffs');
	return existsSync(folder)
		? readdirSync(folder)
				.filter(name => name.endsWith('.md'))
				.map(name => join(folder, name))
		: [];
}

type Row = {task_id: string; type: string; data: string; dedup_key: string | null};
function handoffEvents(box: RealClientBox): Row[] {
	return withRawDb(
		join(box.dir, 'cr', 'ledger.db'),
		db => db.prepare("SELECT task_id, type, data, dedup_key FROM events WHERE type LIKE 'handoff.%' ORDER BY seq").all() as Row[],
	);
}

const FAIL_THEN_COMMIT = [
	{tool: 'Bash', input: {command: 'ls no-such-file', description: 'look'}},
	{
		tool: 'Bash',
		input: {
			command: "echo ok > a.txt && git add a.txt && git -c user.email=t@example.com -c user.name=t commit -qm 'add a'",
			description: 'commit',
		},
	},
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
			expect(JSON.parse(written!.data)).toMatchObject({
				path: file,
				sha256: createHash('sha256').update(text).digest('hex'),
				trigger: 'auto',
			});
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
			expect(
				claude(box, [{tool: 'Read', input: {file_path: join(project, 'README')}}, {text: 'It says hello.'}], 'read it'),
			).toBe(0);
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

	it(
		'is given to the next session in its first request through the SessionStart hook, and marked taken; of two starting at once, one takes it',
		async () => {
			const {box, project} = hookedRepository();
			expect(claude(box, FAIL_THEN_COMMIT, 'add a.txt', 'first.jsonl')).toBe(0);
			// No reconciler runs: the next session's start writes the handoff, then takes it.
			expect(claude(box, [{text: 'Reading the handoff.'}], 'go on', 'second.jsonl')).toBe(0);
			const [file] = handoffFiles(project);
			const text = readFileSync(file!, 'utf8');
			const sent = JSON.parse(firstRequest(box, 'second.jsonl')) as unknown;
			const sentText = JSON.stringify(sent);
			expect(sentText).toContain(
				'SessionStart hook additional context: controlroom: the handoff the previous session in this repository left',
			);
			expect(sentText).toContain(JSON.stringify(text.split('## Gotchas')[1]!.split('\n## ')[0]!).slice(1, -1));
			const taken = handoffEvents(box).filter(row => row.type === 'handoff.taken');
			expect(taken).toHaveLength(1);
			expect(JSON.parse(taken[0]!.data)).toMatchObject({path: file, how: 'SessionStart'});
			expect(taken[0]!.dedup_key).toBe(`handoff-taken:${file}`);
			// Taken once: the session after it starts cold.
			expect(claude(box, [{text: 'ok'}], 'again', 'third.jsonl')).toBe(0);
			expect(firstRequest(box, 'third.jsonl')).not.toContain('controlroom: the handoff');

			// A new handoff; two sessions start together: the ledger gives it to one.
			const addB = JSON.parse(JSON.stringify(FAIL_THEN_COMMIT).replaceAll('a.txt', 'b.txt')) as unknown[];
			expect(claude(box, addB, 'add b.txt', 'fourth.jsonl')).toBe(0);
			expect(box.cli(['reconcile', '--once']).status).toBe(0);
			const statuses = await Promise.all([
				claudeAsync(box, [{text: 'one'}], 'one', 'racer-1.jsonl'),
				claudeAsync(box, [{text: 'two'}], 'two', 'racer-2.jsonl'),
			]);
			expect(statuses).toEqual([0, 0]);
			const given = ['racer-1.jsonl', 'racer-2.jsonl'].filter(log => firstRequest(box, log).includes('controlroom: the handoff'));
			expect(given).toHaveLength(1);
			expect(handoffEvents(box).filter(row => row.type === 'handoff.taken')).toHaveLength(2);
		},
		SLOW,
	);
});
