import {existsSync} from 'node:fs';
import {ledgerPath, spoolDir} from '../ledger/paths.ts';
import {openLedger, type Ledger, type OpenOptions} from '../ledger/open-ledger.ts';
import {foldSpool} from '../ledger/spool.ts';
import {CliError} from './errors.ts';

/**
 * Opens the ledger a command names (`--ledger PATH`, else the default home). A reading command
 * given a path that does not exist says so instead of creating an empty ledger there.
 */
export function openCommandLedger(ledgerFlag: string | undefined, options: OpenOptions & {isReading?: boolean} = {}): Ledger {
	const file = ledgerPath(ledgerFlag);
	if (options.isReading && ledgerFlag !== undefined && !existsSync(file)) throw new CliError(`--ledger: no ledger at ${file}`);
	return openLedger(file, options);
}

/** Writes to stdout, leaving the process to exit once it is flushed. */
export function out(text: string): void {
	process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * Opens the ledger a reading command names and folds the spool into it first, so nothing it prints
 * is older than the last hook call (the spool hook only writes spool files). A fold that fails (a
 * ledger this user cannot write, say) is said on stderr, and the command still reads.
 */
export function openReadingLedger(ledgerFlag: string | undefined): Ledger {
	const ledger = openCommandLedger(ledgerFlag, {isReading: true});
	try {
		foldSpool(ledger, spoolDir(ledger.path));
	} catch (error) {
		process.stderr.write(`controlroom: could not fold the spool first: ${(error as Error).message.split('\n')[0]}\n`);
	}
	return ledger;
}
