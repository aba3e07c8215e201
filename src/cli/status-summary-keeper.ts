import {isApproverAlive} from '../gates/effects/liveness.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {createDaySpendReader, writeStatusSummary} from '../ledger/status-file.ts';
import {CliError} from './errors.ts';
import {loadPriceTable} from './price-file.ts';

/**
 * What the board and the reconciler call after each pass: writes the status line's summary
 * (docs/tmux.md, "Status line"), keeping the day's spend between calls so a pass reads only the
 * spend rows that are new. A price file that is wrong leaves the day's cost unknown (`$—`), the
 * counts still current; a folder it cannot write leaves the line stale, which it says. Either way
 * the pass itself goes on: the summary is a convenience for tmux.
 */
export function createStatusSummaryKeeper(ledger: Ledger): () => void {
	const daySpend = createDaySpendReader();
	return () => {
		let prices = null;
		try {
			prices = loadPriceTable();
		} catch (error) {
			if (!(error instanceof CliError)) throw error;
		}
		try {
			writeStatusSummary(ledger.reader, ledger.path, {isApproverAlive, prices, daySpend});
		} catch {
			// Nothing to do: the line says how old its summary is.
		}
	};
}
