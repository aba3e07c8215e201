import {renameSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {statusSummary, summaryFileText, type StatusSummary} from '../core/status-summary.ts';
import type {LedgerReader} from './reader.ts';
import {readSnapshot, type SnapshotQuery} from './snapshot-query.ts';

/** The summary file's name, beside the ledger (where the spool is): what the shell entry reads. */
export const STATUS_FILE = 'status';

export function statusFilePath(ledgerPath: string): string {
	return join(dirname(ledgerPath), STATUS_FILE);
}

/**
 * Writes the status line's summary beside the ledger (docs/tmux.md, "Status line"): made from the
 * snapshot's counts, written to a temporary name and renamed, so a reader never sees half a file;
 * owner only, as every file controlroom makes.
 */
export function writeStatusSummary(
	reader: LedgerReader,
	ledgerPath: string,
	options: {readonly now?: number; readonly isApproverAlive?: SnapshotQuery['isApproverAlive']},
): StatusSummary {
	const now = options.now ?? Date.now();
	const query = {now, windowMs: 24 * 3600 * 1000, ...(options.isApproverAlive ? {isApproverAlive: options.isApproverAlive} : {})};
	const summary = statusSummary(readSnapshot(reader, query), now);
	const file = statusFilePath(ledgerPath);
	const temporary = `${file}.${process.pid}.tmp`;
	writeFileSync(temporary, summaryFileText(summary), {mode: 0o600});
	renameSync(temporary, file);
	return summary;
}
