import type {ApproverCheck} from '../core/effects/fold.ts';
import {SESSION_ANSWERED_SOURCES} from '../core/human-queue.ts';
import {snapshotOf} from '../core/read-port/snapshot-of.ts';
import type {PriceTable} from '../core/price-table.ts';
import type {Snapshot} from '../core/snapshot.ts';
import {foldStats} from '../core/stats/measures.ts';
import {localReadPort} from './local-read-port.ts';
import type {LedgerReader} from './reader.ts';

/** What a snapshot is asked for: when, which window of ended tasks, and how to tell stalls and dead approvers. */
export type SnapshotQuery = {
	readonly now: number;
	/** Ended tasks are listed when they ended within this many ms; null lists all. */
	readonly windowMs: number | null;
	readonly stallSeconds?: number;
	/** The ledger's host name, which each task carries in the snapshot. */
	readonly host?: string;
	/** Tells a running approval from a dead one (outcome unknown); without it, started stays started. */
	readonly isApproverAlive?: ApproverCheck;
	/** Prices for the tasks' cost (docs/tree-and-cost.md); the shipped table when absent. */
	readonly prices?: PriceTable;
	/** Whose looks each finished task's `seen` is about (docs/tmux.md). */
	readonly person?: string;
	/** List helpers whose parent is listed only in its `children` (the text snapshot, as the board folds them). */
	readonly foldHelpers?: boolean;
	/** Add the measures of docs/stats.md (`stats`, the JSON snapshot's): one more read of the ledger. */
	readonly withStats?: boolean;
};

/** Snapshot JSON v1 of the local ledger: a fleet of one host, read through the read port and made by snapshotOf. */
export function readSnapshot(reader: LedgerReader, query: SnapshotQuery): Snapshot {
	const since = query.windowMs === null ? null : query.now - query.windowMs;
	const port = localReadPort(reader, query.host ?? null);
	const rows = port.snapshotRows({
		now: query.now,
		answeredBySession: SESSION_ANSWERED_SOURCES,
		viewSince: since,
	});
	const snapshot = snapshotOf(rows, {
		now: query.now,
		since,
		isApproverAlive: query.isApproverAlive,
		isFleet: false,
		...(query.prices === undefined ? {} : {prices: query.prices}),
		...(query.person === undefined ? {} : {person: query.person}),
		...(query.stallSeconds === undefined ? {} : {stallSeconds: query.stallSeconds}),
		...(query.foldHelpers ? {foldHelpers: true} : {}),
	});
	return query.withStats ? {...snapshot, stats: foldStats(port.statsEvents(), null, query.now)} : snapshot;
}
