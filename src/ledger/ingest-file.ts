import {createReadStream} from 'node:fs';
import type {IngestStats} from './ingest-write.ts';
import {createIngestor, type IngestOptions} from './ingest.ts';
import {byteLines} from './ingest-stream.ts';
import type {Ledger} from './open-ledger.ts';

/**
 * Ingests a whole file (or stdin when `file` is null) on this thread, in batched transactions.
 * Parsing on a worker thread beside the writer was measured slower on the 2-core machine this is
 * built on, and held more memory (docs/ledger.md, "Ingest speed"): there is none.
 */
export async function ingestInput(ledger: Ledger, file: string | null, options: IngestOptions): Promise<IngestStats> {
	const ingestor = createIngestor(ledger, options);
	const stream = file === null ? process.stdin : createReadStream(file, {highWaterMark: 1 << 20});
	for await (const line of byteLines(stream)) ingestor.push(line.raw, line.streamed);
	return ingestor.finish();
}
