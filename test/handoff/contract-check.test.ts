import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {runCli} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';

/** One intentionally incomplete contract per rule, and the field its error line must name. */
const INVALID: readonly (readonly [fixture: string, field: string, rule: string])[] = [
	['task-missing-goal.yaml', 'goal', 'a task without a required field'],
	['bug-missing-expected.yaml', 'expected', 'a bug without a required field'],
	['transfer-missing-decisions.yaml', 'decisions', 'a transfer without a required field'],
	['missing-kind.yaml', 'kind', 'no kind'],
	['acceptor-is-operator.yaml', 'acceptance.acceptors.engineer', 'an acceptor equal to the operator'],
	['unknown-base-revision.yaml', 'context.base_revision', 'a base revision the repository does not have'],
	['placeholder.yaml', 'goal', 'an unresolved <placeholder>'],
	['undefined-test-command.yaml', 'execution.test_command', 'an npm script the repository does not define'],
	['undefined-setup-command.yaml', 'execution.setup_command', 'a Makefile target the repository does not define'],
	['missing-executable.yaml', 'execution.test_command', 'an executable that does not exist'],
	['credential-token.yaml', 'context.api_token', 'a token'],
	['credential-url.yaml', 'context.mirror', 'a password in a URL'],
	['credential-assignment.yaml', 'execution.permissions', 'a password assignment'],
	['credential-private-key.md', 'sections.Notes', 'a private key in a Markdown section'],
	['bug-with-steps.md', 'steps', 'a bug with Steps instead of Reproduce'],
];

const VALID = ['valid-task.yaml', 'valid-task.md', 'valid-bug.yaml', 'valid-bug.md', 'valid-transfer.yaml', 'valid-transfer.md'];

/** The secret values planted in the credential fixtures: none may ever be printed. */
const SECRETS = [
	'ghp_R8x2Kq9LmT4vW7yZ1aB3cD5eF6gH8iJ0kL2m',
	'Tr0ub4dor-and-3',
	'hunter2-orders-77',
	'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
];

describe('controlroom contract check', () => {
	const repo = makeContractRepo();

	it.each(INVALID)('rejects %s with exit 1 and a line naming %s (%s)', (fixture, field) => {
		const file = repo.place(fixture);
		const result = runCli(['contract', 'check', file]);
		expect(result.status).toBe(1);
		expect(result.stdout.split('\n')).toContainEqual(
			expect.stringMatching(new RegExp(`^error +${field.replace(/[.()[\]]/g, '\\$&')}: `)),
		);
	});

	it('rejects a file that is not YAML with exit 1 and one line naming the file and the position', () => {
		const file = repo.place('not-yaml.yaml');
		const result = runCli(['contract', 'check', file]);
		expect(result.status).toBe(1);
		expect(result.stdout).toMatch(new RegExp(`^${file}: not read as a contract: not valid YAML \\(\\w+\\) at line \\d+\n$`));
	});

	it.each(VALID)('accepts %s with exit 0 and no problem lines', fixture => {
		const file = repo.place(fixture);
		const result = runCli(['contract', 'check', file]);
		expect(result.stdout).toContain(': valid ');
		expect(result.stdout.trim().split('\n')).toHaveLength(1);
		expect(result.status).toBe(0);
	});

	it('checks the base revision against the real repository: the same contract fails once the commit is unknown', () => {
		const good = repo.place('valid-task.yaml', 'good.yaml');
		const bad = repo.write('bad.yaml', readFileSync(good, 'utf8').replace(repo.head, 'f'.repeat(40)));
		expect(runCli(['contract', 'check', good]).status).toBe(0);
		expect(runCli(['contract', 'check', bad]).stdout).toMatch(/^error +context\.base_revision: no such commit/m);
	});

	it('warns about a vague acceptance line but still passes', () => {
		const result = runCli(['contract', 'check', repo.place('vague-acceptance.yaml')]);
		expect(result.status).toBe(0);
		expect(result.stdout).toMatch(/^warning acceptance\.checks\[1\]: vague/m);
	});

	it.each(['text', 'json'])('never prints a credential value (%s output)', format => {
		for (const fixture of [
			'credential-token.yaml',
			'credential-url.yaml',
			'credential-assignment.yaml',
			'credential-private-key.md',
		]) {
			const args = ['contract', 'check', repo.place(fixture), ...(format === 'json' ? ['--json'] : [])];
			const result = runCli(args);
			expect(result.status).toBe(1);
			const output = result.stdout + result.stderr;
			for (const secret of SECRETS) expect(output).not.toContain(secret);
			for (const fragment of ['hunter2', 'Tr0ub4dor', 'R8x2Kq9L']) expect(output).not.toContain(fragment);
			if (format === 'json') {
				const verdict = JSON.parse(result.stdout) as {valid: boolean; problems: {field: string; message: string}[]};
				expect(verdict.valid).toBe(false);
				expect(verdict.problems.some(problem => problem.message.startsWith('looks like a credential'))).toBe(true);
			}
		}
	});

	it('reports --json with one entry per problem, each naming its field', () => {
		const result = runCli(['contract', 'check', repo.place('acceptor-is-operator.yaml'), '--json']);
		expect(result.status).toBe(1);
		expect(JSON.parse(result.stdout)).toMatchObject({
			version: 1,
			kind: 'task',
			valid: false,
			problems: [{severity: 'error', field: 'acceptance.acceptors.engineer'}],
		});
	});
});

describe('controlroom contract new', () => {
	it.each(['task', 'bug', 'transfer'])('writes a %s template that check flags until it is filled in', kind => {
		const repo = makeContractRepo();
		for (const name of [`${kind}.yaml`, `${kind}.md`]) {
			const file = `${repo.dir}/${name}`;
			expect(runCli(['contract', 'new', '--kind', kind, file]).status).toBe(0);
			const result = runCli(['contract', 'check', file]);
			expect(result.status).toBe(1);
			expect(result.stdout).toMatch(/^error +\S+: unresolved placeholder </m);
			expect(runCli(['contract', 'new', '--kind', kind, file]).status).toBe(1);
		}
	});

	it('refuses an unknown kind', () => {
		const result = runCli(['contract', 'new', '--kind', 'epic']);
		expect(result.status).toBe(64);
		expect(result.stderr).toContain('--kind');
	});
});
