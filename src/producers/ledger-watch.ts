import {watch} from 'chokidar';
import {basename, dirname} from 'node:path';

/**
 * Calls `onChange` when the ledger file or its WAL is written (every commit writes the WAL), so a
 * sync ships within moments of an event instead of on its next timer. Raw inotify events, as the
 * board's feed uses: chokidar's filtered `change` can miss a WAL append whose stat looks unchanged.
 */
export function watchLedger(file: string, onChange: () => void): () => Promise<void> {
	const names = new Set([basename(file), `${basename(file)}-wal`]);
	const watcher = watch(dirname(file), {ignoreInitial: true, depth: 0});
	watcher.on('raw', (_event, path) => {
		if (names.has(basename(path))) onChange();
	});
	return () => watcher.close();
}
