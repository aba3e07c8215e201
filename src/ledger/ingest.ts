import {createLineBatcher} from './ingest-batch.ts';
import type {RawLine} from './ingest-line.ts';
import type {ParseOptions} from './ingest-map.ts';
import {emptyStats, writeLineBatch, type IngestStats} from './ingest-write.ts';
import type {Ledger} from './open-ledger.ts';

/**
 * Joins the batcher (ingest-batch.ts) to the writer (ingest-write.ts). Which ingest-*.ts file does
 * which job: docs/ledger.md, "Ingest, by job".
 */

/** Where the lines come from (recorded on each reject). */
export type IngestOptions = ParseOptions & {readonly origin: string};

/** Folds lines into the ledger in batched transactions, on this thread (see createLineBatcher). */
export function createIngestor(ledger: Ledger, options: IngestOptions) {
	const stats = emptyStats();
	const batcher = createLineBatcher({...options, withLegacyKeys: ledger.reader.hasLegacyLineKeys()}, batch => {
		writeLineBatch(ledger, batch, stats, {origin: options.origin});
	});
	return {
		stats,
		/** Adds one line; writes a batch when it is full. */
		push: batcher.push,
		/** Writes what is left; returns the totals. */
		finish(): IngestStats {
			batcher.finish();
			return stats;
		},
	};
}

/** Folds a whole in-memory list of lines. */
export function ingestLines(ledger: Ledger, lines: Iterable<RawLine>, options: IngestOptions): IngestStats {
	const ingestor = createIngestor(ledger, options);
	for (const line of lines) ingestor.push(line);
	return ingestor.finish();
}
