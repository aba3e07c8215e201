import {existsSync, watch, type FSWatcher} from 'node:fs';
import {dirname} from 'node:path';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {spoolDir} from '../../ledger/paths.ts';
import {foldSpool} from '../../ledger/spool.ts';

/**
 * A commit is visible to readers only once its writer has updated the WAL index, which raises no
 * file event (docs/testing.md): a look just after a write's event can be too early, so one more
 * look follows the last event of a burst.
 */
const TRAILING_LOOK_MS = 100;

/**
 * Folds what the agent's hooks spooled, never throwing. The wrapper calls it once its child has
 * exited, before it records how the run ended: the session's last hooks (a helper's SubagentStop,
 * the final Stop) are then folded before the exit that is judged by them (docs/tree-and-cost.md).
 */
export function foldSpoolQuietly(ledger: Ledger): void {
	const spool = spoolDir(ledger.path);
	try {
		if (existsSync(spool)) foldSpool(ledger, spool);
	} catch {
		// A busy ledger or a half-written spool: the reconciler folds it later.
	}
}

/** A watch over what the agent's hooks write while the wrapper waits for its child. */
export type LedgerWatch = {
	/** Looks now (the heartbeat calls it too, in case an event was missed). */
	look(): void;
	close(): void;
};

/**
 * Calls `onLook` whenever the ledger or the spool may hold something new from another process:
 * the agent's hooks, which write the session's tokens onto the wrapper's task. A hook that found
 * the ledger busy (or the shell hook, which only spools) leaves a spool file: it is folded first,
 * through the same path as every other fold, so a budget counts those tokens too. Never throws:
 * the agent must not be taken down by its instrumentation.
 */
export function watchLedger(ledger: Ledger, onLook: () => void): LedgerWatch {
	const spool = spoolDir(ledger.path);
	const watchers: FSWatcher[] = [];
	let trailing: NodeJS.Timeout | null = null;
	let isSpoolWatched = false;
	let isClosed = false;
	const look = (): void => {
		if (isClosed) return;
		try {
			if (existsSync(spool)) foldSpool(ledger, spool);
			onLook();
		} catch {
			// A busy ledger or a half-written spool: the next event or heartbeat looks again.
		}
	};
	const watchSpool = (): void => {
		if (isSpoolWatched || !existsSync(spool)) return;
		isSpoolWatched = true;
		tryWatch(spool, changed);
	};
	function changed(): void {
		if (isClosed) return;
		watchSpool();
		look();
		if (trailing) clearTimeout(trailing);
		trailing = setTimeout(look, TRAILING_LOOK_MS);
		trailing.unref();
	}
	function tryWatch(dir: string, listener: () => void): void {
		try {
			const watcher = watch(dir, listener);
			watcher.on('error', () => watcher.close());
			watcher.unref();
			watchers.push(watcher);
		} catch {
			// No watch (a folder gone, too many watches): the heartbeat still looks.
		}
	}
	tryWatch(dirname(ledger.path), changed);
	watchSpool();
	return {
		look,
		close() {
			isClosed = true;
			if (trailing) clearTimeout(trailing);
			for (const watcher of watchers) watcher.close();
		},
	};
}
