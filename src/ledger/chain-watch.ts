import {Worker} from 'node:worker_threads';
import {anchorsFile, anchorsIn, checkAnchors} from './anchors.ts';
import {verifyChain, type ChainHead} from './chain-verify.ts';
import type {ChainAnswer} from './integrity-worker.ts';
import type {Ledger} from './open-ledger.ts';

/** The whole chain checked in a worker thread (the built dist/ledger/integrity-worker.js). */
function verifyInBackground(file: string, workerFile: string): Promise<ChainAnswer> {
	return new Promise((resolve, reject) => {
		const worker = new Worker(workerFile, {workerData: {file, check: 'chain'}});
		worker.unref();
		worker.once('message', resolve);
		worker.once('error', reject);
		worker.once('exit', code => reject(new Error(`the chain check ended (exit ${code}) without an answer`)));
	});
}

/**
 * The board's own check of the hash chain (docs/ledger.md, "verify"): the first call checks the
 * whole chain off the board's thread; each later call checks only what was appended since, from
 * the head it reached, and that the head still carries the hash it had (a rewrite from any seq
 * changes every link after it), and that the ledger still reaches the anchors the reconciler keeps
 * beside it (LEDGER.anchors). Resolves with the break in one line, or null while it holds.
 */
export function createChainWatch(ledger: Ledger, workerFile: string): () => Promise<string | null> {
	// undefined: the whole chain is not checked yet (or the file was replaced: checked again).
	let head: ChainHead | null | undefined;
	let generation = ledger.generation;
	return async () => {
		if (generation !== ledger.generation) {
			generation = ledger.generation;
			head = undefined;
		}
		const anchored = (): string | null => {
			const found = checkAnchors(ledger.reader, anchorsIn(anchorsFile(ledger.file)));
			return found === null ? null : `seq ${found.seq} ${found.kind}: ${found.why}`;
		};
		if (head === undefined) {
			const answer = await verifyInBackground(ledger.file, workerFile);
			if ('error' in answer) throw new Error(answer.error);
			if (answer.found !== null) return answer.found;
			head = answer.head;
			return anchored();
		}
		if (head !== null && ledger.reader.storedEventAt(head.seq)?.hash !== head.hash)
			return `seq ${head.seq} is not the event the board checked: the ledger was written again at or before it (controlroom verify names the first)`;
		const result = verifyChain(ledger.reader, {fromSeq: (head?.seq ?? 0) + 1});
		if (!result.isIntact) return `seq ${result.found.seq} ${result.found.kind}: ${result.found.why}`;
		head = result.head ?? head;
		return anchored();
	};
}
