import {execFileSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {checkEvidence} from '../../src/core/contract/evidence.ts';
import {checkContract, type RepositoryFacts} from '../../src/core/contract/rules.ts';
import {evidenceTemplate} from '../../src/core/contract/template.ts';
import {parseYaml} from '../../src/handoff/contract-file.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

const ALL_DEFINED: RepositoryFacts = {repository: () => 'ok', revisionExists: () => true, defines: () => true};

const TRANSFER = {
	kind: 'transfer',
	title: 'How the export filter was fixed',
	problem: 'CSV export ignored the filters',
	solution_shape: 'reuse the list query builder',
	decisions: [{choice: 'reuse', over: 'a second query', why: 'one place'}],
	steps: ['pass the filter'],
	verification: ['`npm test` passes'],
	gotchas: [],
};

describe('contracts read what people write', () => {
	it.each([
		['a mapping', {ORDERS_DB_URL: 'point it at your own database', PORT: 5432}],
		['a list of names', ['a path', 'a version', 'a service name']],
		['a list of name: how items', [{ORDERS_DB_URL: 'your own database'}, 'the CI runner name']],
		['an empty list', []],
	])('takes environment_specific as %s', (_, environmentSpecific) => {
		expect(checkContract({...TRANSFER, environment_specific: environmentSpecific}, ALL_DEFINED).problems).toEqual([]);
	});

	it("says what is wrong in the contract's words, never zod's", () => {
		const verdict = checkContract(
			{
				...TRANSFER,
				title: 2024,
				steps: 'one step',
				decisions: {choice: 'x'},
				environment_specific: 'the database URL',
			},
			ALL_DEFINED,
		);
		expect(verdict.problems).toEqual(
			expect.arrayContaining([
				{severity: 'error', field: 'title', message: 'expected text, not a number (put it in quotes)'},
				{severity: 'error', field: 'steps', message: 'expected a list, not text'},
				{severity: 'error', field: 'decisions', message: 'expected a list, not a mapping'},
				{severity: 'error', field: 'environment_specific', message: 'expected a list or a mapping, not text'},
			]),
		);
		expect(JSON.stringify(verdict.problems)).not.toMatch(/record|array|string|Invalid input/);
	});

	it('keeps a revision as written, however much it looks like a number', () => {
		expect(parseYaml('base_revision: 5333014\npatch_revision: 0123456\ncommit: 12e4567\nport: 5432\n', 'x')).toEqual({
			base_revision: '5333014',
			patch_revision: '0123456',
			commit: '12e4567',
			port: 5432,
		});
	});

	it('checks an all-digit short revision against the repository, as a revision', () => {
		// Given a repository whose HEAD's short hash is all digits (commits until one is: about 1 in 27)
		const repo = makeContractRepo();
		const short = execFileSync(
			'sh',
			[
				'-c',
				'for i in $(seq 400); do git -c user.email=t@e -c user.name=t commit -q --allow-empty -m "$i"; h=$(git rev-parse --short=7 HEAD); case $h in *[a-f]*) ;; *) echo "$h"; exit 0;; esac; done; exit 1',
			],
			{cwd: repo.dir, encoding: 'utf8'},
		).trim();
		expect(short).toMatch(/^\d{7}$/);
		const valid = readFileSync(repo.place('valid-task.yaml'), 'utf8');
		// When a contract names it unquoted, and another names an all-digit commit that does not exist
		const named = repo.write('digits.yaml', valid.replace(/base_revision: \S+/, `base_revision: ${short}`));
		const unknown = repo.write(
			'unknown.yaml',
			valid.replace(/base_revision: \S+/, `base_revision: ${short === '1111111' ? '2222222' : '1111111'}`),
		);
		// Then the first is valid, and the second is told the commit is unknown (not "expected text")
		expect(runCli(['contract', 'check', named]).status).toBe(0);
		const result = runCli(['contract', 'check', unknown]);
		expect(result.status).toBe(1);
		expect(result.stdout).toMatch(/^error +context\.base_revision: no such commit in the repository$/m);
	});

	it.each(['task.yaml', 'task.md'])(
		'lets optional template fields stay placeholders once the required ones are filled in (%s)',
		name => {
			const repo = makeContractRepo();
			const file = join(repo.dir, name);
			expect(runCli(['contract', 'template', 'task', file]).status).toBe(0);
			const template = readFileSync(file, 'utf8');
			const filled = [
				['<one line naming the work>', 'Keep the filter in the CSV export'],
				['<the outcome, as someone would observe it>', 'The export has only the filtered rows'],
				['<commit the work starts from>', repo.head],
				['<what may change>', 'export query'],
				['<what must not change>', 'authentication'],
				['<who does the work>', 'worker-1'],
				['<command the repository defines, e.g. npm test>', 'npm test'],
				['<access the operator has>', 'repository write access'],
				['<a line a person or a script can check>', '"`npm test` passes with a test exporting status=open"'],
				['<who accepts; never the operator>', 'lee'],
				['<a condition that means stop and ask>', 'the filter semantics conflict with the docs'],
			].reduce((text, [placeholder, value]) => text.replace(placeholder!, value!), template);
			// The optional ones are still there, as the template wrote them
			expect(filled).toContain('sample_output: <optional>');
			expect(filled).toContain('setup_command: <command the repository defines, e.g. npm ci>');
			repo.write(name, filled);
			const result = runCli(['contract', 'check', file]);
			expect(result.stdout).toMatch(/: valid task contract/);
			expect(result.status).toBe(0);
		},
	);

	it('still flags a required field left as its placeholder', () => {
		const repo = makeContractRepo();
		const file = repo.write(
			'task.yaml',
			readFileSync(repo.place('valid-task.yaml'), 'utf8').replace(/^goal: .*$/m, 'goal: <the outcome>'),
		);
		const result = runCli(['contract', 'check', file]);
		expect(result.status).toBe(1);
		expect(result.stdout).toMatch(/^error +goal: unresolved placeholder <the outcome>$/m);
	});
});

describe('controlroom contract template evidence', () => {
	it('writes an evidence file shaped to the contract, which hand-in refuses until it is filled in', () => {
		// Given a taken contract with two acceptance lines
		const repo = makeContractRepo();
		const contract = repo.place('valid-task.yaml');
		const ledger = freshLedgerFile();
		const taken = runCli(['take', contract, '--as', 'worker-1', '--ledger', ledger]);
		const claim = /as (claim-\S+)/.exec(taken.stdout)?.[1] ?? '';
		// When the evidence template is written for it
		const evidence = join(repo.dir, 'evidence.yaml');
		const written = runCli(['contract', 'template', 'evidence', evidence, '--contract', contract]);
		expect(written.status).toBe(0);
		const template = readFileSync(evidence, 'utf8');
		// Then it has one after entry per acceptance line, each line quoted above it, and the acceptors named
		expect(template).toContain('  # 1: `npm test -- export` passes, with a new test for the filtered export\n  - check: 1');
		expect(template).toContain('  # 2: `make check` exits 0\n  - check: 2');
		expect(template).toContain('(one of dana, lee)');
		// And hand-in refuses it as it is, naming each placeholder's field
		const refused = runCli(['hand-in', claim, '--evidence', evidence, '--ledger', ledger]);
		expect(refused.status).toBe(1);
		expect(refused.stderr.split('\n')[0]).toBe(`controlroom: hand-in of ${claim} refused`);
		expect(refused.stderr).toMatch(/^error +after\[1\]\.command: unresolved placeholder </m);
		expect(refused.stderr).toMatch(/^error +review\.acceptor: unresolved placeholder </m);
		// Filled in (its optional before.output and before.base_revision left as placeholders), it is accepted
		const filled = template
			.replace('<a command that shows the problem before the change>', 'npm test -- export')
			.replace('exit_code: <its real exit code>', 'exit_code: 1')
			.replace('<a file you changed>', 'src/export.ts')
			.replace('<why it changed>', 'apply the filter')
			.replace('<the command that checks line 1>', 'npm test -- export')
			.replace('<the command that checks line 2>', 'make check')
			.replaceAll('<its real exit code; 0 to hand in>', '0')
			.replaceAll('<what it printed, cut to what matters>', 'ok')
			.replace('<the commit to review>', repo.head)
			.replace(/<who accepts the work[^>]*>/, 'lee');
		expect(filled).toContain('output: <optional, what it printed>');
		repo.write('evidence.yaml', filled);
		const accepted = runCli(['hand-in', claim, '--evidence', evidence, '--ledger', ledger]);
		expect(accepted.stderr).toBe('');
		expect(accepted.stdout).toBe(`handed in ${claim}; waiting for lee\n`);
	});

	it('flags placeholders in evidence written by hand too', () => {
		const terms = {checks: ['a passes'], acceptors: {engineer: 'lee'}, operator: 'worker-1'};
		const fields = checkEvidence(parseYaml(evidenceTemplate(null), 'evidence'), terms).problems.map(problem => problem.field);
		expect(fields).toEqual(expect.arrayContaining(['before.command', 'change[0].file', 'after[0].command', 'review.commit']));
		expect(fields).not.toContain('before.output');
	});

	it('never overwrites a file, and refuses an unknown kind', () => {
		const dir = scratchDir();
		const file = join(dir, 'evidence.yaml');
		expect(runCli(['contract', 'template', 'evidence', file]).status).toBe(0);
		const again = runCli(['contract', 'template', 'evidence', file]);
		expect(again.status).toBe(1);
		expect(again.stderr).toBe(`controlroom: contract template: ${file} exists; not overwriting it\n`);
		const unknown = runCli(['contract', 'template', 'epic']);
		expect(unknown.status).toBe(64);
		expect(unknown.stderr).toBe("controlroom: contract template: expected task, bug, transfer or evidence, got 'epic'\n");
	});
});
