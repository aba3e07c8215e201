// The worker thread of a background integrity check (integrity-check.ts): opens the ledger
// read-only on its own connection and runs `PRAGMA quick_check`, or checks the whole hash chain,
// either of which on a large ledger takes seconds that the board's thread must not spend.
import {parentPort, workerData} from 'node:worker_threads';
import {verifyChain, type ChainHead, type VerifyRange, type VerifyResult} from './chain-verify.ts';
import {openLedger} from './open-ledger.ts';

/** What the worker answers: the problems (empty when the file is sound), or why it could not look. */
export type IntegrityAnswer = {readonly problems: readonly string[]} | {readonly error: string};

/** What the chain check answers: the first break in words (null: it holds) and the head it reached. */
export type ChainAnswer = {readonly found: string | null; readonly head: ChainHead | null} | {readonly error: string};

/** What a check of part of the chain answers (verify splits a long chain between threads). */
export type PartAnswer = {readonly result: VerifyResult} | {readonly error: string};

type Job = {readonly file: string; readonly check?: 'quick' | 'chain' | 'part'; readonly range?: VerifyRange};

function run(job: Job): IntegrityAnswer | ChainAnswer | PartAnswer {
	try {
		const ledger = openLedger(job.file, {isReadonly: true});
		try {
			if (job.check === 'part') return {result: verifyChain(ledger.reader, job.range)};
			if (job.check !== 'chain') return {problems: ledger.quickCheck()};
			const result = verifyChain(ledger.reader);
			return result.isIntact
				? {found: null, head: result.head}
				: {found: `seq ${result.found.seq} ${result.found.kind}: ${result.found.why}`, head: null};
		} finally {
			ledger.close();
		}
	} catch (error) {
		return {error: error instanceof Error ? error.message : String(error)};
	}
}

parentPort?.postMessage(run(workerData as Job));
