import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {PASS_BACK_LIMIT_NEED} from '../../src/core/contract/caps.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {loadHumanQueue} from '../../src/ledger/queue.ts';
import {runCli, scratchDir, type CliResult} from '../helpers/cli.ts';
import {COMPLETE_EVIDENCE, makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {runAsPerson} from '../helpers/person.ts';

/** A contract, a ledger, and a config file holding `settings` (none of the machine's own settings leak in). */
function world(settings: Record<string, unknown> = {}) {
	const repo = makeContractRepo();
	const home = scratchDir('cr-cap-');
	const ledger = freshLedgerFile(home);
	const config = join(home, 'config.json');
	writeFileSync(config, JSON.stringify(settings));
	const env = {CONTROLROOM_HOME: home, CONTROLROOM_CONFIG: config};
	return {
		repo,
		ledger,
		contract: repo.place('valid-task.yaml'),
		cli: (...args: string[]) => runCli([...args, '--ledger', ledger], {env}),
		person: (...args: string[]) => runAsPerson([...args, '--ledger', ledger], {env}),
	};
}

function claimOf(result: CliResult): string {
	const id = /as (claim-\S+)/.exec(result.stdout)?.[1];
	if (id === undefined) throw new Error(`not taken: ${result.stdout}${result.stderr}`);
	return id;
}

/** The Needs-you entries the pass-back limit raised, as the board's queue holds them. */
function capNeeds(ledger: string): {taskId: string; reason: string}[] {
	const db = openLedger(ledger);
	try {
		const needs = loadHumanQueue(db.reader, Date.now()).lanes.find(lane => lane.name === 'needs')?.items ?? [];
		const raised = new Set(
			db.reader
				.eventsOfType(['need.raised'])
				.filter(event => event.data.kind === PASS_BACK_LIMIT_NEED)
				.map(event => event.taskId),
		);
		return needs.filter(item => raised.has(item.taskId)).map(({taskId, reason}) => ({taskId, reason}));
	} finally {
		db.close();
	}
}

/** Takes the contract as `worker` and passes it back; the claim's id. */
function takeAndPassBack(cli: (...args: string[]) => CliResult, contract: string, worker: string, n: number): string {
	const claim = claimOf(cli('take', contract, '--as', worker));
	const passed = cli('pass-back', claim, '--as', worker, '--reason', `attempt ${n} could not finish`);
	expect(passed.status, passed.stderr).toBe(0);
	return claim;
}

describe('the pass-back limit (passBackLimit, default 2)', () => {
	it('third pass-back of one contract: it goes to Needs you and a fourth take is refused with the reason', () => {
		const {ledger, contract, cli} = world();
		takeAndPassBack(cli, contract, 'ana', 1);
		takeAndPassBack(cli, contract, 'bo', 2);
		// Two passes back are within the limit: nothing in Needs you yet.
		expect(capNeeds(ledger)).toEqual([]);
		const third = claimOf(cli('take', contract, '--as', 'cy'));
		expect(cli('pass-back', third, '--as', 'cy', '--reason', 'attempt 3 could not finish').stdout.trim()).toBe(
			`passed ${third} back; passed back 3 times (passBackLimit 2): it waits in Needs you; a person hands it over with controlroom take --for WORKER FILE`,
		);
		expect(capNeeds(ledger)).toEqual([
			{
				taskId: third,
				reason:
					'passed back 3 times (passBackLimit 2): it waits in Needs you; a person hands it over with controlroom take --for WORKER FILE',
			},
		]);
		const fourth = cli('take', contract, '--as', 'dee');
		expect(fourth.status).toBe(1);
		expect(fourth.stdout).toBe('');
		expect(fourth.stderr.trim().split('\n')).toEqual([
			`controlroom: ${contract}: passed back 3 times (passBackLimit 2): it waits in Needs you; a person hands it over with controlroom take --for WORKER FILE`,
		]);
		const db = openLedger(ledger);
		try {
			expect(db.reader.eventsOfType(['claim.taken'])).toHaveLength(3);
		} finally {
			db.close();
		}
	});

	it('a person handing the contract over (take --for) starts the count again', () => {
		const {ledger, contract, cli, person} = world({passBackLimit: 1});
		takeAndPassBack(cli, contract, 'ana', 1);
		takeAndPassBack(cli, contract, 'bo', 2);
		expect(cli('take', contract, '--as', 'cy').status).toBe(1);
		const handed = person('take', '--for', 'cy', contract, '--as', 'dana');
		expect(handed.status, handed.stderr).toBe(0);
		const claim = claimOf(handed);
		// The handed-over claim's own pass-back is the first of a new count: within the limit of 1.
		expect(cli('pass-back', claim, '--as', 'cy', '--reason', 'still stuck').status).toBe(0);
		expect(capNeeds(ledger)).toHaveLength(1);
		expect(claimOf(cli('take', contract, '--as', 'dee'))).toMatch(/-4$/);
	});

	it('a person sending a hand-in back counts as a pass-back: the third goes to Needs you', () => {
		const {repo, ledger, contract, cli, person} = world();
		takeAndPassBack(cli, contract, 'ana', 1);
		takeAndPassBack(cli, contract, 'bo', 2);
		const claim = claimOf(cli('take', contract, '--as', 'worker-1'));
		const handed = cli('hand-in', claim, '--as', 'worker-1', '--evidence', repo.write('evidence.yaml', COMPLETE_EVIDENCE));
		expect(handed.status, handed.stderr).toBe(0);
		const sent = person('send-back', claim, '--reason', 'the export still drops closed orders', '--as', 'lee');
		expect(sent.status, sent.stderr).toBe(0);
		expect(capNeeds(ledger).map(need => need.taskId)).toEqual([claim]);
		expect(cli('take', contract, '--as', 'dee').status).toBe(1);
	});

	it('honours passBackLimit from the config file', () => {
		const {ledger, contract, cli} = world({passBackLimit: 1});
		takeAndPassBack(cli, contract, 'ana', 1);
		expect(capNeeds(ledger)).toEqual([]);
		const second = takeAndPassBack(cli, contract, 'bo', 2);
		expect(capNeeds(ledger).map(need => need.taskId)).toEqual([second]);
		expect(cli('take', contract, '--as', 'cy').stderr).toContain('passed back 2 times (passBackLimit 1)');
	});

	it('a passBackLimit that is no positive whole number is one line and exit 78, and nothing is taken', () => {
		const {ledger, contract, cli} = world({passBackLimit: 0});
		const result = cli('take', contract, '--as', 'ana');
		expect(result.status).toBe(78);
		expect(result.stderr.trim().split('\n')).toHaveLength(1);
		expect(result.stderr).toContain('passBackLimit');
		const db = openLedger(ledger);
		try {
			expect(db.reader.eventsOfType(['claim.taken'])).toHaveLength(0);
		} finally {
			db.close();
		}
	});
});
