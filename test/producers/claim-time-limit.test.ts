import {describe, expect, it} from 'vitest';
import {TIME_LIMIT_NEED} from '../../src/core/contract/caps.ts';
import {passBack, recordProgress, takeContract} from '../../src/handoff/claims.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {loadHumanQueue} from '../../src/ledger/queue.ts';
import {raiseOverTimeClaims} from '../../src/producers/claim-time-limits.ts';
import {reconcileOnce} from '../../src/producers/reconciler.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

const TAKEN_AT = Date.parse('2026-03-02T09:00:00Z');
const HOUR = 3_600_000;

function takenClaim(timeLimitSeconds: number) {
	const contract = makeContractRepo().place('valid-task.yaml');
	const ledger = openLedger(freshLedgerFile());
	const actor = {ledger, source: 'cli' as const, identity: 'ana', now: () => TAKEN_AT};
	const taken = takeContract(actor, contract, 'ana', undefined, {timeLimitSeconds});
	return {ledger, actor, taken, contract};
}

function needsLane(ledger: ReturnType<typeof openLedger>, now: number) {
	return loadHumanQueue(ledger.reader, now).lanes.find(lane => lane.name === 'needs')?.items ?? [];
}

describe("a claim's time limit (claimTimeLimit)", () => {
	it('puts a claim held past its limit in Needs you once, progress or not', () => {
		const {ledger, actor, taken} = takenClaim(2 * 3600);
		try {
			expect(taken.timeLimitSeconds).toBe(7200);
			// Progress renews the lease, not the time limit.
			recordProgress({...actor, now: () => TAKEN_AT + HOUR}, taken.taskId, 'half way');
			expect(raiseOverTimeClaims(ledger, TAKEN_AT + 2 * HOUR - 1000)).toEqual([]);
			expect(raiseOverTimeClaims(ledger, TAKEN_AT + 2 * HOUR)).toEqual([taken.taskId]);
			expect(raiseOverTimeClaims(ledger, TAKEN_AT + 3 * HOUR)).toEqual([]);
			const needs = ledger.reader.eventsOfType(['need.raised']).filter(event => event.data.kind === TIME_LIMIT_NEED);
			expect(needs).toHaveLength(1);
			expect(needsLane(ledger, TAKEN_AT + 3 * HOUR)).toEqual([
				expect.objectContaining({
					taskId: taken.taskId,
					reason: 'held by ana for 2h, past its time limit of 2h (claimTimeLimit): a person decides whether it goes on',
				}),
			]);
		} finally {
			ledger.close();
		}
	});

	it('is raised by a reconciler pass, and not for a claim that ended before its limit', () => {
		const held = takenClaim(60);
		const ended = takenClaim(60);
		try {
			passBack({...ended.actor, now: () => TAKEN_AT + 10_000}, ended.taken.taskId, 'cannot reach the database');
			for (const {ledger} of [held, ended]) reconcileOnce(ledger, {now: TAKEN_AT + 30_000, procRoot: scratchDir('cr-proc-')});
			expect(needsLane(held.ledger, TAKEN_AT + 30_000)).toEqual([]);
			for (const {ledger} of [held, ended]) reconcileOnce(ledger, {now: TAKEN_AT + 61_000, procRoot: scratchDir('cr-proc-')});
			expect(needsLane(held.ledger, TAKEN_AT + 61_000).map(item => item.taskId)).toEqual([held.taken.taskId]);
			expect(needsLane(ended.ledger, TAKEN_AT + 61_000)).toEqual([]);
		} finally {
			held.ledger.close();
			ended.ledger.close();
		}
	});

	it('take --time-limit is recorded on the claim; a bad one is a usage error', () => {
		const contract = makeContractRepo().place('valid-task.yaml');
		const ledger = freshLedgerFile();
		const bad = runCli(['take', contract, '--as', 'ana', '--time-limit', 'soon', '--ledger', ledger]);
		expect(bad.status).toBe(64);
		expect(bad.stderr.trim()).toBe("controlroom: take: --time-limit: expected a duration like 90m, 24h or 7d, got 'soon'");
		const taken = runCli(['take', contract, '--as', 'ana', '--time-limit', '90m', '--json', '--ledger', ledger]);
		expect(taken.status, taken.stderr).toBe(0);
		expect(JSON.parse(taken.stdout)).toMatchObject({timeLimitSeconds: 5400});
		const db = openLedger(ledger);
		try {
			expect(db.reader.eventsOfType(['claim.taken'])[0]?.data.timeLimitSeconds).toBe(5400);
		} finally {
			db.close();
		}
	});
});
