import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {realClientScript, requireRealClients} from '../helpers/realclients.ts';
import {makeReviewRepo, type ReviewRepo} from '../helpers/review-repo.ts';

// The real `claude -p` as the reviewer, offline against the fake Anthropic server: each round's
// answer is scripted in round-N.json (its last text turn), and the model's request log shows what
// claude was given.
const ASK = 'Review the packet on stdin. Answer APPROVE, or a numbered list of fixes and nothing else.';

function claudeReviewer(r: ReviewRepo, answers: readonly string[]): string {
	answers.forEach((text, index) => writeFileSync(join(r.out, `round-${index + 1}.json`), JSON.stringify([{text}])));
	return [
		'SCENARIO=script',
		`SCRIPT_FILE="${r.out}/round-$CONTROLROOM_REVIEW_ROUND.json"`,
		`FAKE_LOG="${r.out}/model-$CONTROLROOM_REVIEW_ROUND.jsonl"`,
		`bash "${realClientScript('claude-offline.sh')}" "${r.out}" -p "${ASK}"`,
	].join(' ');
}

// Two real claude runs and three wrapper runs per test: slow on a loaded machine, not timing-dependent.
describe('controlroom review with the real claude -p as reviewer', {timeout: 120_000}, () => {
	it('approves when claude answers APPROVE, and claude was given the packet', () => {
		const env = requireRealClients();
		const r = makeReviewRepo();
		const taskId = r.runWorker('claude approves');
		const review = r.cli(['review', taskId, '--reviewer', claudeReviewer(r, ['APPROVE']), '--json'], env);
		expect(review.status, review.stderr).toBe(0);
		expect(JSON.parse(review.stdout)).toMatchObject({outcome: 'approved'});
		const verdicts = r.events([EventType.reviewVerdict]).map(event => [event.data.round, event.data.verdict]);
		expect(verdicts).toEqual([[1, 'APPROVE']]);
		const asked = readFileSync(join(r.out, 'model-1.jsonl'), 'utf8');
		expect(asked).toContain(`# Review packet: ${taskId}`);
		expect(asked).toContain(`change by ${taskId}`);
	});

	it('sends claude’s fix list back to the worker, which runs again with the fixes, and claude then approves', () => {
		const env = requireRealClients();
		const r = makeReviewRepo();
		const taskId = r.runWorker('claude asks for fixes');
		const reviewer = claudeReviewer(r, ['1. handle the empty file\n2. name the counter count', 'APPROVE']);
		const review = r.cli(['review', taskId, '--reviewer', reviewer], env);
		expect(review.status, review.stderr).toBe(0);
		expect(review.stdout).toContain('approved after 2 rounds');
		const [fixRound] = r.events([EventType.reviewFixRound]);
		expect(fixRound?.data).toMatchObject({
			round: 1,
			fixes: ['handle the empty file', 'name the counter count'],
			workerStatus: 'done',
		});
		const rerunId = fixRound?.data.workerTaskId ?? '';
		expect(readFileSync(join(r.out, `${rerunId}.fixes`), 'utf8')).toContain(
			'1. handle the empty file\n2. name the counter count',
		);
		expect(readFileSync(join(r.out, `${rerunId}.brief`), 'utf8')).toContain('2. name the counter count');
		const verdicts = r.events([EventType.reviewVerdict]).map(event => [event.data.round, event.data.verdict]);
		expect(verdicts).toEqual([
			[1, 'FIX'],
			[2, 'APPROVE'],
		]);
		// Round 2's packet, as claude received it, holds the fix run's change.
		expect(readFileSync(join(r.out, 'model-2.jsonl'), 'utf8')).toContain(`change by ${rerunId}`);
	});
});
