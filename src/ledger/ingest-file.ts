import {createReadStream, existsSync, statSync} from 'node:fs';
import {Worker} from 'node:worker_threads';
import type {NewEvent} from '../core/events.ts';
import {createIngestor, emptyStats, writeLineBatch, type IngestOptions, type IngestStats} from './ingest.ts';
import type {IngestWorkerData, IngestWorkerMessage} from './ingest-worker.ts';
import {byteLines} from './ingest-stream.ts';
import type {Ledger} from './open-ledger.ts';

/** Inputs smaller than this are read on this thread: a worker's start costs more than it saves. */
const WORKER_MIN_BYTES = 64 * 1024 * 1024;

/** Where to read from, and the built worker (dist/ledger/ingest-worker.js) when there is one. */
export type IngestInput = {
	/** A file, or null for stdin. */
	readonly file: string | null;
	/** The worker thread's script; without it (or when it is missing) everything runs on this thread. */
	readonly workerFile?: string;
};

/**
 * Ingests a whole file or stdin. With a worker script, parsing, validation, mapping, keys and data
 * serialization run on a worker thread while this one writes (SQLite and the task projection), so a
 * bulk import uses two cores; otherwise both run here. The ledger sees the same batches either way.
 */
export async function ingestInput(ledger: Ledger, input: IngestInput, options: IngestOptions): Promise<IngestStats> {
	const isLarge = input.file !== null && statSync(input.file).size >= WORKER_MIN_BYTES;
	if (isLarge && input.workerFile && existsSync(input.workerFile)) {
		return ingestOnWorker(ledger, input.file, input.workerFile, options);
	}
	const ingestor = createIngestor(ledger, options);
	const stream = input.file === null ? process.stdin : createReadStream(input.file, {highWaterMark: 1 << 20});
	for await (const line of byteLines(stream)) ingestor.push(line.raw, line.streamed);
	return ingestor.finish();
}

function ingestOnWorker(ledger: Ledger, file: string | null, workerFile: string, options: IngestOptions): Promise<IngestStats> {
	const stats = emptyStats();
	const workerData: IngestWorkerData = {file, options: {...options, withLegacyKeys: ledger.reader.hasLegacyLineKeys()}};
	const worker = new Worker(workerFile, {workerData});
	return new Promise<IngestStats>((resolve, reject) => {
		let isSettled = false;
		const settle = (fn: () => void): void => {
			if (isSettled) return;
			isSettled = true;
			fn();
		};
		worker.on('message', (message: IngestWorkerMessage) => {
			try {
				if (message.kind === 'batch') {
					const {batch} = message;
					const events = batch.events.map(
						(event, index) => ({...event, data: JSON.parse(batch.dataJson[index] ?? '{}') as unknown}) as NewEvent,
					);
					writeLineBatch(ledger, {...batch, events}, stats, {origin: options.origin, dataJson: batch.dataJson});
					worker.postMessage('ack');
				} else if (message.kind === 'done') {
					settle(() => resolve(stats));
					void worker.terminate();
				} else {
					settle(() => reject(new Error(message.message)));
					void worker.terminate();
				}
			} catch (error) {
				settle(() => reject(error instanceof Error ? error : new Error(String(error))));
				void worker.terminate();
			}
		});
		worker.on('error', error => settle(() => reject(error)));
		worker.on('exit', code => settle(() => reject(new Error(`the ingest worker stopped (exit ${code})`))));
	});
}
