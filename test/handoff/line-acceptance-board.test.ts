import {afterAll, describe, expect, it} from 'vitest';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {runAsPerson} from '../helpers/person.ts';
import {Tmux} from '../helpers/tmux.ts';
import {waitFor} from '../helpers/wait-for.ts';

// The board's hand-in view, line by line (docs/board.md, the drill-down; docs/contracts.md,
// "Accepting"), in a real terminal at both sizes the board is made for: dana said met for line 1,
// lee said line 3 is unmet; the view says lee still owes lines 2 and 3, and shows each line with
// its verdicts and its evidence.

const tmux = new Tmux();
afterAll(() => tmux.kill());

const EVIDENCE = `before: {command: npm test, exit_code: 1, output: "1 failed"}
change: [{file: src/export.ts, reason: apply the filter}]
after:
  - {check: 1, command: "npm test -- export", exit_code: 0, output: "12 passed"}
  - {check: 2, command: make check, exit_code: 0, output: ""}
  - {check: 3, command: "head -1 out.csv", exit_code: 0, output: "id,status,total"}
uncertainty: []
review: {commit: 9a8b7c6, acceptor: lee}
`;

describe('the hand-in view on the board, line by line', {timeout: 120_000}, () => {
	const repo = makeContractRepo();
	const home = scratchDir('cr-lines-board-');
	const ledger = freshLedgerFile(home);
	const env = {CONTROLROOM_HOME: home};
	const cli = (args: string[]) => runCli([...args, '--ledger', ledger], {env});
	const person = (args: string[]) => runAsPerson([...args, '--ledger', ledger], {env});
	let claim = '';

	it('records the verdicts the view then shows', () => {
		const taken = cli(['take', repo.place('two-acceptors.yaml'), '--as', 'worker-1', '--json']);
		expect(taken.status, taken.stderr).toBe(0);
		claim = (JSON.parse(taken.stdout) as {taskId: string}).taskId;
		const handed = cli(['hand-in', claim, '--evidence', repo.write('evidence.yaml', EVIDENCE), '--as', 'worker-1']);
		expect(handed.status, handed.stderr).toBe(0);
		expect(person(['accept', claim, '--as', 'dana']).status).toBe(0);
		const lee = person(['accept', claim, '--as', 'lee', '--line', '3', '--unmet', 'status column moved first']);
		expect(lee.status, lee.stderr).toBe(0);
		expect(lee.stdout).toContain('waiting for lee: lines 2, 3');
	});

	for (const [width, height] of [
		[160, 45],
		[80, 24],
	] as const) {
		it(`at ${width}×${height}: Enter on the claim shows who owes what and each line's verdicts and evidence`, async () => {
			const session = `lines-${width}`;
			tmux.start(session, width, height, {PATH: process.env['PATH'] ?? '', CONTROLROOM_HOME: home});
			tmux.type(session, `node ${BIN} --ledger ${ledger}`);
			tmux.send(session, 'Enter');
			await tmux.waitFor(session, pane => pane.includes(claim.slice(0, 8)), 20_000);
			await waitFor(() => tmux.readsKeys(session), {what: 'the board to read keys', timeoutMs: 8000});
			// Filter to the claim, so Enter opens its drill-down and nothing else's
			tmux.send(session, '/');
			tmux.type(session, claim);
			tmux.send(session, 'Enter');
			await tmux.waitFor(session, pane => pane.includes(`/${claim} (esc clears)`));
			tmux.send(session, 'Enter');
			const {pane} = await tmux.waitFor(session, current => current.includes('acceptance: '), 10_000);
			const lines = pane.split('\n');
			const summary = lines.find(line => line.includes('acceptance: ')) ?? '';
			expect(summary).toContain('acceptance: waiting for lee: lines 2, 3');
			const row = (n: number) => lines.find(line => new RegExp(`^\\s+${n} [✓✗·] `).test(line)) ?? '';
			expect(row(1)).toContain('✓ met: dana');
			expect(row(1)).toContain('npm test -- export: exit 0');
			expect(row(2)).toContain('· owed: lee');
			expect(row(3)).toContain('✗ unmet: lee (status column moved first)');
			if (width >= 160) {
				expect(row(2)).toContain('make check: exit 0 · `make check` exits 0');
				expect(row(3)).toContain('head -1 out.csv: exit 0 · the CSV header keeps its old column order');
			}
			// Nothing of the view runs past the pane's width
			expect(lines.every(line => [...line].length <= width)).toBe(true);
			tmux.send(session, 'q');
			await waitFor(() => tmux.foreground(session) !== 'node', {what: 'the board to quit', timeoutMs: 8000});
		});
	}
});
