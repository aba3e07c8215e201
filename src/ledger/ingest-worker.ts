// The worker thread of a bulk ingest (ingest-file.ts): reads the input, parses, validates, maps
// and keys its lines, and serializes each event's data, beside the thread that writes them.
import {createReadStream} from 'node:fs';
import {parentPort, workerData} from 'node:worker_threads';
import {createLineBatcher, type LineBatch, type LineBatcherOptions} from './ingest.ts';
import {byteLines} from './ingest-stream.ts';

/** What the writer thread gives the worker. */
export type IngestWorkerData = {
	/** The file to read; null for stdin. */
	readonly file: string | null;
	readonly options: LineBatcherOptions;
};

/** One batch as it crosses to the writer: the events' data already JSON, so it is not serialized twice. */
export type WireBatch = Omit<LineBatch, 'events'> & {
	readonly events: readonly {taskId: string; type: string; at: number; source: string; dedupKey: string | null}[];
	readonly dataJson: readonly string[];
};

export type IngestWorkerMessage =
	| {readonly kind: 'batch'; readonly batch: WireBatch}
	| {readonly kind: 'done'}
	| {readonly kind: 'error'; readonly message: string};

/** Batches parsed ahead of the writer at most: enough to keep both threads busy, bounded memory. */
const MAX_IN_FLIGHT = 3;

async function run(port: NonNullable<typeof parentPort>, input: IngestWorkerData): Promise<void> {
	let inFlight = 0;
	let wake: (() => void) | null = null;
	port.on('message', () => {
		inFlight -= 1;
		wake?.();
		wake = null;
	});
	const batcher = createLineBatcher(input.options, batch => {
		const dataJson = batch.events.map(event => JSON.stringify(event.data));
		const events = batch.events.map(({taskId, type, at, source, dedupKey}) => ({
			taskId,
			type,
			at,
			source,
			dedupKey: dedupKey ?? null,
		}));
		inFlight += 1;
		port.postMessage({kind: 'batch', batch: {...batch, events, dataJson}} satisfies IngestWorkerMessage);
	});
	const stream =
		input.file === null
			? createReadStream('', {fd: 0, highWaterMark: 1 << 20})
			: createReadStream(input.file, {highWaterMark: 1 << 20});
	for await (const line of byteLines(stream)) {
		batcher.push(line.raw, line.streamed);
		while (inFlight >= MAX_IN_FLIGHT) await new Promise<void>(resolve => (wake = resolve));
	}
	batcher.finish();
	port.postMessage({kind: 'done'} satisfies IngestWorkerMessage);
}

if (parentPort) {
	const port = parentPort;
	run(port, workerData as IngestWorkerData).catch((error: unknown) => {
		port.postMessage({
			kind: 'error',
			message: error instanceof Error ? error.message : String(error),
		} satisfies IngestWorkerMessage);
	});
}
