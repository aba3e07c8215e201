import {describe, expect, it} from 'vitest';
import {commandRequirement} from '../../src/core/contract/commands.ts';
import {detectCredential} from '../../src/core/contract/credentials.ts';
import {checkEvidence} from '../../src/core/contract/evidence.ts';
import {checkContract, type RepositoryFacts} from '../../src/core/contract/rules.ts';

const ALL_DEFINED: RepositoryFacts = {repository: () => 'ok', revisionExists: () => true, defines: () => true};

describe('detectCredential', () => {
	it.each([
		['sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv', 'API key (sk-)'],
		['ghp_R8x2Kq9LmT4vW7yZ1aB3cD5eF6gH8iJ0kL2m', 'GitHub token'],
		['github_pat_11ABCDEFG0123456789_abcdefghijklmnop', 'GitHub token'],
		['AKIAIOSFODNN7EXAMPLE', 'AWS access key'],
		['xoxb-123456789012-abcdefghij', 'Slack token'],
		['-----BEGIN RSA PRIVATE KEY-----', 'private key'],
		['https://user:s3cret@example.com/repo.git', 'password in a URL'],
		['export PASSWORD=correct-horse', 'secret assignment'],
		['api_key: 9f8e7d6c5b4a', 'secret assignment'],
	])('finds %s', (value, name) => {
		expect(detectCredential(value)).toBe(name);
	});

	it('finds a literal in a field named like a secret, but not a stand-in for one', () => {
		expect(detectCredential('hunter2hunter2', 'db_password')).toBe('secret in a field named db_password');
		for (const standIn of ['<password>', '$DB_PASSWORD', '${{ secrets.TOKEN }}', '****', 'redacted']) {
			expect(detectCredential(standIn, 'db_password')).toBeNull();
		}
	});

	it.each(['npm test', 'https://github.com/acme/orders.git', 'tokens: unknown until reported', 'the key decision', 'sk-short'])(
		'leaves %s alone',
		value => {
			expect(detectCredential(value)).toBeNull();
		},
	);
});

describe('commandRequirement', () => {
	it.each([
		['npm test', {kind: 'npm-script', name: 'test'}],
		['npm run lint -- --fix', {kind: 'npm-script', name: 'lint'}],
		['CI=1 npm run build && npm test', {kind: 'npm-script', name: 'build'}],
		['npm ci', {kind: 'package-json'}],
		['yarn typecheck', {kind: 'npm-script', name: 'typecheck'}],
		['make -j4 check', {kind: 'make-target', name: 'check'}],
		['make', {kind: 'make-target', name: null}],
		['./scripts/test.sh --fast', {kind: 'executable', name: './scripts/test.sh'}],
		['pytest -q', {kind: 'executable', name: 'pytest'}],
	])('reads %s', (command, requirement) => {
		expect(commandRequirement(command)).toEqual(requirement);
	});
});

describe('checkContract', () => {
	it('asks the repository only about fields that hold no placeholder', () => {
		const asked: string[] = [];
		const facts: RepositoryFacts = {
			repository: () => 'ok',
			revisionExists: (_repo, revision) => (asked.push(revision), true),
			defines: (_repo, requirement) => (asked.push(requirement.kind), true),
		};
		checkContract(
			{kind: 'bug', context: {repository: '.', base_revision: '<commit>'}, execution: {operator: 'a', test_command: 'npm test'}},
			facts,
		);
		expect(asked).toEqual(['npm-script']);
	});

	it('says a remote repository was not checked, as a warning', () => {
		const verdict = checkContract(
			{kind: 'bug', context: {repository: 'git@github.com:acme/x.git', base_revision: 'abc'}},
			{...ALL_DEFINED, repository: () => 'remote'},
		);
		expect(verdict.problems).toContainEqual({
			severity: 'warning',
			field: 'context.repository',
			message: expect.stringContaining('not checked'),
		});
	});

	it('names a wrong type without quoting the value', () => {
		const verdict = checkContract(
			{kind: 'bug', title: 'x', problem: 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv', reproduce: 'one string'},
			ALL_DEFINED,
		);
		expect(verdict.problems).toContainEqual({severity: 'error', field: 'reproduce', message: 'expected a list, not text'});
		expect(JSON.stringify(verdict.problems)).not.toContain('AbCdEfGh');
	});
});

describe('checkEvidence', () => {
	const terms = {checks: ['a passes', 'b passes'], acceptors: {engineer: 'lee'}, operator: 'worker-1'};
	const complete = {
		before: {command: 'npm test', exit_code: 1},
		change: [{file: 'a.ts', reason: 'fix'}],
		after: [
			{check: 1, command: 'npm test', exit_code: 0, output: 'ok'},
			{check: 2, command: 'npm test', exit_code: 0, output: 'ok'},
		],
		uncertainty: [],
		review: {commit: 'abc', acceptor: 'lee'},
	};

	it('accepts evidence for every line', () => {
		expect(checkEvidence(complete, terms).problems).toEqual([]);
	});

	it('refuses a failing check, a check the contract lacks, and a reviewer who is no acceptor', () => {
		const after = [
			{check: 1, command: 'x', exit_code: 0, output: ''},
			{check: 2, command: 'x', exit_code: 2, output: ''},
			{check: 3, command: 'x', exit_code: 0, output: ''},
		];
		const fields = checkEvidence({...complete, after, review: {commit: 'abc', acceptor: 'sam'}}, terms).problems.map(
			problem => problem.field,
		);
		expect(fields).toEqual(['after', 'after[2].check', 'review.acceptor']);
	});
});

describe('credential keys', () => {
	it('never spells out a key that is itself a credential, in contract or evidence problems', () => {
		const secret = 'ghp_R8x2Kq9LmT4vW7yZ1aB3cD5eF6gH8iJ0kL2m';
		const verdict = checkContract(
			{kind: 'bug', context: {repository: '.', base_revision: 'abc', notes: {[secret]: {scope: 'repo'}}}},
			ALL_DEFINED,
		);
		expect(verdict.problems).toContainEqual(
			expect.objectContaining({field: 'context.notes.(key withheld)', message: expect.stringContaining('credential')}),
		);
		expect(JSON.stringify(verdict.problems)).not.toContain('R8x2Kq9L');
		const evidence = checkEvidence({uncertainty: [], extra: {[secret]: 1}}, {checks: [], acceptors: {}, operator: null});
		expect(evidence.problems.map(problem => problem.field)).toContain('extra.(key withheld)');
		expect(JSON.stringify(evidence.problems)).not.toContain('R8x2Kq9L');
	});
});
