import {existsSync, watch, type FSWatcher} from 'node:fs';
import {dirname} from 'node:path';
import type {Ledger} from '../ledger/open-ledger.ts';
import {catchUpTranscripts, liveTranscripts, type FollowedTranscript} from '../ledger/transcript-catch-up.ts';
import {projectsRootOf} from '../ledger/transcript-tokens.ts';

/** A burst of writes (one answer is several lines) is read once, this long after its first write. */
const SETTLE_MS = 20;
/** One more read after the last write of a burst: a write can land between a read and the next event. */
const TRAILING_MS = 200;
/**
 * How often the followed set is looked at again: another process's fold (a board, a hook's
 * reader) may have given a new session its transcript since the last catch-up, and a reconciler's
 * passes are seconds apart.
 */
const REFRESH_MS = 1000;

/** The transcripts of live sessions, watched: their tokens are recorded as the agent writes them. */
export type TranscriptFollow = {
	/** Reads every followed transcript now, and starts watching those new since the last look. */
	catchUp(): number;
	close(): void;
};

/**
 * Follows the transcripts of live Claude sessions (every one the ledger has a cursor for whose task
 * has not ended, or only `taskIds`'s): a watch on each transcript's folder reads what was appended
 * within SETTLE_MS of its write, so an answer's tokens land within a second even while the session
 * sits idle at its prompt and no hook event comes. `catchUp` (called at each fold and before each
 * budget decision) reads them all and picks up sessions that started since; so does a look every
 * REFRESH_MS, for sessions another process's fold registered between passes. `onRecorded` is called
 * after a watched read recorded tokens. Never throws: a folder that cannot be watched is read at
 * the next catch-up.
 */
export function followTranscripts(
	ledger: Ledger,
	options: {readonly taskIds?: readonly string[] | (() => readonly string[]); readonly onRecorded?: () => void} = {},
): TranscriptFollow {
	const watchers = new Map<string, FSWatcher>();
	const byFolder = new Map<string, FollowedTranscript[]>();
	const timers = new Set<NodeJS.Timeout>();
	let isClosed = false;
	const read = (folder: string): void => {
		if (isClosed) return;
		const transcripts = byFolder.get(folder) ?? [];
		if (catchUpTranscripts(ledger, {transcripts}) > 0) options.onRecorded?.();
	};
	const later = (folder: string, ms: number): void => {
		const timer = setTimeout(() => {
			timers.delete(timer);
			read(folder);
		}, ms);
		timer.unref();
		timers.add(timer);
	};
	/** A transcript's folder, or (before Claude made it) the nearest folder above it that exists. */
	const watchedFor = (folder: string): string | null => {
		const root = dirname(projectsRootOf(`${folder}/`) ?? folder);
		for (let at = folder; at.startsWith(root) && at !== dirname(at); at = dirname(at)) if (existsSync(at)) return at;
		return null;
	};
	const watchFolder = (folder: string): void => {
		const watched = watchedFor(folder);
		if (watched === null || watchers.has(watched)) return;
		// A folder above: when the transcript's own folder appears, the next look watches it.
		const onChange = watched === folder ? () => undefined : refresh;
		try {
			const watcher = watch(watched, () => {
				onChange();
				later(folder, SETTLE_MS);
				later(folder, TRAILING_MS);
			});
			watcher.on('error', () => {
				watcher.close();
				watchers.delete(watched);
			});
			watcher.unref();
			watchers.set(watched, watcher);
			// What was written before the watch began is read now, not at the next write.
			later(folder, SETTLE_MS);
		} catch {
			// Too many watches, or the folder went: the next catch-up reads it anyway.
		}
	};
	function refresh(): void {
		let live: FollowedTranscript[];
		try {
			live = liveTranscripts(ledger, Date.now(), typeof options.taskIds === 'function' ? options.taskIds() : options.taskIds);
		} catch {
			return;
		}
		byFolder.clear();
		for (const transcript of live) {
			const folder = dirname(transcript.path);
			byFolder.set(folder, [...(byFolder.get(folder) ?? []), transcript]);
		}
		const wanted = new Set([...byFolder.keys()].map(watchedFor));
		for (const [folder, watcher] of watchers) {
			if (wanted.has(folder)) continue;
			watcher.close();
			watchers.delete(folder);
		}
		for (const folder of byFolder.keys()) watchFolder(folder);
	}
	// Watched from the start, not from the first catch-up: a reconciler's first pass, which runs
	// before its first catch-up, can take a second on a loaded machine, and an answer written meanwhile
	// must find its watch there when the pass gives the event loop back.
	refresh();
	const refreshing = setInterval(refresh, REFRESH_MS);
	refreshing.unref();
	return {
		catchUp() {
			if (isClosed) return 0;
			refresh();
			return catchUpTranscripts(ledger, {transcripts: [...byFolder.values()].flat()});
		},
		close() {
			isClosed = true;
			clearInterval(refreshing);
			for (const timer of timers) clearTimeout(timer);
			for (const watcher of watchers.values()) watcher.close();
			watchers.clear();
		},
	};
}
