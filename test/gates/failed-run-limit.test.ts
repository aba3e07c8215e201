import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {FAILED_RUNS_NEED} from '../../src/core/contract/caps.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {loadHumanQueue} from '../../src/ledger/queue.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {runAsPerson} from '../helpers/person.ts';
import {makeReviewRepo} from '../helpers/review-repo.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

function world(settings: Record<string, unknown> = {}) {
	const home = scratchDir('cr-failed-');
	const ledger = freshLedgerFile(home);
	const config = join(home, 'config.json');
	writeFileSync(config, JSON.stringify(settings));
	const env = {CONTROLROOM_HOME: home, CONTROLROOM_CONFIG: config};
	return {
		ledger,
		cli: (...args: string[]) => runCli([...args, '--ledger', ledger], {env}),
		person: (...args: string[]) => runAsPerson([...args, '--ledger', ledger], {env}),
	};
}

function statusOf(ledger: string, taskId: string): string | undefined {
	const db = openLedger(ledger);
	try {
		return db.reader.task(taskId)?.status;
	} finally {
		db.close();
	}
}

describe('the failed-run limit (failedRunLimit, default 2)', () => {
	it('a task whose runs failed twice is not run a third time: send-back is refused and it waits in Needs you', async () => {
		const {ledger, cli, person} = world();
		const first = cli('run', '--task-id', 'w-first', '--title', 'migrate the orders table', '--', 'sh', '-c', 'exit 3');
		expect(first.status).toBe(3);
		const sent = person('send-back', 'w-first', '--reason', 'the column is orders.total', '--json');
		expect(sent.status, sent.stderr).toBe(0);
		const rerun = (JSON.parse(sent.stdout) as {rerunTaskId: string}).rerunTaskId;
		// The second run fails too (the same command).
		await waitFor(() => statusOf(ledger, rerun) === 'failed', {
			what: `${rerun} to fail`,
			on: [onLedgerChange(ledger)],
			timeoutMs: 30_000,
		});
		const refused = person('send-back', rerun, '--reason', 'try once more');
		expect(refused.status).toBe(1);
		expect(refused.stderr.trim().split('\n')).toEqual([
			`controlroom: cannot send ${rerun} back: the runs of w-first failed 2 times (failedRunLimit 2): not run again; it waits in Needs you for a person (start it afresh with controlroom run)`,
		]);
		const db = openLedger(ledger);
		try {
			// No third run was started.
			expect(db.reader.eventsOfType(['work.sent_back'])).toHaveLength(1);
			const needs = loadHumanQueue(db.reader, Date.now()).lanes.find(lane => lane.name === 'needs')?.items ?? [];
			expect(needs.map(item => item.taskId)).toEqual(['w-first']);
			const raised = db.reader.eventsOfType(['need.raised']).filter(event => event.data.kind === FAILED_RUNS_NEED);
			expect(raised).toHaveLength(1);
		} finally {
			db.close();
		}
		// Asked again, it is refused again, and Needs you still holds one entry for it.
		expect(person('send-back', rerun, '--reason', 'and again').status).toBe(1);
		const again = openLedger(ledger);
		try {
			expect(again.reader.eventsOfType(['need.raised']).filter(event => event.data.kind === FAILED_RUNS_NEED)).toHaveLength(1);
		} finally {
			again.close();
		}
	});

	it('honours failedRunLimit from the config file: with 1, the first failure is not run again', () => {
		const {cli, person} = world({failedRunLimit: 1});
		expect(cli('run', '--task-id', 'w-once', '--', 'sh', '-c', 'exit 1').status).toBe(1);
		const refused = person('send-back', 'w-once', '--reason', 'again');
		expect(refused.status).toBe(1);
		expect(refused.stderr).toContain('the runs of w-once failed 1 time (failedRunLimit 1)');
	});

	it('a review whose fixes would start a third run of a task that failed twice concludes needs-person instead', async () => {
		const r = makeReviewRepo();
		const failing = r.cli(['run', '--cwd', r.repo, '--task-id', 'w-fails', '--', 'sh', '-c', 'echo more >> src/app.txt; exit 3']);
		expect(failing.status).toBe(3);
		const sent = r.asPerson(['send-back', 'w-fails', '--reason', 'keep the header', '--json']);
		expect(sent.status, sent.stderr).toBe(0);
		const rerun = (JSON.parse(sent.stdout) as {rerunTaskId: string}).rerunTaskId;
		await waitFor(() => r.task(rerun)?.status === 'failed', {
			what: `${rerun} to fail`,
			on: [onLedgerChange(r.ledger)],
			timeoutMs: 30_000,
		});
		const review = r.asPerson(['review', rerun, '--reviewer', 'printf "1. handle the empty file\\n"']);
		expect(review.status, review.stderr).toBe(2);
		expect(review.stdout).toContain('the runs of w-fails failed 2 times (failedRunLimit 2): not run again');
		expect(r.events(['review.fix_round'])).toEqual([]);
		expect(r.events(['need.raised']).filter(event => event.data.kind === FAILED_RUNS_NEED)).toHaveLength(1);
	});
});
