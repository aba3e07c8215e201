import type {Notice} from './state.ts';

/**
 * Notices from beside the board rather than from its keys (the OTLP receiver `board --otel-port`
 * runs, docs/board.md): they go to the board's notice line. One posted before the board listens
 * (while it draws its first frame) waits for it; only the newest waits, as the line shows one.
 */
export type NoticeSource = {subscribe(listener: (notice: Notice) => void): () => void};

export type NoticeChannel = NoticeSource & {post(notice: Notice): void};

export function createNoticeChannel(): NoticeChannel {
	const listeners = new Set<(notice: Notice) => void>();
	let waiting: Notice | null = null;
	return {
		post(notice) {
			if (listeners.size === 0) waiting = notice;
			for (const listener of listeners) listener(notice);
		},
		subscribe(listener) {
			listeners.add(listener);
			if (waiting !== null) {
				const notice = waiting;
				waiting = null;
				listener(notice);
			}
			return () => void listeners.delete(listener);
		},
	};
}

/** Both sources' notices on one line: the board takes one source (a receiver's, and the board's own). */
export function mergeNoticeSources(first: NoticeSource, second: NoticeSource): NoticeSource {
	return {
		subscribe(listener) {
			const stops = [first.subscribe(listener), second.subscribe(listener)];
			return () => {
				for (const stop of stops) stop();
			};
		},
	};
}
