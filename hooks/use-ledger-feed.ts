import {watch} from 'chokidar';
import {useCallback, useEffect, useRef, type Dispatch} from 'react';
import type {BoardAction} from '../src/core/board/state.ts';
import type {BoardFeed} from '../src/ledger/board-feed.ts';

/** One flush per frame at most: Ink draws at 30 fps (STYLE.md R13). */
export const FRAME_MS = 33;

/** What the feed hook needs: the reads, and the files whose changes mean new events. */
export type FeedSource = {
	readonly feed: BoardFeed;
	/** The database file and its WAL. */
	readonly ledgerFiles: readonly string[];
	/** The hook's spool folder; a new file there is folded into the ledger by `onSpool`. */
	readonly spoolDir: string | null;
	readonly onSpool?: () => void;
};

/**
 * Tails the ledger: one full read at start, then on every change chokidar reports, at most one
 * `seq > last` read and one dispatch per frame. Returns `refresh` to read at once after an action.
 */
export function useLedgerFeed(source: FeedSource, dispatch: Dispatch<BoardAction>, openTaskId: string | null): {refresh: () => void} {
	const openRef = useRef(openTaskId);
	openRef.current = openTaskId;
	const flushRef = useRef<() => void>(() => {});
	useEffect(() => {
		const {feed} = source;
		const first = feed.load(Date.now());
		let lastSeq = first.lastSeq;
		dispatch({type: 'ledger-read', ...first});
		let timer: NodeJS.Timeout | undefined;
		let lastFlush = 0;
		const flush = () => {
			timer = undefined;
			lastFlush = Date.now();
			const batch = feed.poll(lastSeq, lastFlush, openRef.current);
			if (!batch) return;
			lastSeq = batch.lastSeq;
			dispatch({type: 'ledger-read', ...batch});
		};
		const schedule = () => {
			timer ??= setTimeout(flush, Math.max(0, lastFlush + FRAME_MS - Date.now()));
		};
		flushRef.current = schedule;
		const paths = [...source.ledgerFiles, ...(source.spoolDir ? [source.spoolDir] : [])];
		const watcher = watch(paths, {ignoreInitial: true, depth: 0});
		watcher.on('all', (_event, path) => {
			if (source.spoolDir && source.onSpool && path.startsWith(source.spoolDir)) source.onSpool();
			schedule();
		});
		return () => {
			clearTimeout(timer);
			void watcher.close();
		};
	}, [source, dispatch]);
	return {refresh: useCallback(() => flushRef.current(), [])};
}
