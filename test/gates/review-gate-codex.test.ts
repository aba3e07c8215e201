import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {realClientScript, requireRealClients} from '../helpers/realclients.ts';
import {makeReviewRepo, type ReviewRepo} from '../helpers/review-repo.ts';

// The real `codex exec` as the reviewer, offline against the fake OpenAI server: each round's
// answer is in round-N.txt (the fake's TEXT_FILE), and the model's request log shows what codex
// was given. codex-offline.sh gives codex no stdin, so the packet goes in as the prompt, read from
// the file CONTROLROOM_REVIEW_PACKET names (a reviewer may read either); codex exec prints only
// its final message on stdout, which is the verdict.
function codexReviewer(r: ReviewRepo, answers: readonly string[]): string {
	answers.forEach((text, index) => writeFileSync(join(r.out, `round-${index + 1}.txt`), text));
	return [
		'SCENARIO=text',
		`TEXT_FILE="${r.out}/round-$CONTROLROOM_REVIEW_ROUND.txt"`,
		`FAKE_LOG="${r.out}/model-$CONTROLROOM_REVIEW_ROUND.jsonl"`,
		`bash "${realClientScript('codex-offline.sh')}" "${r.out}" exec --skip-git-repo-check "$(cat "$CONTROLROOM_REVIEW_PACKET")"`,
	].join(' ');
}

// Real codex runs and wrapper runs per test: slow on a loaded machine, not timing-dependent.
describe('controlroom review with the real codex exec as reviewer', {timeout: 180_000}, () => {
	it('approves when codex answers APPROVE, and codex was given the packet', () => {
		const env = requireRealClients();
		const r = makeReviewRepo();
		const taskId = r.runWorker('codex approves');
		const review = r.cli(['review', taskId, '--reviewer', codexReviewer(r, ['APPROVE']), '--json'], env);
		expect(review.status, review.stderr).toBe(0);
		expect(JSON.parse(review.stdout)).toMatchObject({outcome: 'approved'});
		const verdicts = r.events([EventType.reviewVerdict]).map(event => [event.data.round, event.data.verdict]);
		expect(verdicts).toEqual([[1, 'APPROVE']]);
		const asked = readFileSync(join(r.out, 'model-1.jsonl'), 'utf8');
		expect(asked).toContain(`# Review packet: ${taskId}`);
		expect(asked).toContain(`change by ${taskId}`);
	});

	it('sends codex’s fix list back to the worker, which runs again with the fixes, and codex then approves', () => {
		const env = requireRealClients();
		const r = makeReviewRepo();
		const taskId = r.runWorker('codex asks for fixes');
		const reviewer = codexReviewer(r, ['1. handle the empty file\n2. name the counter count', 'APPROVE']);
		const review = r.cli(['review', taskId, '--reviewer', reviewer], env);
		expect(review.status, review.stderr).toBe(0);
		expect(review.stdout).toContain('approved after 2 rounds');
		const [fixRound] = r.events([EventType.reviewFixRound]);
		expect(fixRound?.data).toMatchObject({round: 1, fixes: ['handle the empty file', 'name the counter count']});
		const verdicts = r.events([EventType.reviewVerdict]).map(event => [event.data.round, event.data.verdict]);
		expect(verdicts).toEqual([
			[1, 'FIX'],
			[2, 'APPROVE'],
		]);
		// Round 2's packet, as codex received it, holds the fix run's change.
		expect(readFileSync(join(r.out, 'model-2.jsonl'), 'utf8')).toContain(`change by ${fixRound?.data.workerTaskId ?? ''}`);
	});

	it('is INVALID when codex answers in prose: no fix round, exit 2', () => {
		const env = requireRealClients();
		const r = makeReviewRepo();
		const taskId = r.runWorker('codex rambles');
		const review = r.cli(['review', taskId, '--reviewer', codexReviewer(r, ['Looks mostly fine to me, ship it.'])], env);
		expect(review.status).toBe(2);
		expect(r.events([EventType.reviewFixRound])).toEqual([]);
		const verdicts = r.events([EventType.reviewVerdict]).map(event => [event.data.round, event.data.verdict]);
		expect(verdicts).toEqual([[1, 'INVALID']]);
	});
});
