import {describe, expect, it} from 'vitest';
import type {Stats} from '../../src/core/stats/measures.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {makeReviewRepo} from '../helpers/review-repo.ts';

const read = (reviewer: string) => `cat >/dev/null; ${reviewer}`;

// Three real reviews, two takes and a pass-back through the binary: minutes on a loaded 2-core machine.
describe('controlroom stats', {timeout: 240_000}, () => {
	it('counts the verdicts real reviews wrote, their ratio and INVALID share exactly, and missing_info needs', () => {
		const r = makeReviewRepo();
		// Review one: APPROVE. Review two: FIX beside INVALID, which needs a person at once.
		// Review three: FIX, the fix round, FIX again: it needs a person. So 1 APPROVE, 3 FIX, 1 INVALID.
		const one = r.runWorker('one');
		expect(r.asPerson(['review', one, '--reviewer', read('echo APPROVE')]).status).toBe(0);
		const two = r.runWorker('two');
		expect(
			r.asPerson(['review', two, '--reviewer', read('echo "1. name the counter"'), '--reviewer', read('echo "Looks good."')])
				.status,
		).toBe(2);
		const three = r.runWorker('three');
		expect(r.asPerson(['review', three, '--reviewer', read('echo "1. handle the empty file"')]).status).toBe(2);
		// Two reviewers run at once: their verdicts land in either order.
		expect(
			r
				.events(['review.verdict'])
				.map(event => event.data.verdict)
				.sort(),
		).toEqual(['APPROVE', 'FIX', 'FIX', 'FIX', 'INVALID']);

		// Two handoffs taken through the real take; one comes back asking for missing information (twice),
		// the other is passed back; and a missing_info need on no claim.
		const contracts = makeContractRepo();
		const taken = ['valid-task.yaml', 'valid-bug.yaml'].map(fixture => {
			const take = r.cli(['take', contracts.place(fixture), '--as', 'kim', '--json'], {CONTROLROOM_WORKER: 'kim'});
			expect(take.status, take.stderr).toBe(0);
			return (JSON.parse(take.stdout) as {taskId: string}).taskId;
		});
		const [asking, passing] = taken as [string, string];
		for (const message of ['which table holds the totals?', 'and in which currency?'])
			expect(r.asPerson(['need', message, '--task', asking, '--kind', 'missing_info']).status).toBe(0);
		expect(r.asPerson(['need', 'the brief names no date format', '--kind', 'missing_info']).status).toBe(0);
		expect(r.asPerson(['need', 'pick the release branch']).status).toBe(0);
		const passed = r.cli(['pass-back', passing, '--reason', 'needs a database I cannot reach', '--as', 'kim']);
		expect(passed.status, passed.stderr).toBe(0);

		const result = r.cli(['stats', '--json']);
		expect(result.status, result.stderr).toBe(0);
		const stats = JSON.parse(result.stdout) as Stats;
		expect(stats.verdicts).toEqual({approve: 1, fix: 3, invalid: 1, stopped: 0, fixPerApprove: 3, invalidShare: 0.2});
		expect(stats.weeks.reduce((sum, week) => sum + week.approve + week.fix + week.invalid, 0)).toBe(5);
		expect(stats.missingInfoNeeds).toBe(3);
		expect(stats.handoffs).toEqual({taken: 2, cameBackMissingInfo: 1});
		expect(stats.passesBack).toMatchObject({contracts: 2, total: 1, max: 1});
		// Two reviews need a person, two needs on claims (one entry: the claim), one of none, one by hand.
		expect(stats.needsYou.now).toBeGreaterThanOrEqual(4);

		// The snapshot carries the same figures, from the same fold.
		const snapshot = JSON.parse(r.cli(['snapshot', '--json']).stdout) as {stats: Stats};
		expect({...snapshot.stats, until: 0}).toEqual({...stats, until: 0});

		// The table says the same on a terminal.
		const text = r.cli(['stats']).stdout;
		expect(text).toMatch(/^total +1 +3 +1 +0 +3\.00 +20% /m);
		expect(text).toContain('Handoffs: 2 taken, 1 came back for missing information (3 missing_info needs)');
	});

	it('says what is wrong with a bad --since in one line, exit 64', () => {
		const r = makeReviewRepo();
		r.runWorker('one');
		for (const since of ['yesterday', '2026-02-30', '2026-11-30T09:00', '9999-01-01', '7x\u001b[2J']) {
			const result = r.cli(['stats', '--since', since]);
			expect(result.status, since).toBe(64);
			expect(result.stderr.trim().split('\n'), since).toHaveLength(1);
			expect(result.stderr).not.toContain('\u001b');
			expect(result.stderr).toContain('--since');
		}
		const lately = JSON.parse(r.cli(['stats', '--since', '2d', '--json']).stdout) as Stats;
		expect(lately.since).toBeGreaterThan(Date.now() - 2 * 86_400_000 - 60_000);
		expect(r.cli(['stats', '--since', '2026-11-30']).status).toBe(0);
	});
});
