import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {runAsPerson} from '../helpers/person.ts';

// Acceptance line by line, by every acceptor (docs/contracts.md, "Accepting"): the contract gives
// dana line 1 and lee lines 2 and 3; the hand-in is accepted only when both have said met for
// their lines, and a send-back carries only the unmet lines to the next taker.

const EVIDENCE = `before: {command: npm test, exit_code: 1, output: "1 failed"}
change: [{file: src/export.ts, reason: apply the filter}]
after:
  - {check: 1, command: "npm test -- export", exit_code: 0, output: "12 passed"}
  - {check: 2, command: make check, exit_code: 0, output: ""}
  - {check: 3, command: "head -1 out.csv", exit_code: 0, output: "id,status,total"}
uncertainty: []
review: {commit: 9a8b7c6, acceptor: lee}
`;

type WorkJson = {items: {taskId: string; state: string}[]};

function setUp() {
	const repo = makeContractRepo();
	const home = scratchDir('cr-lines-');
	const ledger = freshLedgerFile(home);
	const env = {CONTROLROOM_HOME: home};
	const cli = (args: string[]) => runCli([...args, '--ledger', ledger], {env});
	const person = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
		runAsPerson([...args, '--ledger', ledger], {env: {...env, ...extra}});
	const contract = repo.place('two-acceptors.yaml');
	const handIn = () => {
		const taken = cli(['take', contract, '--as', 'worker-1', '--json']);
		expect(taken.status, taken.stderr).toBe(0);
		const claim = (JSON.parse(taken.stdout) as {taskId: string}).taskId;
		const handed = cli(['hand-in', claim, '--evidence', repo.write('evidence.yaml', EVIDENCE), '--as', 'worker-1']);
		expect(handed.status, handed.stderr).toBe(0);
		return claim;
	};
	const state = (claim: string) =>
		(JSON.parse(cli(['work', '--json']).stdout) as WorkJson).items.find(item => item.taskId === claim)?.state;
	return {ledger, cli, person, contract, handIn, state};
}

