import type {LineBatch} from './ingest-batch.ts';
import {rejectedHead, rejectReason} from './ingest-line.ts';
import type {Ledger} from './open-ledger.ts';
import {isStoreFault} from './store-errors.ts';
import type {Reject} from './writer.ts';

/** How many rejected lines an ingest reports by number and reason (all of them are in the rejects table). */
export const REPORTED_REJECTS = 5;

/**
 * `rejected` counts lines that failed this time; `rejectsAdded` those not already recorded;
 * `firstRejects` the first few of them, by line number, with the reason.
 */
export type IngestStats = {
	lines: number;
	appended: number;
	rejected: number;
	rejectsAdded: number;
	skipped: number;
	firstRejects: {line: number; reason: string}[];
};

/** A fresh tally. */
export const emptyStats = (): IngestStats => ({
	lines: 0,
	appended: 0,
	rejected: 0,
	rejectsAdded: 0,
	skipped: 0,
	firstRejects: [],
});

function writeRejects(ledger: Ledger, rejects: readonly Reject[]): number {
	let added = 0;
	for (const reject of rejects) if (ledger.writer.reject(reject)) added += 1;
	return added;
}

function noteRejects(rejects: readonly Reject[], stats: IngestStats): void {
	stats.rejected += rejects.length;
	for (const reject of rejects) {
		if (stats.firstRejects.length >= REPORTED_REJECTS) break;
		stats.firstRejects.push({line: reject.line ?? 0, reason: reject.reason});
	}
}

/**
 * After a batch the store refused for a reason not its own (a constraint, a trigger): each input
 * line in its own transaction, so only the line whose events are refused becomes a reject.
 */
function writeOneByOne(ledger: Ledger, batch: LineBatch, stats: IngestStats, origin: string): Reject[] {
	const refused: Reject[] = [];
	let start = 0;
	for (const input of batch.inputs) {
		const end = start + input.events;
		const events = batch.events.slice(start, end);
		const appendOptions = batch.legacyKeys ? {legacyKeys: batch.legacyKeys.slice(start, end)} : {};
		start = end;
		try {
			stats.appended += ledger.writer.transaction(() => ledger.writer.append(events, appendOptions).appended);
		} catch (error) {
			if (isStoreFault(error)) throw error;
			const key = events[0]?.dedupKey ?? '';
			const raw = JSON.stringify(events.map(event => event.data));
			refused.push({
				origin,
				line: input.line,
				reason: `events could not be written: ${rejectReason(error)}`,
				raw: rejectedHead(raw),
				rawBytes: Buffer.byteLength(raw),
				dedupKey: `${origin}:${key.slice(0, key.lastIndexOf(':'))}`,
			});
		}
	}
	stats.rejectsAdded += ledger.writer.transaction(() => writeRejects(ledger, [...batch.rejects, ...refused]));
	return refused;
}

/**
 * Writes one batch in one immediate transaction and adds what it did to `stats`.
 * Only a fault of the store itself (busy, full, corrupt) escapes; the input is then read again.
 * Returns the rejects of the batch, those the store made included, in line order.
 */
export function writeLineBatch(
	ledger: Ledger,
	batch: LineBatch,
	stats: IngestStats,
	options: {readonly origin: string},
): Reject[] {
	stats.lines += batch.lines - batch.skipped;
	stats.skipped += batch.skipped;
	let refused: Reject[] = [];
	try {
		// Counted once the transaction stands: a rolled-back batch is written again line by line.
		const written = ledger.writer.transaction(() => {
			const appendOptions = batch.legacyKeys ? {legacyKeys: batch.legacyKeys} : {};
			return {
				appended: ledger.writer.append(batch.events, appendOptions).appended,
				rejectsAdded: writeRejects(ledger, batch.rejects),
			};
		});
		stats.appended += written.appended;
		stats.rejectsAdded += written.rejectsAdded;
	} catch (error) {
		if (isStoreFault(error)) throw error;
		refused = writeOneByOne(ledger, batch, stats, options.origin);
	}
	const rejects = [...batch.rejects, ...refused].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
	noteRejects(rejects, stats);
	return rejects;
}
