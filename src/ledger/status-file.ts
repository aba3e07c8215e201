import {renameSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {addSpendRows, dayCostOf, emptyDaySpend, localDayOf, type DaySpend} from '../core/day-cost.ts';
import type {PriceTable} from '../core/price-table.ts';
import {familyOf} from '../core/family.ts';
import {SESSION_ANSWERED_SOURCES} from '../core/human-queue.ts';
import {shippedPriceTable} from '../core/price-table.ts';
import {hostGatesOf} from '../core/read-port/host-gates.ts';
import {hostQueue} from '../core/read-port/host-queue.ts';
import {isEnded, STATUSES} from '../core/status.ts';
import {statusSummary, summaryCountsOf, summaryFileText, type StatusSummary, type SummaryCounts} from '../core/status-summary.ts';
import type {Task} from '../core/task.ts';
import {localReadPort} from './local-read-port.ts';
import type {LedgerReader} from './reader.ts';
import type {SnapshotQuery} from './snapshot-query.ts';

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

/** The snapshot's window of ended tasks, which the summary's lost lane counts within. */
const SUMMARY_WINDOW_MS = 24 * 3600 * 1000;

/**
 * The tasks the running, stalled and lost lanes are made of: the open ones, the lost ones of the
 * window, and the tasks above the open ones (a helper alive under an ended one counts for the task
 * above, as the snapshot's tree has it).
 */
function laneTasks(reader: LedgerReader, now: number): Task[] {
	const tasks = new Map<string, Task>();
	for (const task of reader.tasksWithStatus(OPEN_STATUSES)) tasks.set(task.id, task);
	for (const task of reader.tasksWithStatus(['lost']))
		if ((task.endedAt ?? now) >= now - SUMMARY_WINDOW_MS) tasks.set(task.id, task);
	for (const task of [...tasks.values()]) {
		for (let id = task.parentId; id !== null && !tasks.has(id);) {
			const above = reader.task(id);
			if (!above) break;
			tasks.set(above.id, above);
			id = above.parentId;
		}
	}
	return [...tasks.values()];
}

/** The statuses a task runs in: its lane is running, stalled or untracked. */
const OPEN_STATUSES = STATUSES.filter(status => !isEnded(status));

/** The summary's counts: the queue as the snapshot's, the lanes over the tasks they can hold (src/core/status-summary.ts). */
function readSummaryCounts(reader: LedgerReader, now: number, isApproverAlive: SnapshotQuery['isApproverAlive']): SummaryCounts {
	const [rows] = localReadPort(reader).queueRows({now, answeredBySession: SESSION_ANSWERED_SOURCES});
	const queue = rows ? hostQueue(rows, hostGatesOf(rows.gateEvents), now, {isApproverAlive}) : {lanes: [], total: 0};
	const tasks = laneTasks(reader, now);
	return summaryCountsOf(queue, tasks, familyOf(tasks, {now, prices: shippedPriceTable()}), now);
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
	const spend = (options.daySpend ?? createDaySpendReader())(reader, now);
	const cost = options.prices === null ? null : dayCostOf(spend, options.prices);
	const summary = statusSummary(readSummaryCounts(reader, now, options.isApproverAlive), now, cost, spend.day.until);
	const file = statusFilePath(ledgerPath);
	const temporary = `${file}.${process.pid}.tmp`;
	writeFileSync(temporary, summaryFileText(summary), {mode: 0o600});
	renameSync(temporary, file);
	return summary;
}
