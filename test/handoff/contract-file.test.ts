import {describe, expect, it} from 'vitest';
import {checkContractFile} from '../../src/handoff/check-contract.ts';
import {parseMarkdownContract} from '../../src/handoff/contract-file.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';

describe('the two forms of a contract', () => {
	it.each(['bug', 'transfer'])('reads the Markdown %s into the same fields as the YAML one', kind => {
		const repo = makeContractRepo();
		const yaml = checkContractFile(repo.place(`valid-${kind}.yaml`)).contract;
		const markdown = checkContractFile(repo.place(`valid-${kind}.md`)).contract;
		expect(markdown).not.toBeNull();
		const {execution: _unused, ...fromYaml} = (yaml ?? {}) as Record<string, unknown>;
		expect(markdown).toEqual(fromYaml);
	});

	it('merges sections into front matter mappings and keeps unknown sections for the scanners', () => {
		const document = parseMarkdownContract(
			[
				'---',
				'kind: task',
				'context: {repository: .}',
				'---',
				'## Context',
				'- base_revision: abc',
				'## Acceptance',
				'1. first',
				'2. second',
				'## Notes',
				'free text',
			].join('\n'),
		);
		expect(document).toEqual({
			kind: 'task',
			context: {repository: '.', base_revision: 'abc'},
			acceptance: {checks: ['first', 'second']},
			sections: {Notes: 'free text'},
		});
	});

	it('reports bad YAML in a section by line, without quoting it', () => {
		const repo = makeContractRepo();
		const file = repo.write(
			'broken.md',
			['---', 'kind: bug', '---', '', '## Context', 'repository: [x', 'password: s3cr3t-value'].join('\n'),
		);
		const checked = checkContractFile(file);
		expect(checked.isValid).toBe(false);
		expect(checked.problems).toEqual([
			{
				severity: 'error',
				field: '(file)',
				message: expect.stringMatching(/^section "Context": not valid YAML \(\w+\) at line \d+$/),
			},
		]);
		expect(JSON.stringify(checked)).not.toContain('s3cr3t');
	});
});
