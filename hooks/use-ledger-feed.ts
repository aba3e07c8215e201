import type {FSWatcher, watch as chokidarWatch} from 'chokidar';
import {basename} from 'node:path';
import {useCallback, useEffect, useRef, type Dispatch} from 'react';
import type {BoardAction} from '../src/core/board/state.ts';
import type {BoardFeed} from '../src/ledger/board-feed.ts';

/** One flush per frame at most: Ink draws at 30 fps (docs/board.md, "How it stays live"). */
export const FRAME_MS = 33;
/** A second read after a burst of file events, for a commit the first read was too early for. */
const TRAILING_READ_MS = 150;
/** How often the board checks that its ledger file was not deleted or replaced (a stat; it says so within 5 s). */
const VERIFY_FILE_MS = 2000;

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
 * Tails the ledger from `fromSeq` (the first read happens before the first frame, in the reducer's
 * initializer): on every change chokidar reports, at most one `seq > last` read and one dispatch
 * per frame. Returns `refresh` to read at once after an action.
 */
export function useLedgerFeed(
	source: FeedSource,
	dispatch: Dispatch<BoardAction>,
	fromSeq: number,
	openTaskId: string | null,
): {refresh: () => void} {
	const openRef = useRef(openTaskId);
	openRef.current = openTaskId;
	const startRef = useRef(fromSeq);
	const flushRef = useRef<() => void>(() => {});
	useEffect(() => {
		const {feed} = source;
		let lastSeq = startRef.current;
		let timer: NodeJS.Timeout | undefined;
		let trailing: NodeJS.Timeout | undefined;
		let lastFlush = 0;
		const apply = (batch: ReturnType<BoardFeed['poll']>) => {
			if (!batch) return;
			lastSeq = batch.lastSeq;
			dispatch({type: 'ledger-read', ...batch});
			if (batch.hasMore) schedule();
		};
		const read = () => {
			lastFlush = Date.now();
			apply(feed.poll(lastSeq, lastFlush, openRef.current));
		};
		const flush = () => {
			timer = undefined;
			read();
			// The file event can come before the writer's commit is visible; one read a little
			// later catches a commit that landed after this one, with no further file event.
			clearTimeout(trailing);
			trailing = setTimeout(read, TRAILING_READ_MS);
		};
		const schedule = () => {
			timer ??= setTimeout(flush, Math.max(0, lastFlush + FRAME_MS - Date.now()));
		};
		flushRef.current = schedule;
		// Anything appended between the first read and the watcher starting is read now.
		schedule();
		const paths = [...source.ledgerFiles, ...(source.spoolDir ? [source.spoolDir] : [])];
		const unsubscribe = feed.subscribe?.(schedule);
		let watcher: FSWatcher | null = null;
		let isClosed = false;
		// chokidar is loaded after the first frame, which it has no part in; the watches' `ready` reads
		// once more, so nothing appended meanwhile waits for the next change.
		const startWatching = (): void => {
			if (paths.length === 0) return;
			void import('chokidar').then(({watch}) => {
				if (!isClosed) watcher = watchLedger(watch, source, paths, schedule);
			});
		};
		startWatching();
		// Nothing announces a deleted ledger to an open connection: look at the file's identity. A
		// reopened file gets a new watcher (an inotify watch follows the old inode, not the path), and
		// a tick with no change reads anyway, so a file event that was missed costs at most a tick.
		const verifier = setInterval(() => {
			const reopened = feed.verify(Date.now());
			if (!reopened) return read();
			apply(reopened);
			if (watcher) {
				void watcher.close();
				watcher = null;
				startWatching();
			}
		}, VERIFY_FILE_MS);
		return () => {
			isClosed = true;
			clearTimeout(timer);
			clearTimeout(trailing);
			unsubscribe?.();
			clearInterval(verifier);
			void watcher?.close();
		};
	}, [source, dispatch]);
	return {refresh: useCallback(() => flushRef.current(), [])};
}

/** Watches the ledger's files and the spool folder: any change schedules a read. */
function watchLedger(watch: typeof chokidarWatch, source: FeedSource, paths: readonly string[], schedule: () => void): FSWatcher {
	const watcher = watch([...paths], {ignoreInitial: true, depth: 0});
	// Raw events, not chokidar's filtered `change`: chokidar drops a change whose stat looks
	// unchanged (atime/mtime heuristics), and a WAL append can look like that; a raw inotify event
	// for the database, its WAL or the spool never misses one.
	const names = new Set(source.ledgerFiles.map(file => basename(file)));
	watcher.on('raw', (_event, path) => {
		if (names.has(basename(path))) schedule();
	});
	watcher.on('all', (_event, path) => {
		if (source.spoolDir && source.onSpool && path.startsWith(source.spoolDir)) source.onSpool();
		schedule();
	});
	// chokidar sets its watches asynchronously: a commit made between the first read and the
	// watches being in place raises no event, so read once more when they are.
	watcher.on('ready', schedule);
	return watcher;
}
