import {join} from 'node:path';
import type {BoardAdapters} from '../../components/App.tsx';
import {createChainWatch} from '../ledger/chain-watch.ts';
import {quickCheckInBackground} from '../ledger/integrity-check.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import type {PastBoardFeed} from '../ledger/board-feed.ts';
import {createPastBoardFeed} from '../ledger/past-board-feed.ts';
import type {Moment} from '../ledger/reader-as-of.ts';
import {packageRoot} from './package-root.ts';

/** How a past board is opened: the board's window and stall, and what its header calls the ledger. */
export type PastBoardRun = {
	readonly stallSeconds?: number;
	readonly endedWindowMs?: number;
	readonly ledgerLabel: string;
	readonly prices?: NonNullable<BoardAdapters['options']['prices']>;
	readonly person?: string;
};

/**
 * The board at a past moment (`board --at`, docs/flight-recorder.md): its feed steps through time
 * on the ledger as of each moment, and nothing that writes is wired. No reconciler pass, no spool
 * fold, no bell or notification, no stop, send back, approval, answer or acknowledgement: the
 * keys that would act say why they do not (src/core/board/past-moment.ts) before any of these is
 * asked. It still checks the ledger's integrity and chain, which only read.
 */
export function pastBoardAdapters(ledger: Ledger, moment: Moment, run: PastBoardRun): BoardAdapters & {past: PastBoardFeed} {
	const feed = createPastBoardFeed(ledger, moment, run.endedWindowMs === undefined ? {} : {endedWindowMs: run.endedWindowMs});
	const readOnly = 'a board at a past moment (board --at) is read-only';
	return {
		feed,
		past: feed,
		ledgerFiles: [ledger.path, `${ledger.path}-wal`],
		spoolDir: null,
		options: {
			ledgerLabel: run.ledgerLabel,
			...(run.prices === undefined ? {} : {prices: run.prices}),
			...(run.person === undefined ? {} : {person: run.person}),
			...(run.stallSeconds === undefined ? {} : {stallSeconds: run.stallSeconds}),
			...(run.endedWindowMs === undefined ? {} : {endedWindowMs: run.endedWindowMs}),
		},
		stopUnavailable: readOnly,
		jump: async taskId => (await import('../producers/tmux-jump.ts')).jumpToTask(taskId, ledger.reader.resolveTask(taskId)),
		checkIntegrity: () => quickCheckInBackground(ledger.path, join(packageRoot(), 'dist', 'ledger', 'integrity-worker.js')),
		checkChain: createChainWatch(ledger, join(packageRoot(), 'dist', 'ledger', 'integrity-worker.js')),
	};
}
