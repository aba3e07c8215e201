// The worker thread of a background integrity check (integrity-check.ts): opens the ledger
// read-only on its own connection and runs `PRAGMA quick_check`, which on a large ledger takes
// seconds that the board's thread must not spend.
import {parentPort, workerData} from 'node:worker_threads';
import {openLedger} from './open-ledger.ts';

/** What the worker answers: the problems (empty when the file is sound), or why it could not look. */
export type IntegrityAnswer = {readonly problems: readonly string[]} | {readonly error: string};

function check(file: string): IntegrityAnswer {
	try {
		const ledger = openLedger(file, {isReadonly: true});
		try {
			return {problems: ledger.quickCheck()};
		} finally {
			ledger.close();
		}
	} catch (error) {
		return {error: error instanceof Error ? error.message : String(error)};
	}
}

parentPort?.postMessage(check((workerData as {file: string}).file));
