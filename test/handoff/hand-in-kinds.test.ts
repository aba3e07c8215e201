import {execFileSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli, scratchDir, type CliResult} from '../helpers/cli.ts';
import {makeContractRepo, type ContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {runAsPerson} from '../helpers/person.ts';

// Work comes back as evidence per acceptance line: a command and its exit code, a test summary, a
// commit or a pull request, a screenshot a person looked at; the change is checked against the
// scope; and a contract that names no acceptor waits for a person to say who accepts it
// (docs/contracts.md, "Evidence and hand-in", "Acceptors").

/** A 1x1 PNG. */
const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
	'base64',
);

function git(dir: string, ...args: string[]): string {
	return execFileSync('git', ['-C', dir, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
		encoding: 'utf8',
	}).trim();
}

function claimOf(result: CliResult): string {
	const id = /as (claim-\S+)/.exec(result.stdout)?.[1];
	if (id === undefined) throw new Error(`no claim in: ${result.stdout}${result.stderr}`);
	return id;
}

type Snapshot = {queue: {lanes: {name: string; items: {taskId: string; reason: string}[]}[]}};

function waitingReason(cli: (...args: string[]) => CliResult, claim: string): string | undefined {
	const snapshot = JSON.parse(cli('snapshot', '--json').stdout) as Snapshot;
	return snapshot.queue.lanes.find(lane => lane.name === 'waiting')?.items.find(item => item.taskId === claim)?.reason;
}

function world(): {
	repo: ContractRepo;
	home: string;
	ledger: string;
	cli: (...args: string[]) => CliResult;
	person: (...args: string[]) => CliResult;
} {
	const repo = makeContractRepo();
	const home = scratchDir('cr-handin-');
	const ledger = freshLedgerFile(home);
	const env = {CONTROLROOM_HOME: home};
	return {
		repo,
		home,
		ledger,
		cli: (...args) => runCli([...args, '--ledger', ledger], {env}),
		person: (...args) => runAsPerson([...args, '--ledger', ledger], {env}),
	};
}

const RATE_LIMIT_EVIDENCE = `before: {command: "npm test -- reset", exit_code: 1, output: "1 failed"}
change: [{file: src/auth/reset.ts, reason: count requests per account}]
after:
  - {check: 1, command: "npm test -- reset", exit_code: 0, output: "9 passed"}
  - {check: 2, tests: {passed: 3, failed: 0}, command: "npm test -- mailer-queue"}
  - {check: 3, command: make check, exit_code: 0, output: ""}
uncertainty: []
review: {commit: 9a8b7c6}
`;

