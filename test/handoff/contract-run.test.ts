import {describe, expect, it} from 'vitest';
import {HandoffError} from '../../src/handoff/claims.ts';
import {injectContract, prepareContractRun} from '../../src/handoff/contract-run.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';

const RENDERED = 'CONTRACT';

describe('injectContract', () => {
	it.each([
		['claude', ['-p', 'fix the export'], ['-p', 'fix the export\n\nCONTRACT'], 'appended to the prompt'],
		['claude', ['-p', '--model', 'opus', 'fix it'], ['-p', '--model', 'opus', 'fix it\n\nCONTRACT'], 'appended to the prompt'],
		['claude', ['-p'], ['-p', 'CONTRACT'], 'added as the prompt'],
		['claude', ['-p', '--model', 'opus'], ['-p', '--model', 'opus', 'CONTRACT'], 'added as the prompt'],
		['/usr/local/bin/codex', ['exec', 'fix the export'], ['exec', 'fix the export\n\nCONTRACT'], 'appended to the prompt'],
		['codex', ['exec', '--json'], ['exec', '--json', 'CONTRACT'], 'added as the prompt'],
		['codex', ['exec'], ['exec', 'CONTRACT'], 'added as the prompt'],
		['my-agent', ['--task', 'first: {{contract}}'], ['--task', 'first: CONTRACT'], 'token'],
	] as const)('%s %j becomes %j', (command, args, expected, placement) => {
		expect(injectContract(command, args, RENDERED)).toEqual({args: expected, placement});
	});

	it('refuses a command whose prompt it cannot find', () => {
		expect(() => injectContract('my-agent', ['go'], RENDERED)).toThrow(/put \{\{contract\}\} in the argument/);
		expect(() => injectContract('claude', ['chat'], RENDERED)).toThrow(HandoffError);
	});
});

describe('prepareContractRun', () => {
	it('validates first: an invalid contract throws with its problems', () => {
		const repo = makeContractRepo();
		let error: unknown;
		try {
			prepareContractRun(repo.place('acceptor-is-operator.yaml'), 'claude', ['-p']);
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(HandoffError);
		expect((error as HandoffError).problems.map(problem => problem.field)).toEqual(['acceptance.acceptors.engineer']);
	});

	it('renders a Markdown contract as the canonical fields in the first turn', () => {
		const repo = makeContractRepo();
		const run = prepareContractRun(repo.place('valid-bug.md'), 'codex', ['exec', 'fix this bug']);
		expect(run.title).toBe('CSV export ignores the status filter');
		const prompt = run.args[1] ?? '';
		expect(prompt.startsWith('fix this bug\n\nYou have been handed a bug contract')).toBe(true);
		expect(prompt).toContain('reproduce:\n  - Select status=open on the orders page');
		expect(prompt).toContain(`base_revision: ${repo.head}`);
	});
});
