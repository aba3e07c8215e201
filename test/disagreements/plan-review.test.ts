import {execFileSync} from 'node:child_process';
import {mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

function repoWithPlan(): {readonly repo: string; readonly ledger: string} {
	const dir = scratchDir('cr-plan-review-');
	const repo = join(dir, 'repo');
	mkdirSync(repo);
	writeFileSync(join(repo, 'plan.md'), '# Plan\nDo the thing.\n');
	const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], {stdio: 'ignore'});
	git('init', '-q');
	git('add', '.');
	git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'plan');
	return {repo, ledger: freshLedgerFile(dir)};
}

describe('controlroom plan review with shell reviewers', {timeout: 90_000}, () => {
	it('counts a reviewer that writes to the work tree as INVALID: a plan reviewer only reads', () => {
		const {repo, ledger} = repoWithPlan();
		const run = runCli(['plan', 'review', 'plan.md', '--reviewer', 'echo x >> plan.md; echo APPROVE', '--ledger', ledger], {
			cwd: repo,
		});
		expect(run.status).toBe(2);
		expect(run.stdout).toContain('round 1: INVALID');
		expect(run.stdout).toContain('the reviewer changed files in');
	});

	it('refuses a missing plan in one line, exit 1, and a bad command line with 64', () => {
		const {repo, ledger} = repoWithPlan();
		const missing = runCli(['plan', 'review', 'nope.md', '--reviewer', 'echo APPROVE', '--ledger', ledger], {cwd: repo});
		expect(missing.status).toBe(1);
		expect(missing.stderr.trim().split('\n')).toEqual([`controlroom: plan review: ${join(repo, 'nope.md')}: no such file`]);
		expect(runCli(['plan', 'review', 'plan.md', '--ledger', ledger], {cwd: repo}).status).toBe(64);
		expect(runCli(['plan', 'check', 'plan.md', '--reviewer', 'x', '--ledger', ledger], {cwd: repo}).status).toBe(64);
	});
});
