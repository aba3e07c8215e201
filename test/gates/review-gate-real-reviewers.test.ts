import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {realClientScript, requireRealClients} from '../helpers/realclients.ts';
import {makeReviewRepo, type ReviewRepo} from '../helpers/review-repo.ts';

// The real agent CLIs as reviewers, offline against the fake model servers: each round's answer is
// scripted per round, and the model's request log (model-N.jsonl) shows what the reviewer was given.
const ASK = 'Review the packet on stdin. Answer APPROVE, or a numbered list of fixes and nothing else.';

/** `claude -p` reads the packet on stdin; round N's answer is the last text turn of round-N.json. */
function claudeReviewer(r: ReviewRepo, answers: readonly string[]): string {
	answers.forEach((text, index) => writeFileSync(join(r.out, `round-${index + 1}.json`), JSON.stringify([{text}])));
	return [
		'SCENARIO=script',
		`SCRIPT_FILE="${r.out}/round-$CONTROLROOM_REVIEW_ROUND.json"`,
		`FAKE_LOG="${r.out}/model-$CONTROLROOM_REVIEW_ROUND.jsonl"`,
		`bash "${realClientScript('claude-offline.sh')}" "${r.out}" -p "${ASK}"`,
	].join(' ');
}

/**
 * `codex exec` gets no stdin from codex-offline.sh, so the packet goes in as the prompt, read from
 * the file CONTROLROOM_REVIEW_PACKET names (a reviewer may read either); it prints only its final
 * message, the verdict. Round N's answer is round-N.txt (the fake's TEXT_FILE).
 */
function codexReviewer(r: ReviewRepo, answers: readonly string[]): string {
	answers.forEach((text, index) => writeFileSync(join(r.out, `round-${index + 1}.txt`), text));
	return [
		'SCENARIO=text',
		`TEXT_FILE="${r.out}/round-$CONTROLROOM_REVIEW_ROUND.txt"`,
		`FAKE_LOG="${r.out}/model-$CONTROLROOM_REVIEW_ROUND.jsonl"`,
		`bash "${realClientScript('codex-offline.sh')}" "${r.out}" exec --skip-git-repo-check "$(cat "$CONTROLROOM_REVIEW_PACKET")"`,
	].join(' ');
}

const verdictsOf = (r: ReviewRepo) => r.events([EventType.reviewVerdict]).map(event => [event.data.round, event.data.verdict]);

// Real agent runs and wrapper runs per test: slow on a loaded machine, not timing-dependent.
describe.each([
	{cli: 'claude -p', agent: 'claude', reviewer: claudeReviewer},
	{cli: 'codex exec', agent: 'codex', reviewer: codexReviewer},
])('controlroom review with the real $cli as reviewer', {timeout: 180_000}, ({agent, reviewer}) => {
	it(`approves when ${agent} answers APPROVE, and ${agent} was given the packet`, () => {
		const env = requireRealClients();
		const r = makeReviewRepo();
		const taskId = r.runWorker(`${agent} approves`);
		const review = r.asPerson(['review', taskId, '--reviewer', reviewer(r, ['APPROVE']), '--json'], env);
		expect(review.status, review.stderr).toBe(0);
		expect(JSON.parse(review.stdout)).toMatchObject({outcome: 'approved'});
		expect(verdictsOf(r)).toEqual([[1, 'APPROVE']]);
		const asked = readFileSync(join(r.out, 'model-1.jsonl'), 'utf8');
		expect(asked).toContain(`# Review packet: ${taskId}`);
		expect(asked).toContain(`change by ${taskId}`);
	});

	it(`sends ${agent}’s fix list back to the worker, which runs again with the fixes, and ${agent} then approves`, () => {
		const env = requireRealClients();
		const r = makeReviewRepo();
		const taskId = r.runWorker(`${agent} asks for fixes`);
		const review = r.asPerson(
			['review', taskId, '--reviewer', reviewer(r, ['1. handle the empty file\n2. name the counter count', 'APPROVE'])],
			env,
		);
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
		expect(verdictsOf(r)).toEqual([
			[1, 'FIX'],
			[2, 'APPROVE'],
		]);
		// Round 2's packet, as the reviewer received it, holds the fix run's change.
		expect(readFileSync(join(r.out, 'model-2.jsonl'), 'utf8')).toContain(`change by ${rerunId}`);
	});

	it(`is INVALID when ${agent} answers in prose: no fix round, exit 2`, () => {
		const env = requireRealClients();
		const r = makeReviewRepo();
		const taskId = r.runWorker(`${agent} rambles`);
		const review = r.asPerson(['review', taskId, '--reviewer', reviewer(r, ['Looks mostly fine to me, ship it.'])], env);
		expect(review.status).toBe(2);
		expect(r.events([EventType.reviewFixRound])).toEqual([]);
		expect(verdictsOf(r)).toEqual([[1, 'INVALID']]);
	});
});
