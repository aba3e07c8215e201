import {execFileSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {realClientScript, requireRealClients} from '../helpers/realclients.ts';
import {makeReviewRepo} from '../helpers/review-repo.ts';

const git = (repo: string, ...args: string[]): string => execFileSync('git', ['-C', repo, ...args], {encoding: 'utf8'});

/** What a checkout holds: HEAD, its status, and the file the reviewers go for. */
function checkoutState(repo: string) {
	return {
		head: git(repo, 'rev-parse', 'HEAD'),
		status: git(repo, 'status', '--porcelain', '--untracked-files=all'),
		diff: git(repo, 'diff', 'HEAD'),
		app: readFileSync(join(repo, 'src', 'app.txt'), 'utf8'),
	};
}

type Result = {outcome: string; rounds: {verdicts: {verdict: string; reason: string | null}[]}[]};

describe('review-gate reviewers cannot change the work', {timeout: 90_000}, () => {
	it('a reviewer that edits a file and answers APPROVE: INVALID naming the file; the checkout is unchanged', () => {
		const r = makeReviewRepo();
		const taskId = r.runWorker('review me read-only');
		const before = checkoutState(r.repo);
		// The reviewer sees the uncommitted work under review in its own copy.
		const reviewer = `grep -q "change by ${taskId}" src/app.txt && echo "reviewer was here" >> src/app.txt && echo APPROVE`;
		const review = r.asPerson(['review', taskId, '--reviewer', reviewer, '--json']);
		expect(review.status, review.stderr).toBe(2);
		const result = JSON.parse(review.stdout) as Result;
		expect(result.outcome).toBe('needs-person');
		expect(result.rounds[0]?.verdicts).toEqual([
			expect.objectContaining({verdict: 'INVALID', reason: 'the reviewer changed files it was to review: src/app.txt'}),
		]);
		expect(checkoutState(r.repo)).toEqual(before);
		// The copy is gone: the repository lists only its own work tree.
		expect(git(r.repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
	});

	it('a reviewer that commits in its copy, or writes into the reviewed checkout, is INVALID naming what it changed', () => {
		const r = makeReviewRepo();
		const taskId = r.runWorker('review me twice');
		const before = checkoutState(r.repo);
		const committing =
			'git add -A >/dev/null && git -c user.name=r -c user.email=r@example.com commit -qm "merged by reviewer" && echo APPROVE';
		const intoCheckout = `echo stray > "${r.repo}/test/stray.txt" && echo APPROVE`;
		const review = r.asPerson(['review', taskId, '--reviewer', committing, '--reviewer', intoCheckout, '--json']);
		expect(review.status, review.stderr).toBe(2);
		const verdicts = (JSON.parse(review.stdout) as Result).rounds[0]?.verdicts ?? [];
		expect(verdicts.map(verdict => verdict.verdict)).toEqual(['INVALID', 'INVALID']);
		// Its commit in its copy is named; the stray file in the checkout too: both reviewers ran while it was written, and which one wrote it cannot be told.
		expect(verdicts[0]?.reason).toMatch(/^the reviewer changed files it was to review: src\/app\.txt, test\/stray\.txt/);
		expect(verdicts[1]?.reason).toContain('test/stray.txt');
		expect(verdicts[1]?.reason).toContain('(in the reviewed checkout: test/stray.txt)');
		// The commit stayed in the copy: the checkout's HEAD and changes are as they were (but the stray file, reported).
		const after = checkoutState(r.repo);
		expect({head: after.head, diff: after.diff, app: after.app}).toEqual({head: before.head, diff: before.diff, app: before.app});
	});

	it('the real claude -p as reviewer, editing and committing with its Bash tool, then answering APPROVE: INVALID, the checkout unchanged', () => {
		const env = requireRealClients();
		const r = makeReviewRepo();
		const taskId = r.runWorker('claude reviews read-only');
		const before = checkoutState(r.repo);
		// claude-offline.sh runs claude in a folder of its own: REVIEWED carries the folder the reviewer was given.
		const edit =
			'cd "$REVIEWED" && echo "merged by reviewer" >> src/app.txt && git -c user.name=r -c user.email=r@example.com commit -qam "merged by reviewer"';
		writeFileSync(
			join(r.out, 'turns.json'),
			JSON.stringify([{tool: 'Bash', input: {command: edit, description: 'merge it'}}, {text: 'APPROVE'}]),
		);
		const reviewer = [
			'REVIEWED="$PWD"',
			'SCENARIO=script',
			`SCRIPT_FILE="${r.out}/turns.json"`,
			`FAKE_LOG="${r.out}/model.jsonl"`,
			`bash "${realClientScript('claude-offline.sh')}" "${r.out}" -p "Review the packet on stdin." --dangerously-skip-permissions`,
		].join(' ');
		const review = r.asPerson(['review', taskId, '--reviewer', reviewer, '--json'], env);
		expect(review.status, review.stderr).toBe(2);
		const verdicts = (JSON.parse(review.stdout) as Result).rounds[0]?.verdicts ?? [];
		expect(verdicts).toEqual([
			expect.objectContaining({verdict: 'INVALID', reason: 'the reviewer changed files it was to review: src/app.txt'}),
		]);
		// The model was asked twice: its Bash call ran (its result went back), and then it answered.
		expect(readFileSync(join(r.out, 'model.jsonl'), 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(2);
		expect(checkoutState(r.repo)).toEqual(before);
	});
});
