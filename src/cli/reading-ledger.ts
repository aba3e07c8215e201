import type {Ledger} from '../ledger/open-ledger.ts';
import {spoolDir} from '../ledger/paths.ts';
import {foldSpool} from '../ledger/spool.ts';
import {catchUpTranscripts} from '../ledger/transcript-catch-up.ts';
import {openCommandLedger, type LedgerMode} from './context.ts';

/**
 * Opens the ledger a reading command names and folds the spool into it first, then reads what live
 * sessions' transcripts grew by, so nothing it prints is older than the last hook call (the spool
 * hook only writes spool files) or the last answer an agent wrote. A fold that fails (a
 * ledger this user cannot write, say) is said on stderr, and the command still reads. Apart from
 * context.ts, so that the board, which folds the spool only when a spool file comes, does not load
 * the spool's parsers before its first frame.
 */
export function openReadingLedger(ledgerFlag: string | undefined, mode: LedgerMode = 'read'): Ledger {
	const ledger = openCommandLedger(ledgerFlag, {mode});
	try {
		foldSpool(ledger, spoolDir(ledger.path));
		catchUpTranscripts(ledger);
	} catch (error) {
		process.stderr.write(`controlroom: could not fold the spool first: ${(error as Error).message.split('\n')[0]}\n`);
	}
	return ledger;
}
