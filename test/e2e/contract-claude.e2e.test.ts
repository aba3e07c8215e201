import {spawn, type ChildProcess} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {BIN} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {endStarted, question, taskOf, type Wrapped} from '../helpers/held-runs.ts';
import {runAsPerson} from '../helpers/person.ts';
import {realClientBox, realClientScript, type RealClientBox} from '../helpers/realclients.ts';

// A contract in the field's shapes, put into the first turn of the real Claude Code 2.1.328
// (offline): what the model is sent is read from the fake model server's request log, never from
// controlroom's own idea of it. And a contract's authority.needs_reapproval holds the run when it
// reaches one, through the decisions lane (docs/headless-holds.md).

const SLOW = 240_000;
const started: ChildProcess[] = [];
afterEach(() => endStarted(started));

type LoggedRequest = {url: string; body?: {messages?: {role: string; content: unknown}[]}};

/** The text of the first user message of every request the model server got. */
function firstTurns(dir: string): string[] {
	return readFileSync(join(dir, 'fake-anthropic.jsonl'), 'utf8')
		.split('\n')
		.filter(Boolean)
		.map(line => JSON.parse(line) as LoggedRequest)
		.filter(request => request.url.startsWith('/v1/messages') && request.body?.messages)
		.map(request => {
			const first = request.body?.messages?.find(message => message.role === 'user')?.content;
			if (typeof first === 'string') return first;
			return (Array.isArray(first) ? (first as {type: string; text?: string}[]) : [])
				.filter(part => part.type === 'text')
				.map(part => part.text ?? '')
				.join('\n');
		});
}

/** `controlroom run --contract FILE [FLAGS] -- claude-offline.sh W -p {{contract}}`, in the background. */
function runWithContract(box: RealClientBox, contract: string, cwd: string, flags: readonly string[] = []): Wrapped {
	const child = spawn(
		process.execPath,
		[
			BIN,
			'run',
			'--agent',
			'claude',
			'--cwd',
			cwd,
			'--contract',
			contract,
			...flags,
			'--',
			realClientScript('claude-offline.sh'),
			box.dir,
			'-p',
			'{{contract}}',
			'--output-format',
			'json',
		],
		{env: {...box.env, SCRIPT_FILE: join(box.dir, 'turns.json')}, stdio: ['ignore', 'pipe', 'pipe']},
	);
	started.push(child);
	let stdout = '';
	let stderr = '';
	child.stdout?.on('data', chunk => (stdout += String(chunk)));
	child.stderr?.on('data', chunk => (stderr += String(chunk)));
	const done = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
	return {child, stdout: () => stdout, stderr: () => stderr, done};
}

describe('run --contract with the real Claude Code', () => {
	it(
		'puts a Markdown task into the first turn: its constraints, and its guesses as things to check first',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			writeFileSync(join(box.dir, 'turns.json'), JSON.stringify([{text: 'read it'}]));
			const repo = makeContractRepo();
			const contract = repo.place('shapes/guide-task-archive.md', 'archive.md');
			const run = runWithContract(box, contract, repo.dir);
			expect(await run.done, run.stderr()).toBe(0);
			expect(run.stderr()).toContain('contract "Archive projects untouched for a year" put into the first turn (token)');
			const [first] = firstTurns(box.dir);
			expect(first).toContain(`You have been handed a task contract (${contract}). Work only within it.`);
			expect(first).toContain(
				'Check this first: the writer marked these as guesses or provisional, not facts; confirm each before you rely on it:\n- constraints[1]: The job runs in batches of at most 500 projects (guess: the planner chokes above that).',
			);
			expect(first).toContain(
				'Constraints: these hold throughout the work:\n- Archiving never deletes data: it only sets `archived_at`.\n- The job runs in batches of at most 500 projects (guess: the planner chokes above that).',
			);
			// Then the canonical form, the same whatever shape it was written in
			expect(first).toContain('```yaml\nkind: task\ntitle: Archive projects untouched for a year\ngoal: ');
			expect(first).toContain(`  base_revision: ${repo.head}\n`);
		},
		SLOW,
	);

	it(
		'puts the portable shape in with its state snapshot: a provisional assumption is a thing to check first',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			writeFileSync(join(box.dir, 'turns.json'), JSON.stringify([{text: 'read it'}]));
			const repo = makeContractRepo();
			const contract = repo.place('shapes/production-refund-sync.yaml', 'refund.yaml');
			const run = runWithContract(box, contract, repo.dir, ['--require', 'authority,trace']);
			expect(await run.done, run.stderr()).toBe(0);
			const [first] = firstTurns(box.dir);
			expect(first).toContain('- state.provisional[0]: webhooks arrive in order for one refund');
			expect(first).toContain('goal: Refunds issued in the payment provider appear');
			expect(first).not.toContain('intent:');
		},
		SLOW,
	);

	it(
		'holds a command and a write the contract says need re-approval; denied, the command never runs; allowed, the write runs once',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			const project = join(box.dir, 'project');
			mkdirSync(project, {recursive: true});
			const migration = join(project, 'db', 'migrations', '0007_discount.sql');
			writeFileSync(
				join(box.dir, 'turns.json'),
				JSON.stringify([
					{tool: 'Bash', input: {command: 'echo deployed > deployed.txt # npm run deploy', description: 'deploy'}},
					{tool: 'Write', input: {file_path: migration, content: 'alter table orders add discount int;\n'}},
					{text: 'done'},
				]),
			);
			const repo = makeContractRepo();
			const contract = repo.write(
				'discount.yaml',
				`kind: task
title: Add the discount column
goal: Orders carry a discount, in a migration of its own
context: {repository: ., base_revision: ${repo.head}}
authority:
  may_write: [db/, src/]
  needs_reapproval: [db/migrations/, npm run deploy]
acceptance: ["\`npm test -- discount\` passes"]
`,
			);
			const run = runWithContract(box, contract, project);
			const explain = (error: unknown) => {
				throw new Error(`${String(error)}\n${run.stderr()}\n${run.stdout()}`);
			};
			const deploy = await question(run).catch(explain);
			const waiting = JSON.parse(box.cli(['snapshot', '--json']).stdout) as {decisions: Record<string, unknown>[]};
			expect(waiting.decisions).toEqual([
				expect.objectContaining({id: deploy, kind: 'deferred', state: 'open', tool: 'Bash', task: taskOf(run)}),
			]);
			const denied = runAsPerson(['decide', deploy, 'deny', '--reason', 'no deploys from this task'], {env: box.env});
			expect(denied.status, denied.stderr).toBe(0);
			const write = await question(run, 2).catch(explain);
			expect(existsSync(migration)).toBe(false);
			const allowed = runAsPerson(['decide', write, 'allow'], {env: box.env});
			expect(allowed.status, allowed.stderr).toBe(0);
			expect(await run.done, run.stderr()).toBe(0);
			expect(readFileSync(migration, 'utf8')).toBe('alter table orders add discount int;\n');
			expect(existsSync(join(project, 'deployed.txt'))).toBe(false);
		},
		SLOW,
	);
});
