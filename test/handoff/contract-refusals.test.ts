import {execFileSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli} from '../helpers/cli.ts';
import {makeContractRepo, type ContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

// What the receiving side cannot act on is refused, one line per problem naming the field as
// written and how to fix it (docs/contracts.md, "contract check"); what it can act on with care is
// a warning. Fixtures: test/fixtures/contracts/refused/.

const placeRefused = (repo: ContractRepo, name: string) => repo.place(`refused/${name}`, name);

function git(dir: string, ...args: string[]): string {
	return execFileSync('git', ['-C', dir, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
		encoding: 'utf8',
	}).trim();
}

/** `contract check FILE [ARGS]`, its exit code and its lines. */
function check(file: string, ...args: string[]): {status: number | null; lines: string[]} {
	const result = runCli(['contract', 'check', file, ...args]);
	return {status: result.status, lines: result.stdout.trimEnd().split('\n')};
}

describe('what a task needs, by kind', {timeout: 120_000}, () => {
	const repo = makeContractRepo();

	it.each([
		[
			'task-no-acceptance.md',
			'error   acceptance: required for a task: add acceptance: lines a person or a script can check (a list under acceptance)',
		],
		[
			'task-no-context.yaml',
			'error   context: required for a task: say where the code is and what already exists (prose, or repository and base_revision)',
		],
		[
			'acceptor-lines-beyond.yaml',
			'error   acceptance.acceptors.lee.lines: there is no acceptance line 4 (the contract has 2); number lines from 1',
		],
		[
			'acceptor-line-uncovered.yaml',
			"error   acceptance.acceptors: no acceptor accepts acceptance line 2: add it to someone's lines, or leave lines out to mean every line",
		],
		[
			'kind-ambiguous.md',
			'error   kind: required (task | bug | transfer): its fields fit bug and transfer; say which (kind: bug | transfer)',
		],
		['placeholder-optional.yaml', 'error   context.fixtures: unresolved placeholder <sanitized fixture path>'],
		['placeholder-section.md', 'error   sections.Notes: unresolved placeholder <the product owner>'],
		[
			'tripwire-undefined.yaml',
			"error   guardrails.tripwires[0]: the repository does not define it: expected an npm script 'check-migrations' in package.json; a tripwire runs only what the repository defines",
		],
	])('refuses %s with exit 1 and the line', (name, line) => {
		const result = check(placeRefused(repo, name));
		expect(result.status).toBe(1);
		expect(result.lines).toContain(line);
	});

	it('warns, and still takes, a task with steps, wording tied to one tool, and vague lines of every common form', () => {
		expect(check(placeRefused(repo, 'task-with-steps.md'))).toEqual({
			status: 0,
			lines: [
				expect.stringMatching(/: valid task contract, read as the Markdown guide \(1 warning\)$/),
				'warning steps: a task has no steps (its worker works out how): is this a transfer? The steps are kept as written',
			],
		});
		expect(check(placeRefused(repo, 'tool-wording.md')).lines).toContain(
			'warning context: tool-specific wording: say what to do ("run the test suite"), not which tool does it; the receiving agent may have other tools',
		);
		const vague = check(placeRefused(repo, 'vague-forms.yaml'));
		expect(vague.status).toBe(0);
		expect(vague.lines.filter(line => line.includes(': vague:')).map(line => line.split(':')[0])).toEqual([
			// Named as written: a list under acceptance is read as its checks.
			'warning acceptance[0]',
			'warning acceptance[1]',
			'warning acceptance[2]',
			'warning acceptance[3]',
		]);
	});

	it('reads a `<Component>` in code as code, not as a placeholder', () => {
		const file = repo.write(
			'code.md',
			'---\nkind: task\ntitle: Label the export button\n---\n\n## Goal\n\nThe `<ExportButton>` has an aria-label.\n\n## Context\n\nIt is in `src/ui/ExportButton.tsx`.\n\n## Acceptance\n\n- `npm test -- a11y` passes\n',
		);
		expect(check(file).status).toBe(0);
	});
});

describe("the receiver's policy: incomplete handoffs are invalid", {timeout: 120_000}, () => {
	const repo = makeContractRepo();

	it('--require authority,trace: a task without authority names authority; a trace without parent_span names it', () => {
		const noAuthority = check(repo.place('shapes/guide-task-rate-limit.md', 'no-authority.md'), '--require', 'authority,trace');
		expect(noAuthority.status).toBe(1);
		expect(noAuthority.lines).toContain(
			"error   authority: required by the receiver's policy (authority): write authority: what the receiver may read, may write, and what needs re-approval",
		);
		const orphan = check(placeRefused(repo, 'trace-no-parent.yaml'), '--require', 'authority,trace');
		expect(orphan.status).toBe(1);
		expect(orphan.lines).toContain(
			"error   trace.parent_span: required by the receiver's policy (trace): the span this handoff continues; without it the trace breaks here",
		);
		// The same files pass a receiver that requires nothing
		expect(check(repo.place('shapes/guide-task-rate-limit.md', 'plain.md')).status).toBe(0);
		expect(check(placeRefused(repo, 'trace-no-parent.yaml')).status).toBe(0);
	});

	it('names every production field a receiver requires and the portable shape lacks', () => {
		const result = check(
			repo.place('shapes/portable-empty-search.yaml', 'portable.yaml'),
			'--require',
			'state,authority,evidence,guardrails,trace,escalation,execution,delivery',
		);
		expect(result.status).toBe(1);
		// Each line names the field and teaches what to write
		const execution = 'write execution: operator, test_command and permissions';
		const delivery = 'write delivery: patch_revision, commands_and_results and untested_cases';
		expect(result.lines.filter(line => line.startsWith('error'))).toEqual([
			"error   state: required by the receiver's policy (state): write state: what was tried, and which assumptions are confirmed or provisional",
			"error   authority: required by the receiver's policy (authority): write authority: what the receiver may read, may write, and what needs re-approval",
			"error   evidence: required by the receiver's policy (evidence): write evidence: pointers (a file in the repository, a commit, a URL) that back the next step",
			"error   guardrails: required by the receiver's policy (guardrails): write guardrails: checks passed, checks still applying, tripwires",
			"error   trace: required by the receiver's policy (trace): write trace: trace_id and parent_span",
			"error   escalation: required by the receiver's policy (escalation): write escalation: what to do on contradictory evidence, partial success, an expired approval, low confidence",
			`error   execution.operator: required by the receiver's policy (execution): ${execution}`,
			`error   execution.test_command: required by the receiver's policy (execution): ${execution}`,
			`error   execution.permissions: required by the receiver's policy (execution): ${execution}`,
			`error   delivery.patch_revision: required by the receiver's policy (delivery): ${delivery}`,
			`error   delivery.commands_and_results: required by the receiver's policy (delivery): ${delivery}`,
			`error   delivery.untested_cases: required by the receiver's policy (delivery): ${delivery}`,
		]);
		expect(check(repo.place('shapes/guide-task-rate-limit.md', 'no-stop.md'), '--require', 'stop_when').lines).toContain(
			"error   stop_when: required by the receiver's policy (stop_when): write stop_when: the conditions on which the worker stops and asks",
		);
		expect(check(placeRefused(repo, 'task-no-context.yaml'), '--require', 'scope').lines).toContain(
			"error   scope: required by the receiver's policy (scope): write scope: what may change (allowed) and what must not (excluded)",
		);
	});

	it('trace:exception takes a trace without a parent on a recorded exception path', () => {
		const file = placeRefused(repo, 'trace-no-parent.yaml');
		const result = check(file, '--require', 'trace:exception');
		expect(result.status).toBe(0);
		expect(result.lines).toContain(
			'warning trace.parent_span: none: the work starts a new root trace, on an exception path that is recorded (policy trace:exception)',
		);
		const ledger = freshLedgerFile();
		const taken = runCli(['take', file, '--as', 'worker-1', '--require', 'trace:exception', '--ledger', ledger, '--json']);
		expect(taken.status, taken.stderr).toBe(0);
		const snapshot = JSON.parse(runCli(['snapshot', '--json', '--ledger', ledger]).stdout) as {
			queue: {lanes: {name: string; items: {reason: string}[]}[]};
		};
		expect(snapshot.queue.lanes.find(lane => lane.name === 'needs')?.items).toContainEqual(
			expect.objectContaining({
				reason: 'trace 7d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a has no parent span: taken as a new root trace (exception path)',
			}),
		);
	});

	it('--require evidence: every pointer must resolve: prose, a missing file, a bad URL, an unknown commit are each refused', () => {
		const result = check(placeRefused(repo, 'evidence-unresolved.yaml'), '--require', 'evidence');
		expect(result.status).toBe(1);
		expect(result.lines).toEqual(
			expect.arrayContaining([
				'error   evidence[0].pointer: is prose, not a pointer: point at a file in the repository, a commit or a URL',
				'error   evidence[1].pointer: does not resolve: no such file in the repository',
				'error   evidence[2].pointer: is not a valid http(s) URL',
				'error   evidence[3].pointer: does not resolve: no such commit in the repository',
			]),
		);
		expect(check(placeRefused(repo, 'evidence-unresolved.yaml')).status).toBe(0);
	});

	it('a bad policy value is a usage error naming it, and the config file key is the default', () => {
		const bad = runCli(['contract', 'check', placeRefused(repo, 'trace-no-parent.yaml'), '--require', 'trace,authorty']);
		expect(bad.status).toBe(64);
		expect(bad.stderr).toMatch(/^controlroom: --require: expected comma-separated policy values \(state, authority, /);
		const config = join(repo.dir, 'config.json');
		writeFileSync(config, JSON.stringify({contractRequire: ['trace']}));
		const fromFile = runCli(['contract', 'check', placeRefused(repo, 'trace-no-parent.yaml')], {
			env: {CONTROLROOM_CONFIG: config},
		});
		expect(fromFile.status).toBe(1);
		expect(fromFile.stdout).toMatch(/^error +trace\.parent_span: required by the receiver's policy \(trace\)/m);
		// The flag wins over the file, as for every setting
		const flag = runCli(['contract', 'check', placeRefused(repo, 'trace-no-parent.yaml'), '--require', 'stop_when'], {
			env: {CONTROLROOM_CONFIG: config},
		});
		expect(flag.stdout).not.toContain('trace.parent_span');
	});
});

describe('a stale base revision asks for a refresh', {timeout: 120_000}, () => {
	it('names the base revision and the later commit that changed a file in scope; the state policy refuses it', () => {
		const repo = makeContractRepo();
		const contract = repo.write(
			'stale.yaml',
			[
				'kind: task',
				'title: Round prices in the export',
				'goal: Exported prices have two decimals',
				'context: {repository: ., base_revision: BASE}',
				'state: {tried: [rounding in the template], confirmed: [the writer formats numbers]}',
				'scope: {allowed: [src/export/], excluded: [src/billing/]}',
				'acceptance: ["`npm test -- export` passes"]',
				'',
			]
				.join('\n')
				.replace('BASE', repo.head.slice(0, 12)),
		);
		expect(check(contract).status).toBe(0);
		// A later commit touches a file outside the scope: still fresh
		repo.write('README.md', 'notes\n');
		git(repo.dir, 'add', 'README.md');
		git(repo.dir, 'commit', '-qm', 'notes');
		expect(check(contract).lines).toHaveLength(1);
		// Then one touches a file in scope
		execFileSync('mkdir', ['-p', join(repo.dir, 'src', 'export')]);
		repo.write('src/export/writer.ts', 'export const decimals = 2;\n');
		git(repo.dir, 'add', 'src/export/writer.ts');
		git(repo.dir, 'commit', '-qm', 'writer');
		const later = git(repo.dir, 'rev-parse', '--short', 'HEAD');
		const message = `stale: ${repo.head.slice(0, 12)} is older than ${later}, which changed src/export/writer.ts (in scope): ask for a refresh (a new base revision, and the state as of it)`;
		const warned = check(contract);
		expect(warned.status).toBe(0);
		expect(warned.lines).toContain(`warning context.base_revision: ${message}`);
		const refused = check(contract, '--require', 'state');
		expect(refused.status).toBe(1);
		expect(refused.lines).toContain(`error   context.base_revision: ${message}`);
	});
});

describe('tripwires run at take and hand-in under the wrapper', {timeout: 120_000}, () => {
	it('runs a script the repository defines as a recorded task; a tripped one refuses the take, then the hand-in; a shell line is never run', () => {
		const repo = makeContractRepo();
		writeFileSync(
			join(repo.dir, 'package.json'),
			JSON.stringify({
				name: 'fixture',
				scripts: {test: 'node -e 0', 'check-migrations': 'node -e "process.exit(process.env.TRIP ? 3 : 0)"'},
			}),
		);
		const marker = join(repo.dir, 'never-run');
		const contract = repo.write(
			'tripwire.yaml',
			[
				'kind: task',
				'title: Add an index to orders',
				'goal: Listing a customer’s orders takes under 50 ms on the staging copy',
				'context: {repository: ., base_revision: BASE}',
				'acceptance: ["`npm test -- orders` passes"]',
				'guardrails:',
				'  tripwires:',
				'    - npm run check-migrations',
				`    - touch ${marker}`,
				'    - a migration file changes',
				'',
			]
				.join('\n')
				.replace('BASE', repo.head),
		);
		const ledger = freshLedgerFile();
		const tripped = runCli(['take', contract, '--as', 'worker-1', '--ledger', ledger], {env: {TRIP: '1'}});
		expect(tripped.status).toBe(1);
		expect(tripped.stderr).toMatch(
			/^error +guardrails\.tripwires\[0\]: tripped: `npm run check-migrations` exited 3 \(task t-[0-9a-f]{10}\)(: [^\n]*)?; the take is refused$/m,
		);
		const passed = runCli(['take', contract, '--as', 'worker-1', '--ledger', ledger]);
		expect(passed.status, passed.stderr).toBe(0);
		expect(passed.stdout).toMatch(/^ {2}tripwire npm run check-migrations: passed \(task t-[0-9a-f]{10}\)$/m);
		expect(readFileSync(contract, 'utf8')).toContain('touch');
		expect(() => readFileSync(marker)).toThrow();
		// At hand-in the tripwires run again, under the claim: a tripped one refuses the hand-in.
		const claim = /as (claim-\S+)/.exec(passed.stdout)?.[1] ?? '';
		const evidence = repo.write(
			'evidence.yaml',
			`before: {command: "npm test -- orders", exit_code: 1, output: "slow"}
change: [{file: db/index.sql, reason: the index}]
after: [{check: 1, command: "npm test -- orders", exit_code: 0, output: "3 passed"}]
uncertainty: []
review: {commit: ${repo.head}}
`,
		);
		const handInTripped = runCli(['hand-in', claim, '--evidence', evidence, '--as', 'worker-1', '--ledger', ledger], {
			env: {TRIP: '1'},
		});
		expect(handInTripped.status).toBe(1);
		expect(handInTripped.stderr).toMatch(
			/^error +guardrails\.tripwires\[0\]: tripped: `npm run check-migrations` exited 3 \(task t-[0-9a-f]{10}\)(: [^\n]*)?; the hand-in is refused$/m,
		);
		const handedIn = runCli(['hand-in', claim, '--evidence', evidence, '--as', 'worker-1', '--ledger', ledger]);
		expect(handedIn.status, handedIn.stderr).toBe(0);
		expect(() => readFileSync(marker)).toThrow();
		const db = openLedger(ledger);
		try {
			const runs = db.reader.eventsOfType([EventType.registered]).filter(event => event.data.role === 'tripwire');
			expect(runs).toHaveLength(4);
			expect(runs.map(run => db.reader.task(run.taskId)?.exitCode)).toEqual([3, 0, 3, 0]);
			expect(runs[0]?.data.command).toBe('npm run check-migrations');
			// The hand-in's tripwires are the claim's children on the board's tree
			expect(runs.slice(2).map(run => db.reader.task(run.taskId)?.parentId)).toEqual([claim, claim]);
		} finally {
			db.close();
		}
		// A parent the ledger lacks is a usage error, before anything runs
		const orphan = runCli(['run', '--parent', 'claim-none', '--ledger', ledger, '--', 'touch', marker]);
		expect(orphan.status).toBe(64);
		expect(orphan.stderr).toBe('controlroom: --parent: the ledger has no task claim-none\n');
		expect(() => readFileSync(marker)).toThrow();
	});
});