describe('a contract that names no acceptor', {timeout: 120_000}, () => {
	it('is handed in to wait until a person names one; contract ready (a person) names them, and only then is it accepted', () => {
		const {repo, cli, person} = world();
		const contract = repo.place('shapes/guide-task-rate-limit.md', 'reset.md');
		const taken = cli('take', contract, '--as', 'worker-1');
		expect(taken.status, taken.stderr).toBe(0);
		expect(taken.stdout).toContain(
			'  accepted by: nobody named yet (a person names one with controlroom contract ready FILE; the hand-in waits until then)',
		);
		const claim = claimOf(taken);
		const handed = cli('hand-in', claim, '--evidence', repo.write('evidence.yaml', RATE_LIMIT_EVIDENCE), '--as', 'worker-1');
		expect(handed.stderr).toBe('');
		expect(handed.stdout).toBe(
			`handed in ${claim}; waiting for a person to name its acceptor (controlroom contract ready FILE)\n`,
		);
		expect(waitingReason(cli, claim)).toBe(
			`hand-in waits until a person names its acceptor (controlroom contract ready ${contract})`,
		);
		// Nobody can accept it yet, a person included
		const early = person('accept', claim, '--as', 'ana');
		expect(early.status).toBe(1);
		expect(early.stderr).toBe(
			`controlroom: ${claim}: nobody is named to accept it yet: its contract names no acceptor; controlroom contract ready ${contract} names you\n`,
		);
		// An agent cannot name the acceptor; the worker cannot name itself
		const byAgent = cli('contract', 'ready', contract);
		expect(byAgent.status).toBe(77);
		expect(byAgent.stderr).toMatch(/^controlroom: contract ready .*: refused: only a person at a terminal says yes/);
		const self = person('contract', 'ready', contract, '--as', 'worker-1');
		expect(self.status).toBe(1);
		expect(self.stderr).toBe(`controlroom: worker-1 holds its claim ${claim}: whoever does the work cannot accept it\n`);
		// A person names themselves
		const ready = person('contract', 'ready', contract, '--as', 'ana');
		expect(ready.status, ready.stderr).toBe(0);
		expect(ready.stdout).toBe(`ready: ${contract}; ana accepts its work; claim ${claim} now waits for ana\n`);
		expect(waitingReason(cli, claim)).toBe('hand-in waits for ana');
		expect(JSON.parse(cli('work', '--json').stdout).items[0]).toMatchObject({taskId: claim, state: 'handed in'});
		expect(cli('timeline', claim).stdout).toContain('acceptor named: ana (by ana)');
		const accepted = person('accept', claim, '--as', 'ana');
		expect(accepted.status, accepted.stderr).toBe(0);
	});

	it('take --for WORKER: the person who hands it over accepts it; an agent cannot take for another', () => {
		const {repo, ledger, cli, person} = world();
		const contract = repo.place('shapes/guide-task-rate-limit.md', 'reset.md');
		expect(cli('take', '--for', 'worker-2', contract).status).toBe(77);
		const taken = person('take', '--for', 'worker-2', contract, '--as', 'dana');
		expect(taken.status, taken.stderr).toBe(0);
		expect(taken.stdout).toContain('worker-2 took "Rate-limit password reset requests per account" as claim-');
		expect(taken.stdout).toContain('  accepted by: dana');
		const claim = claimOf(taken);
		const handed = cli('hand-in', claim, '--evidence', repo.write('evidence.yaml', RATE_LIMIT_EVIDENCE), '--as', 'worker-2');
		expect(handed.stdout).toBe(`handed in ${claim}; waiting for dana\n`);
		const db = openLedger(ledger);
		try {
			const [event] = db.reader.eventsOfType([EventType.claimTaken]);
			expect(event?.data).toMatchObject({
				holder: 'worker-2',
				acceptorNamedBy: 'dana',
				acceptorTerms: {dana: {duty: 'handed the work over; reviews it against the acceptance lines', lines: null}},
			});
		} finally {
			db.close();
		}
	});
});

/** A task with five lines, one for each kind of evidence; the last one a UI line asking for a screenshot. */
function fiveLineContract(repo: ContractRepo): string {
	return repo.write(
		'ui.yaml',
		`kind: task
title: Show the filter chips above the orders table
goal: The active filters show as chips above the orders table, each removable
context: {repository: ., base_revision: ${repo.head}}
acceptance:
  checks:
    - "\`npm test -- chips\` passes"
    - the chips component's tests pass (a test summary)
    - the change is one commit on the branch
    - the change is reviewed in a pull request
    - 'with status=open selected, the chip "status: open" shows above the table (screenshot)'
  acceptors:
    mara: {duty: product, lines: [5]}
    lee: {duty: engineer, lines: [1, 2, 3, 4]}
`,
	);
}

function fiveLineEvidence(repo: ContractRepo, changes: Record<string, string> = {}): string {
	const after = {
		command: '{check: 1, command: "npm test -- chips", exit_code: 0, output: "6 passed"}',
		tests: '{check: 2, tests: {passed: 14, failed: 0, skipped: 1}, command: "npm test -- chip"}',
		commit: `{check: 3, commit: ${repo.head}}`,
		pr: '{check: 4, pull_request: "https://github.com/acme/shop/pull/212"}',
		shot: '{check: 5, screenshot: shots/chips.png}',
		...changes,
	};
	return `before: {command: "npm test -- chips", exit_code: 1, output: "no such component"}
change: [{file: src/ui/chips.tsx, reason: the component}]
after:
${Object.values(after)
	.filter(line => line !== '')
	.map(line => `  - ${line}`)
	.join('\n')}
uncertainty: [only Chrome was looked at]
review: {commit: ${repo.head}, acceptor: lee}
`;
}

