import {execFileSync} from 'node:child_process';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {realClientScript, requireRealClients} from '../helpers/realclients.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

// The real `claude -p` as the plan reviewer, offline against the fake Anthropic server: each
// round's answer is scripted in round-N.json (its last text turn), and the model's request log
// shows what claude was given.
const ASK = 'Review the plans in the packet on stdin. Answer APPROVE, or a numbered list of points and nothing else.';

type Setup = {readonly dir: string; readonly repo: string; readonly ledger: string; readonly out: string};

function setUp(): Setup {
	const dir = scratchDir('cr-plan-review-');
	const repo = join(dir, 'repo');
	const out = join(dir, 'out');
	mkdirSync(repo);
	mkdirSync(out);
	writeFileSync(join(repo, 'limits.md'), 'The upstream API allows 100 requests per second.\n');
	writeFileSync(join(repo, 'plan-a.md'), '# Plan A\nShip the cache first: it halves the calls. See [limits](limits.md).\n');
	writeFileSync(
		join(repo, 'plan-b.md'),
		'# Plan B\nShip the queue first; the cache will not help at peak. See [limits](limits.md).\n',
	);
	const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], {stdio: 'ignore'});
	git('init', '-q');
	git('add', '.');
	git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'plans');
	return {dir, repo, ledger: freshLedgerFile(dir), out};
}

function claudeReviewer(setup: Setup, answers: readonly string[]): string {
	answers.forEach((text, index) => writeFileSync(join(setup.out, `round-${index + 1}.json`), JSON.stringify([{text}])));
	return [
		'SCENARIO=script',
		`SCRIPT_FILE="${setup.out}/round-$CONTROLROOM_REVIEW_ROUND.json"`,
		`FAKE_LOG="${setup.out}/model-$CONTROLROOM_REVIEW_ROUND.jsonl"`,
		`bash "${realClientScript('claude-offline.sh')}" "${setup.out}" -p "${ASK}"`,
	].join(' ');
}

type Snapshot = {
	queue: {lanes: {name: string; items: {taskId: string; reason: string}[]}[]};
	disagreements: {taskId: string; kind: string; items: string[]; agents: string[]; isOpen: boolean}[];
	tasks: {id: string; role: string | null; parentId: string | null; status: string}[];
};

// Two real claude runs through the wrapper per test: slow on a loaded machine, not timing-dependent.
describe('controlroom plan review with the real claude -p as reviewer', {timeout: 180_000}, () => {
	it('a reviewer answering a fix list twice ends in the queue’s disagreements lane, labelled evidence', () => {
		const env = requireRealClients();
		const setup = setUp();
		const fixes = '1. measure the cache hit rate at peak\n2. say what happens above 100 requests per second';
		// When claude answers the same fix list in both rounds
		const review = runCli(
			[
				'plan',
				'review',
				'plan-a.md',
				'--against',
				'plan-b.md',
				'--reviewer',
				claudeReviewer(setup, [fixes, fixes]),
				'--json',
				'--ledger',
				setup.ledger,
			],
			{cwd: setup.repo, env: {...env, CONTROLROOM_HOME: join(setup.dir, 'home')}},
		);
		// Then the review ends with exit 2, left to a person after two rounds
		expect(review.status, review.stderr).toBe(2);
		const result = JSON.parse(review.stdout) as {
			taskId: string;
			outcome: string;
			rounds: {verdict: string; reviewerTaskId: string}[];
		};
		expect(result.outcome).toBe('disagreement');
		expect(result.rounds.map(round => round.verdict)).toEqual(['FIX', 'FIX']);
		// And claude was given both plans and the evidence they cite, and in round 2 what round 1 left open
		const asked1 = readFileSync(join(setup.out, 'model-1.jsonl'), 'utf8');
		expect(asked1).toContain('## Plan: plan-a.md');
		expect(asked1).toContain('## Plan: plan-b.md');
		expect(asked1).toContain('The upstream API allows 100 requests per second.');
		expect(readFileSync(join(setup.out, 'model-2.jsonl'), 'utf8')).toContain('## Left open in round 1');
		// And the disagreements lane holds it, labelled evidence, with the points still open
		const snapshot = JSON.parse(runCli(['snapshot', '--json', '--ledger', setup.ledger]).stdout) as Snapshot;
		const lane = snapshot.queue.lanes.find(each => each.name === 'disagreements');
		expect(lane?.items).toEqual([
			expect.objectContaining({
				taskId: result.taskId,
				reason:
					'evidence: 2 points still open: measure the cache hit rate at peak, say what happens above 100 requests per second',
			}),
		]);
		expect(snapshot.disagreements).toEqual([
			expect.objectContaining({taskId: result.taskId, kind: 'evidence', agents: ['plan-a.md', 'plan-b.md'], isOpen: true}),
		]);
		// And each reviewer ran through the wrapper as a reviewer, under the plan review's task
		for (const round of result.rounds) {
			expect(snapshot.tasks.find(task => task.id === round.reviewerTaskId)).toMatchObject({
				role: 'reviewer',
				parentId: result.taskId,
				status: 'done',
			});
		}
		const timeline = runCli(['timeline', result.taskId, '--ledger', setup.ledger]).stdout;
		expect(timeline).toContain('plan review round 1');
		expect(timeline).toContain('disagreement (evidence) for a person');
	});

	it('approves when claude answers APPROVE in round 2, and nothing reaches the queue', () => {
		const env = requireRealClients();
		const setup = setUp();
		const reviewer = claudeReviewer(setup, ['1. measure the cache hit rate at peak', 'APPROVE']);
		const review = runCli(
			['plan', 'review', 'plan-a.md', '--against', 'plan-b.md', '--reviewer', reviewer, '--ledger', setup.ledger],
			{
				cwd: setup.repo,
				env: {...env, CONTROLROOM_HOME: join(setup.dir, 'home')},
			},
		);
		expect(review.status, review.stderr).toBe(0);
		expect(review.stdout).toContain('round 1: FIX (1)');
		expect(review.stdout).toContain('round 2: APPROVE');
		const snapshot = JSON.parse(runCli(['snapshot', '--json', '--ledger', setup.ledger]).stdout) as Snapshot;
		expect(snapshot.disagreements).toEqual([]);
		expect(snapshot.queue.lanes.find(each => each.name === 'disagreements')?.items).toEqual([]);
	});
});
