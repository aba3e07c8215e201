import {describe, expect, it} from 'vitest';
import {selectTimeline} from '../../src/core/board/timeline-view.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli} from '../helpers/cli.ts';
import {COMPLETE_EVIDENCE, makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

describe('Enter on a claim', () => {
	it('shows the contract it took and the evidence it handed in, not "none recorded"', () => {
		// Given a claim taken with the CLI and handed in with complete evidence
		const repo = makeContractRepo();
		const ledgerFile = freshLedgerFile();
		const contract = repo.place('valid-task.yaml');
		const taken = runCli(['take', contract, '--as', 'ana', '--ledger', ledgerFile]);
		const id = /as (claim-\S+)/.exec(taken.stdout)?.[1] ?? '';
		expect(id, taken.stderr).not.toBe('');
		const handed = runCli(['hand-in', id, '--evidence', repo.write('evidence.yaml', COMPLETE_EVIDENCE), '--ledger', ledgerFile]);
		expect(handed.status, handed.stderr).toBe(0);
		// When the board opens its drill-down
		const ledger = openLedger(ledgerFile);
		try {
			const task = ledger.reader.task(id);
			const view = selectTimeline(task, ledger.reader.eventsOf(id), Date.now());
			// Then it names the contract file, its kind and who took it, and the evidence file and who it waits for
			expect(view.contract).toHaveLength(1);
			expect(view.contract[0]).toMatch(/valid-task\.yaml \(task\) taken by ana/);
			expect(view.evidence).toHaveLength(1);
			expect(view.evidence[0]).toMatch(/evidence\.yaml \(.*\), handed in for lee/);
		} finally {
			ledger.close();
		}
	});
});