describe('evidence beyond commands', {timeout: 120_000}, () => {
	it('takes a command, a test summary, a commit, a pull request and a screenshot; each refused when it shows nothing done', () => {
		const {repo, cli} = world();
		mkdirSync(join(repo.dir, 'shots'));
		writeFileSync(join(repo.dir, 'shots', 'chips.png'), PNG);
		writeFileSync(join(repo.dir, 'shots', 'notes.txt'), 'not an image');
		symlinkSync('/etc/passwd', join(repo.dir, 'shots', 'link.png'));
		execFileSync('sh', ['-c', 'mkfifo "$1"', 'sh', join(repo.dir, 'shots', 'fifo.png')]);
		const claim = claimOf(cli('take', fiveLineContract(repo), '--as', 'worker-1'));
		const refused = (changes: Record<string, string>) => {
			const result = cli(
				'hand-in',
				claim,
				'--evidence',
				repo.write('bad.yaml', fiveLineEvidence(repo, changes)),
				'--as',
				'worker-1',
			);
			expect(result.status).toBe(1);
			return result.stderr;
		};
		expect(refused({tests: '{check: 2, tests: {passed: 12, failed: 2}}'})).toMatch(
			/^error +after: acceptance line 2 did not pass \(2 failed\); pass the work back instead$/m,
		);
		expect(refused({commit: '{check: 3, commit: 0123456789abcdef}'})).toMatch(
			/^error +after: acceptance line 3 did not pass \(no commit 0123456789abcdef in the repository\); pass the work back instead$/m,
		);
		expect(refused({pr: '{check: 4, pull_request: "see the PR"}'})).toMatch(
			/^error +after: acceptance line 4 did not pass \(the pull request is not a URL, #N or owner\/repo#N\)/m,
		);
		expect(refused({shot: '{check: 5, screenshot: shots/notes.txt}'})).toMatch(
			/^error +after\[4\]\.screenshot: is not a PNG, JPEG, GIF or WebP image$/m,
		);
		const link = refused({shot: '{check: 5, screenshot: shots/link.png}'});
		expect(link).not.toContain('root:');
		expect(link).toMatch(/^error +after\[4\]\.screenshot: is a symbolic link \(not followed\)$/m);
		expect(refused({shot: '{check: 5, screenshot: shots/fifo.png}'})).toMatch(
			/^error +after\[4\]\.screenshot: is a FIFO, not a regular file$/m,
		);
		expect(refused({shot: '{check: 5, command: "open the page", exit_code: 0, output: "looks right"}'})).toMatch(
			/^error +after: acceptance line 5 asks for a screenshot a person looks at: add \{check: 5, screenshot: FILE\}$/m,
		);
		expect(refused({shot: '{check: 5, note: "see the attached"}'})).toMatch(
			/^error +after\[4\]: expected one kind of evidence: a command \(command, exit_code, output\), tests: \{passed, failed\}, a commit, a pull_request, or a screenshot$/m,
		);
		// Nothing refused was recorded as handed in
		expect(JSON.parse(cli('work', '--json').stdout).items[0]).toMatchObject({taskId: claim, state: 'held'});
	});

	it('keeps a screenshot by its hash; the UI line is accepted only after a person marks it looked at', () => {
		const {repo, home, ledger, cli, person} = world();
		mkdirSync(join(repo.dir, 'shots'));
		writeFileSync(join(repo.dir, 'shots', 'chips.png'), PNG);
		const claim = claimOf(cli('take', fiveLineContract(repo), '--as', 'worker-1'));
		const handed = cli('hand-in', claim, '--evidence', repo.write('evidence.yaml', fiveLineEvidence(repo)), '--as', 'worker-1');
		expect(handed.stderr).toBe('');
		expect(handed.stdout).toBe(`handed in ${claim}; waiting for lee\n`);
		const sha = createHash('sha256').update(PNG).digest('hex');
		const kept = join(home, 'screenshots', `${sha}.png`);
		expect(readFileSync(kept)).toEqual(PNG);
		// The worker's file changing afterwards changes nothing kept
		writeFileSync(join(repo.dir, 'shots', 'chips.png'), 'overwritten');
		const early = person('accept', claim, '--as', 'lee');
		expect(early.status).toBe(1);
		expect(early.stderr).toBe(
			`controlroom: ${claim}: a screenshot the acceptance asks for has not been looked at (line 5: ${kept}): look at it, then controlroom looked ${claim}\n`,
		);
		// Only a person, and never the one who did the work
		expect(cli('looked', claim).status).toBe(77);
		expect(person('looked', claim, '--as', 'worker-1').stderr).toBe(
			`controlroom: ${claim}: worker-1 did this work: whoever does the work cannot judge its screenshots\n`,
		);
		const looked = person('looked', claim, '--line', '5', '--as', 'mara');
		expect(looked.status, looked.stderr).toBe(0);
		expect(looked.stdout).toBe(`looked at line 5: ${kept} (sha256 ${sha.slice(0, 12)}) by mara\n`);
		const accepted = person('accept', claim, '--as', 'lee');
		expect(accepted.status, accepted.stderr).toBe(0);
		const db = openLedger(ledger);
		try {
			const [event] = db.reader.eventsOfType([EventType.evidenceLooked]);
			expect(event?.data).toMatchObject({sha256: sha, line: 5, by: 'mara', file: kept});
		} finally {
			db.close();
		}
	});
});

describe('scope against the change', {timeout: 120_000}, () => {
	function scoped(repo: ContractRepo): string {
		return repo.write(
			'scoped.yaml',
			`kind: task
title: Add the discount column to the export
goal: The CSV export has a discount column
context: {repository: ., base_revision: ${repo.head}}
scope:
  allowed: [src/export/, test/export/]
  excluded: [db/migrations/]
authority: {may_write: [src/, test/]}
acceptance:
  checks: ["\`npm test -- export\` passes"]
  acceptors: {engineer: lee}
`,
		);
	}

	function changeOutsideScope(repo: ContractRepo): string {
		for (const folder of ['src/export', 'db/migrations']) mkdirSync(join(repo.dir, folder), {recursive: true});
		repo.write('src/export/columns.ts', 'export const columns = ["discount"];\n');
		repo.write('db/migrations/0042_discount.sql', 'alter table orders add discount int;\n');
		git(repo.dir, 'add', 'src', 'db');
		git(repo.dir, 'commit', '-qm', 'discount');
		return git(repo.dir, 'rev-parse', 'HEAD');
	}

	const evidence = (patch: string) => `before: {command: "npm test -- export", exit_code: 1, output: "no discount column"}
change: [{file: src/export/columns.ts, reason: the column}]
after: [{check: 1, command: "npm test -- export", exit_code: 0, output: "4 passed"}]
uncertainty: []
review: {commit: ${patch}, acceptor: lee}
`;

	it('lists a file under scope.excluded in the hand-in, the queue and the review packet', () => {
		const {repo, ledger, cli, person} = world();
		const claim = claimOf(cli('take', scoped(repo), '--as', 'worker-1'));
		const patch = changeOutsideScope(repo);
		const handed = cli('hand-in', claim, '--evidence', repo.write('evidence.yaml', evidence(patch)), '--as', 'worker-1');
		expect(handed.status, handed.stderr).toBe(0);
		expect(handed.stdout).toBe(`handed in ${claim}; waiting for lee\n`);
		expect(handed.stderr).toBe(
			'warning change: db/migrations/0042_discount.sql: outside the scope (under scope.excluded (db/migrations/))\n',
		);
		expect(waitingReason(cli, claim)).toBe('hand-in waits for lee; 1 file outside the scope: db/migrations/0042_discount.sql');
		// The reviewer sees it in the packet
		const review = person('review', claim, '--reviewer', 'cat >/dev/null; echo APPROVE');
		expect(review.status, review.stderr).toBe(0);
		const db = openLedger(ledger);
		try {
			const [packet] = db.reader.eventsOfType([EventType.reviewPacketBuilt]);
			const text = readFileSync(packet?.data.path ?? '', 'utf8');
			expect(text).toContain(
				"## Scope\n1 file the change touched is outside the contract's scope: judge whether that was asked for\n- db/migrations/0042_discount.sql: under scope.excluded (db/migrations/)\n",
			);
		} finally {
			db.close();
		}
	});

	it('with the scope policy the hand-in is refused, exit 1', () => {
		const {repo, cli} = world();
		const claim = claimOf(cli('take', scoped(repo), '--as', 'worker-1', '--require', 'scope'));
		const patch = changeOutsideScope(repo);
		const refused = cli('hand-in', claim, '--evidence', repo.write('evidence.yaml', evidence(patch)), '--as', 'worker-1');
		expect(refused.status).toBe(1);
		expect(refused.stderr).toBe(
			`controlroom: hand-in of ${claim} refused\nerror   change: db/migrations/0042_discount.sql: outside the scope (under scope.excluded (db/migrations/)); the receiver's policy (scope) refuses it\n`,
		);
	});
});

describe('what the writer marked as a guess', {timeout: 120_000}, () => {
	it('take prints it to check first, and --json lists it', () => {
		const {repo, cli} = world();
		const contract = repo.place('shapes/guide-task-archive.md', 'archive.md');
		const taken = cli('take', contract, '--as', 'worker-4');
		expect(taken.status, taken.stderr).toBe(0);
		expect(taken.stdout.trimEnd().split('\n').at(-1)).toBe(
			'check first constraints[1]: The job runs in batches of at most 500 projects (guess: the planner chokes above that).',
		);
		expect(cli('pass-back', claimOf(taken), '--reason', 'again as JSON', '--as', 'worker-4').status).toBe(0);
		const json = JSON.parse(cli('take', contract, '--as', 'worker-4', '--json').stdout) as {guesses: unknown};
		expect(json.guesses).toEqual([
			{field: 'constraints[1]', text: 'The job runs in batches of at most 500 projects (guess: the planner chokes above that).'},
		]);
	});
});

describe('the MCP tools take the same kinds', {timeout: 120_000}, () => {
	let client: Client | undefined;
	afterEach(async () => {
		await client?.close();
		client = undefined;
	});

	it('hand_in takes evidence inline, a test summary and a commit among it; take reports who accepts and what to check first', async () => {
		const {repo, ledger} = world();
		const contract = repo.place('shapes/guide-task-archive.md', 'archive.md');
		client = new Client({name: 'controlroom-test', version: '0.0.0'});
		await client.connect(
			new StdioClientTransport({
				command: process.execPath,
				args: [BIN, 'mcp', '--ledger', ledger, '--as', 'agent-3'],
				cwd: repo.dir,
				env: {...process.env, CONTROLROOM_HOME: scratchDir('cr-home-')} as Record<string, string>,
				stderr: 'pipe',
			}),
		);
		type Result = {isError?: boolean; content: {text?: string}[]; structuredContent?: Record<string, unknown>};
		const call = async (name: string, args: Record<string, unknown>) =>
			(await client!.callTool({name, arguments: args})) as Result;
		const taken = await call('take', {file: contract});
		expect(taken.isError).toBeFalsy();
		expect(taken.structuredContent).toMatchObject({holder: 'agent-3', acceptors: ['mara']});
		// What the writer marked as a guess comes back with the take, to be checked first.
		const guess = {
			field: 'constraints[1]',
			text: 'The job runs in batches of at most 500 projects (guess: the planner chokes above that).',
		};
		expect(taken.structuredContent?.['guesses']).toEqual([guess]);
		expect(taken.content[0]?.text).toContain(`\ncheck first ${guess.field}: ${guess.text}`);
		const task = String(taken.structuredContent?.['taskId']);
		const evidence = {
			before: {command: 'npm test -- archive', exit_code: 1, output: 'no job'},
			change: [{file: 'src/jobs/archive.ts', reason: 'the job'}],
			after: [
				{check: 1, tests: {passed: 8, failed: 0}, command: 'npm test -- archive'},
				{check: 2, commit: repo.head, note: 'make check exits 0 at this commit'},
			],
			uncertainty: [],
			review: {commit: repo.head},
		};
		const both = await call('hand_in', {task, evidence, evidence_file: 'x.yaml'});
		expect(both.isError).toBe(true);
		expect(both.content[0]?.text).toBe('hand_in: give evidence_file or evidence (one of them)');
		const failing = await call('hand_in', {
			task,
			evidence: {...evidence, after: [{check: 1, tests: {passed: 7, failed: 1}}, evidence.after[1]]},
		});
		expect(failing.isError).toBe(true);
		expect(failing.content[0]?.text).toContain(
			'error after: acceptance line 1 did not pass (1 failed); pass the work back instead',
		);
		const handed = await call('hand_in', {task, evidence});
		expect(handed.isError, handed.content[0]?.text).toBeFalsy();
		expect(handed.content[0]?.text).toBe(`handed in ${task}; waiting for mara`);
		expect(existsSync(ledger)).toBe(true);
	});
});
