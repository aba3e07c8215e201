import {renameSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {addSpendRows, dayCostOf, emptyDaySpend, localDayOf, type DaySpend} from '../core/day-cost.ts';
import type {PriceTable} from '../core/price-table.ts';
import {statusSummary, summaryFileText, type StatusSummary} from '../core/status-summary.ts';
import type {LedgerReader} from './reader.ts';
import {readSnapshot, type SnapshotQuery} from './snapshot-query.ts';

/** The summary file's name, beside the ledger (where the spool is): what the shell entry reads. */
export const STATUS_FILE = 'status';

export function statusFilePath(ledgerPath: string): string {
	return join(dirname(ledgerPath), STATUS_FILE);
}

/** The local day's spend, kept between passes: each pass reads only the spend rows written since the last. */
export type DaySpendReader = (reader: LedgerReader, now: number) => DaySpend;

/**
 * A day's spend that reads the day's rows once, then only the new ones (by seq): the board and the
 * reconciler write the summary every pass, and a day of a busy ledger holds thousands of rows. A
 * new day, or another ledger file behind the same path (docs/ledger.md), starts it again.
 */
export function createDaySpendReader(): DaySpendReader {
	let kept: {spend: DaySpend; reader: LedgerReader; seq: number} | null = null;
	return (reader, now) => {
		const day = localDayOf(now);
		const seq = reader.lastSeq();
		if (kept === null || kept.reader !== reader || kept.spend.day.from !== day.from || seq < kept.seq) {
			// Up to the seq read first: a row written meanwhile is read by the next pass, never by both.
			const spend = addSpendRows(emptyDaySpend(day), reader.spendEventsBetween(day.from, day.until, seq));
			kept = {spend, reader, seq};
			return spend;
		}
		if (seq > kept.seq) {
			kept = {spend: addSpendRows(kept.spend, reader.spendEventsAfter(kept.seq, day.from, day.until)), reader, seq};
		}
		return kept.spend;
	};
}

/**
 * Writes the status line's summary beside the ledger (docs/tmux.md, "Status line"): made from the
 * snapshot's counts and the local day's spend, written to a temporary name and renamed, so a reader
 * never sees half a file; owner only, as every file controlroom makes. `prices` null: the price
 * table could not be read, so the day's cost is unknown rather than priced by half a table.
 */
export function writeStatusSummary(
	reader: LedgerReader,
	ledgerPath: string,
	options: {
		readonly now?: number;
		readonly isApproverAlive?: SnapshotQuery['isApproverAlive'];
		readonly prices: PriceTable | null;
		/** The day's spend kept by a process that writes the summary every pass; a one-off read without it. */
		readonly daySpend?: DaySpendReader;
	},
): StatusSummary {
	const now = options.now ?? Date.now();
	const query = {now, windowMs: 24 * 3600 * 1000, ...(options.isApproverAlive ? {isApproverAlive: options.isApproverAlive} : {})};
	const spend = (options.daySpend ?? createDaySpendReader())(reader, now);
	const cost = options.prices === null ? null : dayCostOf(spend, options.prices);
	const summary = statusSummary(readSnapshot(reader, query), now, cost, spend.day.until);
	const file = statusFilePath(ledgerPath);
	const temporary = `${file}.${process.pid}.tmp`;
	writeFileSync(temporary, summaryFileText(summary), {mode: 0o600});
	renameSync(temporary, file);
	return summary;
}
