import {existsSync} from 'node:fs';
import {ledgerPath} from '../ledger/paths.ts';
import {openLedger, type Ledger, type OpenOptions} from '../ledger/open-ledger.ts';
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