describe('acceptance line by line', {timeout: 120_000}, () => {
	it('one acceptor leaves the hand-in open saying who owes which lines; the second completes it', () => {
		const {ledger, cli, person, handIn, state} = setUp();
		const claim = handIn();

		const dana = person(['accept', claim, '--as', 'dana']);
		expect(dana.status, dana.stderr).toBe(0);
		expect(dana.stdout).toBe(`${claim} still open: waiting for lee: lines 2, 3\n`);
		expect(state(claim)).toBe('handed in');
		const snapshot = JSON.parse(cli(['snapshot', '--json', '--all']).stdout) as {tasks: {id: string; endReason: string}[]};
		expect(snapshot.tasks.find(task => task.id === claim)?.endReason).toBe('handed in, waiting for lee: lines 2, 3');

		// lee cannot accept dana's line, nor can a person the contract does not name
		const notLees = person(['accept', claim, '--as', 'lee', '--line', '1', '--met']);
		expect(notLees.status).toBe(1);
		expect(notLees.stderr).toBe(`controlroom: ${claim}: line 1 is not lee's to accept (line 1: dana); lee accepts lines 2, 3\n`);
		const stranger = person(['accept', claim, '--as', 'mara']);
		expect(stranger.status).toBe(1);
		expect(stranger.stderr).toBe(
			`controlroom: ${claim}: mara is not an acceptor of this hand-in (dana: line 1; lee: lines 2, 3): --as names one of them\n`,
		);

		const line2 = person(['accept', claim, '--as', 'lee', '--line', '2', '--met']);
		expect(line2.stdout).toBe(`${claim} still open: waiting for lee: line 3\n`);
		const lee = person(['accept', claim, '--as', 'lee', '--line', '3', '--met', '--note', 'checked the header']);
		expect(lee.status, lee.stderr).toBe(0);
		expect(lee.stdout).toBe(`accepted ${claim} (by lee)\n`);
		expect(state(claim)).toBe('accepted');

		const open = openLedger(ledger);
		try {
			const verdicts = open.reader.eventsOfType([EventType.workLineVerdict]).map(event => event.data);
			expect(verdicts.map(data => [data.line, data.verdict, data.by])).toEqual([
				[1, 'met', 'dana'],
				[2, 'met', 'lee'],
				[3, 'met', 'lee'],
			]);
			expect(open.reader.eventsOfType([EventType.workAccepted]).map(event => event.data.by)).toEqual(['lee']);
		} finally {
			open.close();
		}
	});

	it('send-back --line 2 --unmet gives the next taker line 2 and its reason, never line 1', () => {
		const {ledger, cli, person, contract, handIn} = setUp();
		const claim = handIn();
		expect(person(['accept', claim, '--as', 'dana']).status).toBe(0);
		const back = person([
			'send-back',
			claim,
			'--as',
			'lee',
			'--line',
			'2',
			'--unmet',
			'make check ran on the old tree, not the patch',
			'--line',
			'3',
			'--met',
		]);
		expect(back.status, back.stderr).toBe(0);
		const next = cli(['take', contract, '--as', 'worker-1']);
		expect(next.status, next.stderr).toBe(0);
		const first = next.stdout.split('\n')[0];
		expect(first).toBe(
			'passed back by worker-1: sent back by lee: acceptance line 2 is not met (`make check` exits 0): make check ran on the old tree, not the patch (lee)',
		);
		expect(first).not.toContain('npm test -- export');
		expect(first).not.toContain('line 1');
		expect(first).not.toContain('line 3');
		const open = openLedger(ledger);
		try {
			const [sent] = open.reader.eventsOfType([EventType.workSentBack]);
			expect(sent?.data.unmetLines).toEqual([{line: 2, reason: 'make check ran on the old tree, not the patch', by: 'lee'}]);
		} finally {
			open.close();
		}
	});

	it('a line recorded unmet with accept goes back with a bare send-back --reason', () => {
		const {cli, person, contract, handIn} = setUp();
		const claim = handIn();
		const unmet = person([
			'accept',
			claim,
			'--as',
			'lee',
			'--line',
			'2',
			'--met',
			'--line',
			'3',
			'--unmet',
			'the header moved status first',
		]);
		expect(unmet.stdout).toBe(
			`${claim} still open: waiting for dana: line 1; lee: line 3; line 3 not met (controlroom send-back ${claim} returns it)\n`,
		);
		expect(person(['send-back', claim, '--as', 'dana', '--reason', 'see lee']).status).toBe(0);
		expect(cli(['take', contract, '--as', 'worker-1']).stdout.split('\n')[0]).toBe(
			'passed back by worker-1: sent back by dana: acceptance line 3 is not met (the CSV header keeps its old column order): the header moved status first (lee); see lee',
		);
	});

	it('bad input is one line each, and nothing is recorded', () => {
		const {ledger, person, handIn, state} = setUp();
		const claim = handIn();
		const cases: [string[], number, string][] = [
			[['--line', '7', '--met'], 1, `controlroom: --line 7: the contract has acceptance lines 1–3\n`],
			[
				['--line', '2', '--met', '--line', '2', '--unmet', 'no'],
				1,
				`controlroom: --line 2: given both --met and --unmet; say one\n`,
			],
			[
				['--line', '2', '--unmet', 'red \u001b[31mALERT\u001b[0m'],
				64,
				`controlroom: accept: --line 2 --unmet: the reason holds a control character (an escape code?): write it as plain text\n`,
			],
			[
				['--line', '2', '--unmet', 'x'.repeat(5000)],
				64,
				`controlroom: accept: --line 2 --unmet: the reason: 5000 characters, over the limit of 4000: say it shortly, and put the detail in a file\n`,
			],
			[['--line', '2'], 64, `controlroom: accept: --line 2: say --met or --unmet "REASON" after it\n`],
			[
				['--line', 'two', '--met'],
				64,
				`controlroom: accept: --line: expected an acceptance line's number (1, 2, …), got 'two'\n`,
			],
			[['--met'], 64, `controlroom: accept: --met needs --line N before it (--line 2 --met)\n`],
			[['--line', '2', '--unmet'], 64, `controlroom: accept: --line 2 --unmet: a reason is required (what is missing?)\n`],
		];
		for (const [args, status, stderr] of cases) {
			const run = person(['accept', claim, '--as', 'lee', ...args]);
			expect({args, status: run.status, stderr: run.stderr}).toEqual({args, status, stderr});
		}
		const sendBack = person(['send-back', claim, '--as', 'lee', '--line', '2', '--met']);
		expect(sendBack.status).toBe(1);
		expect(sendBack.stderr).toBe(
			`controlroom: ${claim}: nothing to send back: no line is unmet (--line N --unmet "REASON" says which), and no --reason\n`,
		);
		expect(state(claim)).toBe('handed in');
		const open = openLedger(ledger);
		try {
			expect(open.reader.eventsOfType([EventType.workLineVerdict])).toEqual([]);
		} finally {
			open.close();
		}
	});

	it("refuses an agent's process (exit 77, recorded), even for an acceptor's name, and records no verdict", () => {
		const {ledger, cli, person, handIn, state} = setUp();
		const claim = handIn();
		// Not at a terminal: an agent's Bash tool runs commands so
		const piped = cli(['accept', claim, '--as', 'lee', '--line', '2', '--met']);
		expect(piped.status).toBe(77);
		expect(piped.stderr.trim().split('\n')).toHaveLength(1);
		// At a terminal, but the environment carries an agent's marker
		const marked = person(['send-back', claim, '--as', 'lee', '--line', '2', '--unmet', 'redo'], {CLAUDE_PID: '4242'});
		expect(marked.status).toBe(77);
		expect(marked.stderr).toContain('its environment carries CLAUDE_PID');
		expect(state(claim)).toBe('handed in');
		const open = openLedger(ledger);
		try {
			expect(open.reader.eventsOfType([EventType.workLineVerdict])).toEqual([]);
			expect(open.reader.eventsOfType([EventType.gateRefused]).map(event => event.data.verb)).toEqual(['accept', 'send-back']);
		} finally {
			open.close();
		}
	});
});
