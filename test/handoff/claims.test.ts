import {spawn} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {toSnapshotTask} from '../../src/core/snapshot.ts';
import {CLAIM_LEASE_SECONDS, HandoffError, recordProgress, takeContract} from '../../src/handoff/claims.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {loadHumanQueue} from '../../src/ledger/queue.ts';
import {BIN, runCli, scratchDir, type CliResult} from '../helpers/cli.ts';
import {COMPLETE_EVIDENCE as COMPLETE, makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

function spawnCli(args: readonly string[], home: string): Promise<CliResult> {
	return new Promise(resolve => {
		const child = spawn(process.execPath, [BIN, ...args], {env: {...process.env, CONTROLROOM_HOME: home}});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', chunk => (stdout += String(chunk)));
		child.stderr.on('data', chunk => (stderr += String(chunk)));
		child.on('close', status => resolve({status, stdout, stderr}));
	});
}

function setup() {
	const repo = makeContractRepo();
	const ledger = freshLedgerFile();
	const contract = repo.place('valid-task.yaml');
	const cli = (...args: string[]) => runCli([...args, '--ledger', ledger]);
	return {repo, ledger, contract, cli};
}

function claimId(result: CliResult): string {
	const id = /as (claim-\S+)/.exec(result.stdout)?.[1];
	if (id === undefined) throw new Error(`no claim id in: ${result.stdout}${result.stderr}`);
	return id;
}

/** Ten CLI runs in a row: on a loaded 2-core machine each start takes seconds, so these get the real-CLI tests' room. */
const SPAWNS_UNDER_LOAD_MS = 120_000;

describe('claims', () => {
	it.each([1, 2, 3, 4, 5])('lets exactly one of two processes taking at once win (round %i)', async () => {
		// Given one contract and two takers started together
		const {ledger, contract} = setup();
		const home = scratchDir('cr-home-');
		// When both run take at the same moment
		const results = await Promise.all(
			['ana', 'bo'].map(name => spawnCli(['take', contract, '--as', name, '--ledger', ledger], home)),
		);
		// Then one exits 0 and the other exits 1, told who holds it
		const winners = results.filter(result => result.status === 0);
		const losers = results.filter(result => result.status === 1);
		expect(winners).toHaveLength(1);
		expect(losers).toHaveLength(1);
		const holder = /^(ana|bo) took/.exec(winners[0]?.stdout ?? '')?.[1];
		expect(losers[0]?.stderr).toContain(`held by ${holder}`);
		const db = openLedger(ledger);
		try {
			expect(db.reader.eventsOfType(['claim.taken'])).toHaveLength(1);
		} finally {
			db.close();
		}
	});

	it('refuses an invalid contract without taking it', () => {
		const {repo, cli} = setup();
		const result = cli('take', repo.place('placeholder.yaml'));
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^error +goal: unresolved placeholder/m);
		expect(cli('take', repo.place('valid-bug.yaml')).status).toBe(0);
	});

	it(
		'refuses a hand-in missing an acceptance line, or without uncertainty, and accepts a complete one',
		() => {
			const {repo, contract, cli, ledger} = setup();
			const id = claimId(cli('take', contract));

			const missingLine = repo.write('missing-line.yaml', COMPLETE.replace(/ {2}- \{check: 2.*\n/, ''));
			const refusedLine = cli('hand-in', id, '--evidence', missingLine);
			expect(refusedLine.status).toBe(1);
			expect(refusedLine.stderr).toMatch(/^error +after: no entry for acceptance line 2/m);

			const noUncertainty = repo.write('no-uncertainty.yaml', COMPLETE.replace('uncertainty: []\n', ''));
			const refusedUncertainty = cli('hand-in', id, '--evidence', noUncertainty);
			expect(refusedUncertainty.status).toBe(1);
			expect(refusedUncertainty.stderr).toMatch(/^error +uncertainty: required, even when empty/m);

			const fakeExit = repo.write(
				'fake-exit.yaml',
				COMPLETE.replace('exit_code: 0, output: "12 passed"', 'exit_code: unknown, output: "12 passed"'),
			);
			expect(cli('hand-in', id, '--evidence', fakeExit).stderr).toMatch(
				/^error +after\[0\]\.exit_code: expected a real exit code/m,
			);

			const operatorReview = repo.write('self-review.yaml', COMPLETE.replace('acceptor: lee', 'acceptor: worker-1'));
			expect(cli('hand-in', id, '--evidence', operatorReview).stderr).toMatch(/^error +review\.acceptor: is the operator/m);

			const rejects = openLedger(ledger);
			try {
				expect(rejects.reader.rejects(10).map(reject => reject.reason.split('\n')[1])).toContain(
					'uncertainty: required, even when empty (write uncertainty: [])',
				);
			} finally {
				rejects.close();
			}

			const accepted = cli('hand-in', id, '--evidence', repo.write('evidence.yaml', COMPLETE));
			expect(accepted.stderr).toBe('');
			expect(accepted.status).toBe(0);
			expect(accepted.stdout).toContain('waiting for lee');

			const snapshot = JSON.parse(cli('snapshot', '--json').stdout) as {
				queue: {lanes: {name: string; items: {taskId: string; reason: string}[]}[]};
			};
			const waiting = snapshot.queue.lanes.find(lane => lane.name === 'waiting');
			expect(waiting?.items).toEqual([expect.objectContaining({taskId: id, reason: 'hand-in waits for lee'})]);
			// A handed-in contract is not free to take again, and the claim ended but stays on the timeline.
			expect(cli('take', contract).stderr).toContain('handed in by worker-1');
			expect(cli('timeline', id).stdout).toContain('handed in, waiting for lee');
			expect(cli('hand-in', id, '--evidence', repo.write('again.yaml', COMPLETE)).stderr).toContain('has ended');
		},
		SPAWNS_UNDER_LOAD_MS,
	);

	it(
		'shows the pass-back reason first to the next taker, and keeps the ended claim on the timeline',
		() => {
			const {contract, cli, ledger: file} = setup();
			const first = claimId(cli('take', contract, '--as', 'ana', '--lease', '5'));
			const db = openLedger(file);
			try {
				expect(db.reader.task(first)?.stallSeconds).toBe(300);
			} finally {
				db.close();
			}
			expect(cli('progress', first, 'query rewritten').status).toBe(0);
			const passed = cli('pass-back', first, '--reason', 'the fixture database is gone');
			expect(passed.status).toBe(0);
			expect(cli('progress', first, 'too late').status).toBe(1);

			const next = cli('take', contract, '--as', 'bo');
			expect(next.status).toBe(0);
			expect(next.stdout.split('\n')[0]).toBe('passed back by ana: the fixture database is gone');
			expect(claimId(next)).not.toBe(first);

			const work = JSON.parse(cli('work', '--json').stdout) as {items: {taskId: string; state: string; holder: string}[]};
			expect(work.items).toEqual([expect.objectContaining({taskId: claimId(next), state: 'held', holder: 'bo'})]);

			const timeline = cli('timeline', first).stdout;
			expect(timeline).toContain('taken by ana');
			expect(timeline).toContain('progress: query rewritten');
			expect(timeline).toContain('passed back: the fixture database is gone');
		},
		SPAWNS_UNDER_LOAD_MS,
	);

	it('pass-back without a reason is a usage error', () => {
		const {contract, cli} = setup();
		const id = claimId(cli('take', contract));
		expect(cli('pass-back', id).status).toBe(64);
	});

	it('goes stalled after the 30-minute lease of silence, and a progress note renews it', () => {
		const {ledger: file, contract} = setup();
		const ledger = openLedger(file);
		try {
			const start = Date.parse('2026-11-29T10:00:00Z');
			let clock = start;
			const actor = {ledger, source: 'cli' as const, now: () => clock};
			const {taskId} = takeContract(actor, contract, 'ana');
			const health = (at: number) => toSnapshotTask(ledger.reader.task(taskId)!, at).health;
			expect(health(start + (CLAIM_LEASE_SECONDS - 1) * 1000)).toBe('active');
			expect(health(start + (CLAIM_LEASE_SECONDS + 1) * 1000)).toBe('stalled');
			clock = start + 25 * 60 * 1000;
			recordProgress(actor, taskId, 'still on it');
			expect(health(start + (CLAIM_LEASE_SECONDS + 1) * 1000)).toBe('active');
			expect(() => recordProgress(actor, 'no-such-task', 'x')).toThrow(HandoffError);
			const queue = loadHumanQueue(ledger.reader, clock);
			expect(queue.total).toBe(0);
		} finally {
			ledger.close();
		}
	});
});
