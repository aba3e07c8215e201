import {Worker} from 'node:worker_threads';
import type {IntegrityAnswer} from './integrity-worker.ts';

/**
 * Runs `PRAGMA quick_check` on the ledger at `file` in a worker thread (the built
 * dist/ledger/integrity-worker.js) and resolves with the problems, empty when the file is sound.
 * Rejects when the check could not run. The worker never keeps the process alive.
 */
export function quickCheckInBackground(file: string, workerFile: string): Promise<readonly string[]> {
	return new Promise((resolve, reject) => {
		const worker = new Worker(workerFile, {workerData: {file}});
		worker.unref();
		worker.once('message', (answer: IntegrityAnswer) => {
			if ('error' in answer) reject(new Error(answer.error));
			else resolve(answer.problems);
		});
		worker.once('error', reject);
		worker.once('exit', code => reject(new Error(`the integrity check ended (exit ${code}) without an answer`)));
	});
}
