import {userInfo} from 'node:os';
import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {runAsPerson} from '../helpers/person.ts';
import {Tmux} from '../helpers/tmux.ts';
import {waitFor} from '../helpers/wait-for.ts';

const tmux = new Tmux();
afterAll(() => tmux.kill());

const EVIDENCE = `before: {command: npm test, exit_code: 1, output: "1 failed"}
change: [{file: src/export.ts, reason: apply the filter}]
after:
  - {check: 1, command: "npm test -- export", exit_code: 0, output: "12 passed"}
  - {check: 2, command: make check, exit_code: 0, output: ""}
uncertainty: []
review: {commit: 9a8b7c6, acceptor: dana}
`;

type WorkJson = {items: {taskId: string; state: string}[]};

// The operator (worker-1) takes the contract and hands it in; only a person accepts it, never the
// one who did the work, and once accepted every view says so.
describe('accepting a hand-in', {timeout: 90_000}, () => {
	it('refuses --as the operator, accepts the acceptor, and work, JSON, the board and a second accept all say accepted', async () => {
		const repo = makeContractRepo();
		const home = scratchDir('cr-accept-');
		const ledger = freshLedgerFile(home);
		// $USER unset: the OS user is still recorded, never "a person"
		const env = {CONTROLROOM_HOME: home, USER: undefined};
		const cli = (args: string[]) => runCli([...args, '--ledger', ledger], {env});
		const person = (args: string[]) => runAsPerson([...args, '--ledger', ledger], {env});
		const taken = cli(['take', repo.place('valid-task.yaml'), '--as', 'worker-1', '--json']);
		expect(taken.status, taken.stderr).toBe(0);
		const claim = (JSON.parse(taken.stdout) as {taskId: string}).taskId;
		expect(cli(['hand-in', claim, '--evidence', repo.write('evidence.yaml', EVIDENCE), '--as', 'worker-1']).status).toBe(0);

		// The operator accepting its own work, even at a terminal: refused, and nothing recorded
		const own = person(['accept', claim, '--as', 'worker-1']);
		expect(own.status).toBe(1);
		expect(own.stderr).toBe(
			`controlroom: ${claim}: worker-1 did this work (its operator, holder or actor): whoever does the work cannot accept it\n`,
		);
		const stillWaiting = JSON.parse(cli(['work', '--json']).stdout) as WorkJson;
		expect(stillWaiting.items.find(item => item.taskId === claim)?.state).toBe('handed in');

		// Both acceptors own every line: the first leaves it open, the second accepts it
		const first = person(['accept', claim, '--as', 'lee']);
		expect(first.status, first.stderr).toBe(0);
		expect(first.stdout).toBe(`${claim} still open: waiting for dana: lines 1, 2\n`);
		const accepted = person(['accept', claim, '--as', 'dana', '--note', 'checked the CSV by hand']);
		expect(accepted.status, accepted.stderr).toBe(0);
		expect(accepted.stdout).toBe(`accepted ${claim} (by dana)\n`);
		const open = openLedger(ledger);
		try {
			const [event] = open.reader.eventsOfType([EventType.workAccepted]);
			expect(event?.data).toMatchObject({
				by: 'dana',
				osUser: userInfo().username,
				uid: userInfo().uid,
				note: 'checked the CSV by hand',
			});
		} finally {
			open.close();
		}

		// work, work --json and the snapshot say accepted
		expect((JSON.parse(cli(['work', '--json']).stdout) as WorkJson).items.find(item => item.taskId === claim)?.state).toBe(
			'accepted',
		);
		expect(cli(['work']).stdout).toContain(`${claim}  accepted`);
		const snapshot = JSON.parse(cli(['snapshot', '--json', '--all']).stdout) as {tasks: {id: string; endReason: string}[]};
		expect(snapshot.tasks.find(task => task.id === claim)?.endReason).toBe('accepted by dana');
		expect(cli(['snapshot']).stdout).not.toContain('waiting for');

		// A second accept is refused, saying why
		const again = person(['accept', claim, '--as', 'lee']);
		expect(again.status).toBe(1);
		expect(again.stderr).toMatch(
			new RegExp(`^controlroom: ${claim} is already accepted \\(by dana, \\d{4}-.*\\): nothing to accept again\\n$`),
		);

		// The board's row says accepted
		tmux.start('accept', 200, 40, {PATH: process.env['PATH'] ?? '', CONTROLROOM_HOME: home});
		tmux.type('accept', `node ${BIN} --ledger ${ledger}`);
		tmux.send('accept', 'Enter');
		const {pane} = await tmux.waitFor('accept', current => current.includes(claim), 20_000);
		const row = pane.split('\n').find(line => line.includes(claim)) ?? '';
		expect(row).toContain('accepted');
		expect(row).not.toContain('handed in');
		await waitFor(() => tmux.readsKeys('accept'), {what: 'the board to read keys', timeoutMs: 8000});
		tmux.send('accept', 'q');
	});

	it('refuses --as a worker of this ledger, and the OS user without --as when the contract names others', () => {
		const repo = makeContractRepo();
		const home = scratchDir('cr-accept-');
		const ledger = freshLedgerFile(home);
		const env = {CONTROLROOM_HOME: home};
		const cli = (args: string[]) => runCli([...args, '--ledger', ledger], {env});
		const claim = (
			JSON.parse(cli(['take', repo.place('valid-task.yaml'), '--as', 'worker-1', '--json']).stdout) as {taskId: string}
		).taskId;
		// Another worker holds another claim
		expect(cli(['take', repo.place('valid-bug.yaml'), '--as', 'worker-2']).status).toBe(0);
		expect(cli(['hand-in', claim, '--evidence', repo.write('evidence.yaml', EVIDENCE), '--as', 'worker-1']).status).toBe(0);
		const asWorker = runAsPerson(['accept', claim, '--as', 'Worker-2', '--ledger', ledger], {env});
		expect(asWorker.status).toBe(1);
		expect(asWorker.stderr).toContain('--as Worker-2: Worker-2 is a worker in this ledger');
		// A hand-in is accepted by the acceptors its contract names, each for their lines (docs/contracts.md, "Accepting")
		const byOsUser = runAsPerson(['accept', claim, '--ledger', ledger], {env});
		expect(byOsUser.status).toBe(1);
		expect(byOsUser.stderr).toBe(
			`controlroom: ${claim}: ${userInfo().username} is not an acceptor of this hand-in (dana: lines 1, 2; lee: lines 1, 2): --as names one of them\n`,
		);
	});
});
