import {existsSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import type {Snapshot} from '../../src/core/snapshot.ts';
import {makeReviewRepo, REVIEW_EVENT_TYPES} from '../helpers/review-repo.ts';
import {spawnAsPerson} from '../helpers/person.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const leftovers: number[] = [];
afterAll(() => {
	for (const pid of leftovers) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// Already gone.
		}
	}
});

/** A reviewer that keeps what it was given (stdin and the packet file) and answers `answer`. */
const keeping = (out: string, answer: string) =>
	`cat > "${out}/stdin-$CONTROLROOM_REVIEW_ROUND.txt"; cp "$CONTROLROOM_REVIEW_PACKET" "${out}/packet-$CONTROLROOM_REVIEW_ROUND.txt"; ${answer}`;

// Each test runs the real binary several times (worker, review, reviewers, fix run): slow under load.
describe('controlroom review with shell reviewers', {timeout: 90_000}, () => {
	it('approves on APPROVE: exit 0, the packet on stdin and in CONTROLROOM_REVIEW_PACKET, every step on the ledger', () => {
		const r = makeReviewRepo();
		const taskId = r.runWorker('approve me');
		const review = r.asPerson(['review', taskId, '--reviewer', keeping(r.out, 'echo APPROVE'), '--json']);
		expect(review.status, review.stderr).toBe(0);
		const result = JSON.parse(review.stdout) as {
			outcome: string;
			rounds: {verdicts: {verdict: string; reviewerTaskId: string}[]}[];
		};
		expect(result.outcome).toBe('approved');
		expect(result.rounds).toHaveLength(1);

		const stdin = readFileSync(join(r.out, 'stdin-1.txt'), 'utf8');
		expect(stdin).toBe(readFileSync(join(r.out, 'packet-1.txt'), 'utf8'));
		expect(stdin).toContain(`# Review packet: ${taskId} “approve me”`);
		expect(stdin).toContain(`change by ${taskId}`);
		expect(stdin).toContain(`report: I changed src/app.txt (task ${taskId})`);

		const types = r.events([...REVIEW_EVENT_TYPES]).map(event => [event.taskId, event.type]);
		expect(types).toEqual([
			[taskId, EventType.reviewStarted],
			[taskId, EventType.reviewPacketBuilt],
			[taskId, EventType.reviewVerdict],
			[taskId, EventType.reviewConcluded],
		]);
		// The reviewer ran through the wrapper as a reviewer: its own task, under the reviewed one, no slot.
		const reviewerId = result.rounds[0]?.verdicts[0]?.reviewerTaskId ?? '';
		expect(r.task(reviewerId)).toMatchObject({role: 'reviewer', parentId: taskId, status: 'done'});
		const [registered] = r.events([EventType.registered]).filter(event => event.taskId === reviewerId);
		expect(registered?.data.slot).toBeNull();
	});

	it('sends a fix list back to the worker, which runs again with the fixes in its brief, and a second review approves', () => {
		const r = makeReviewRepo();
		const taskId = r.runWorker('fix me');
		const reviewer = keeping(
			r.out,
			'if [ "$CONTROLROOM_REVIEW_ROUND" = 1 ]; then printf "1. add a test for an empty file\\n2. name the counter count\\n"; else echo APPROVE; fi',
		);
		const review = r.asPerson(['review', taskId, '--reviewer', reviewer]);
		expect(review.status, review.stderr).toBe(0);
		expect(review.stdout).toContain('reviewer 1 FIX (2)');
		expect(review.stdout).toContain(`review r-`);
		expect(review.stdout).toContain('approved after 2 rounds');

		const [fixRound] = r.events([EventType.reviewFixRound]);
		expect(fixRound?.data).toMatchObject({
			round: 1,
			fixes: ['add a test for an empty file', 'name the counter count'],
			workerStatus: 'done',
		});
		const rerunId = fixRound?.data.workerTaskId ?? '';
		const [rerun] = r.events([EventType.registered]).filter(event => event.taskId === rerunId);
		expect(rerun?.data).toMatchObject({rerunOf: taskId, role: 'worker', cwd: r.repo});
		const fixes = readFileSync(join(r.out, `${rerunId}.fixes`), 'utf8');
		expect(fixes).toContain('Your work was sent back by review (round 1). Make these fixes, then stop:');
		expect(fixes).toContain('1. add a test for an empty file\n2. name the counter count');
		const brief = readFileSync(join(r.out, `${rerunId}.brief`), 'utf8');
		expect(brief).toContain(`The worker ran: sh ${join('fixtures', 'review', 'worker.sh')}`.split(' ').slice(0, 3).join(' '));
		expect(brief).toContain('2. name the counter count');

		// Round 2 reviews the whole change from the first run's base, with the fix run's report.
		const second = readFileSync(join(r.out, 'stdin-2.txt'), 'utf8');
		expect(second).toContain('## Fixes asked for in the previous round\n1. add a test for an empty file');
		expect(second).toContain(`change by ${taskId}`);
		expect(second).toContain(`change by ${rerunId}`);
		expect(second).toContain(`report: I changed src/app.txt (task ${rerunId})`);
		const verdicts = r.events([EventType.reviewVerdict]).map(event => [event.data.round, event.data.verdict]);
		expect(verdicts).toEqual([
			[1, 'FIX'],
			[2, 'APPROVE'],
		]);
	});

	it('calls prose INVALID: exit 2, no fix round, an entry in the reviews lane', () => {
		const r = makeReviewRepo();
		const taskId = r.runWorker('prose');
		const review = r.asPerson(['review', taskId, '--reviewer', 'cat >/dev/null; echo "Looks good to me, nice work."']);
		expect(review.status).toBe(2);
		expect(review.stdout).toContain('reviewer 1 INVALID');
		expect(review.stdout).toContain('needs a person');
		expect(r.events([EventType.reviewFixRound])).toEqual([]);
		expect(r.tasks().filter(task => task.role === 'worker')).toHaveLength(1);
		const snapshot = JSON.parse(r.cli(['snapshot', '--json']).stdout) as Snapshot;
		const lane = snapshot.queue.lanes.find(entry => entry.name === 'reviews');
		expect(lane?.items.map(item => item.taskId)).toEqual([taskId]);
		expect(lane?.items[0]?.reason).toContain('answered INVALID in round 1');
		expect(r.cli(['snapshot', '--fail-on', 'reviews']).status).toBe(1);
	});

	it('calls a reviewer killed by SIGTERM STOPPED: exit 2, no fix round', async () => {
		const r = makeReviewRepo();
		const taskId = r.runWorker('stop the reviewer');
		const review = spawnAsPerson(['review', taskId, '--reviewer', 'cat >/dev/null; exec sleep 300', '--ledger', r.ledger], {
			env: r.env,
		});
		const reviewer = await waitFor(
			() => r.tasks().find(task => task.role === 'reviewer' && task.status === 'running' && task.pid !== null),
			{what: 'the reviewer to run', on: [onLedgerChange(r.ledger)]},
		);
		leftovers.push(reviewer.pid ?? 0);
		process.kill(reviewer.pid ?? 0, 'SIGTERM');
		const {status, stdout} = await review.done;
		expect(status).toBe(2);
		expect(stdout).toContain('reviewer 1 STOPPED (SIGTERM)');
		const [verdict] = r.events([EventType.reviewVerdict]);
		expect(verdict?.data).toMatchObject({verdict: 'STOPPED', signal: 'SIGTERM'});
		expect(r.events([EventType.reviewFixRound])).toEqual([]);
		const [concluded] = r.events([EventType.reviewConcluded]);
		expect(concluded?.data).toMatchObject({outcome: 'needs-person', cause: 'stopped'});
	});

	it.each([
		['raises SIGTERM itself', `cat >/dev/null; sh -c 'kill -TERM $$'`, 'SIGTERM'],
		['is killed as the OOM killer kills (SIGKILL)', `cat >/dev/null; sh -c 'kill -KILL $$'`, 'SIGKILL'],
	])('calls a reviewer that %s STOPPED, never INVALID: exit 2, no fix round', (_how, reviewer, signal) => {
		const r = makeReviewRepo();
		const taskId = r.runWorker(`reviewer ${signal}`);
		const review = r.asPerson(['review', taskId, '--reviewer', reviewer]);
		expect(review.status, review.stderr).toBe(2);
		expect(review.stdout).toContain(`reviewer 1 STOPPED (${signal})`);
		const [verdict] = r.events([EventType.reviewVerdict]);
		expect(verdict?.data).toMatchObject({verdict: 'STOPPED', signal});
		expect(r.events([EventType.reviewFixRound])).toEqual([]);
		const [concluded] = r.events([EventType.reviewConcluded]);
		expect(concluded?.data).toMatchObject({outcome: 'needs-person', cause: 'stopped', exitCode: 2});
	});

	it('labels two reviewers who disagree and exits 2 when they still disagree after the fix round', () => {
		const r = makeReviewRepo();
		const taskId = r.runWorker('disagree');
		const review = r.asPerson([
			'review',
			taskId,
			'--reviewer',
			'cat >/dev/null; echo APPROVE',
			'--reviewer',
			'cat >/dev/null; echo "1. split the function"',
		]);
		expect(review.status, review.stderr).toBe(2);
		expect(review.stdout).toContain('reviewers disagree: reviewer 1 approves, reviewer 2 asks for fixes');
		expect(review.stdout).toContain('[disagreement]');
		const snapshot = JSON.parse(r.cli(['snapshot', '--json']).stdout) as Snapshot;
		expect(snapshot.verdicts.map(entry => [entry.round, entry.reviewer, entry.verdict, entry.isDisagreement])).toEqual([
			[2, 1, 'APPROVE', true],
			[2, 2, 'FIX', true],
			[1, 1, 'APPROVE', true],
			[1, 2, 'FIX', true],
		]);
		expect(snapshot.queue.lanes.find(entry => entry.name === 'reviews')?.items[0]?.reason).toContain('reviewers disagree');
		expect(r.cli(['snapshot']).stdout).toContain('[disagree]');
	});

	it('trims a packet over 256 KB in the documented order and lists what it left out', () => {
		const r = makeReviewRepo();
		const taskId = r.runWorker('big change', {WORKER_BIG: '1'});
		const review = r.asPerson(['review', taskId, '--reviewer', keeping(r.out, 'echo APPROVE'), '--json']);
		expect(review.status, review.stderr).toBe(0);
		const [packet] = r.events([EventType.reviewPacketBuilt]);
		expect(packet?.data.trimmed).toEqual(['context', 'non-test bodies']);
		expect(packet?.data.listed).toEqual(['src/generated.txt']);
		const text = readFileSync(join(r.out, 'stdin-1.txt'), 'utf8');
		expect(Buffer.byteLength(text)).toBe(packet?.data.bytes);
		expect(Buffer.byteLength(text)).toBeLessThanOrEqual(256 * 1024);
		expect(text).toContain('- src/generated.txt (+5000 −0)');
		expect(text).not.toContain('generated line 4999');
		// The test file's body and the other changed file stay.
		expect(text).toContain('+test: the generated file has 5000 lines');
		expect(text).toContain(`+change by ${taskId}`);
	});

	it('refuses what it cannot review, in one line each', () => {
		const r = makeReviewRepo();
		const taskId = r.runWorker('no reviewer');
		expect(r.asPerson(['review', 'w-nope', '--reviewer', 'echo APPROVE'])).toMatchObject({status: 1});
		expect(r.asPerson(['review', 'w-nope', '--reviewer', 'echo APPROVE']).stderr).toMatch(
			/^controlroom: review: no task 'w-nope' in .*\n$/,
		);
		expect(r.asPerson(['review', 'w-nope']).status).toBe(64);
		expect(r.asPerson(['review', taskId, '--reviewer', '  ']).status).toBe(64);
		expect(r.asPerson(['review', taskId, '--reviewer', 'echo APPROVE', '--report', join(r.out, 'missing.txt')]).stderr).toContain(
			'--report: cannot read',
		);
		// A review that failed says so on the ledger too.
		const [concluded] = r.events([EventType.reviewConcluded]);
		expect(concluded?.data).toMatchObject({outcome: 'error', exitCode: 1});
		expect(existsSync(r.ledger)).toBe(true);
	});
});
