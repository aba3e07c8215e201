import {DEFAULT_ENDED_WINDOW_MS} from '../core/board/selectors.ts';
import type {LedgerEvent} from '../core/events.ts';
import type {BoardTask, Notice, PendingAction} from '../core/board/state.ts';
import type {HumanQueue} from '../core/human-queue.ts';
import type {Task} from '../core/task.ts';
import type {Ledger} from './open-ledger.ts';
import {acknowledgeEntry, loadHumanQueue} from './queue.ts';

/** What one read of the ledger gives the board. */
export type FeedBatch = {
	readonly tasks: readonly BoardTask[];
	/** Every fleet request not answered yet (a fleet feed only). */
	readonly pending?: readonly PendingAction[];
	/** Something the person should know about the feed itself (a fleet server out of reach, and back). */
	readonly notice?: Notice;
	readonly queue: HumanQueue;
	readonly lastSeq: number;
	/** True for the first read: the tasks replace what the board held. */
	readonly isFull: boolean;
	/** More events wait after this page: read again at the next frame. */
	readonly hasMore?: boolean;
	/** The open task's events, reloaded when that task changed. */
	readonly timelineEvents?: readonly LedgerEvent[];
};

/**
 * The board's reads and writes of the ledger. Synchronous, so the first frame is drawn from the
 * first read; a fleet feed (src/ledger/fleet/fleet-feed.ts) answers from what it has fetched and
 * announces more through `subscribe`. Task ids here are board keys (host and id on a fleet).
 */
export type BoardFeed = {
	/** Everything the board shows at start: tasks not ended or ended within the window, the queue. */
	load(now: number): FeedBatch;
	/** Events after `lastSeq`: the tasks they touched, reloaded, and the queue; null when nothing is new. */
	poll(lastSeq: number, now: number, openTaskId?: string | null): FeedBatch | null;
	/** One task's events, for the drill-down. */
	eventsOf(taskId: string): LedgerEvent[];
	/** Records that a person saw the queue entry raised at `signalAt`; returns what to tell them, when it is not plain. */
	acknowledge(taskId: string, signalAt: number, now: number): string | void;
	/** For a feed with no files to watch (a fleet): calls `onChange` when there is something to read; returns how to stop. */
	subscribe?(onChange: () => void): () => void;
};

/** At most this many events are read per poll (one a frame), so a burst never blocks the board for long. */
const PAGE = 5000;

/** Reads the ledger for the board: `seq > last`, then only the tasks those events touched. */
export function createBoardFeed(ledger: Ledger, options: {readonly endedWindowMs?: number} = {}): BoardFeed {
	const {reader} = ledger;
	const windowMs = options.endedWindowMs ?? DEFAULT_ENDED_WINDOW_MS;
	return {
		load(now) {
			const lastSeq = reader.lastSeq();
			return {tasks: reader.tasksForView(now - windowMs), queue: loadHumanQueue(reader, now), lastSeq, isFull: true};
		},
		poll(lastSeq, now, openTaskId = null) {
			const events = reader.eventsSince(lastSeq, PAGE);
			if (events.length === 0) return null;
			const changed = new Set(events.map(event => event.taskId));
			const seq = events.at(-1)?.seq ?? lastSeq;
			// A task that ended before the window cannot be on screen: importing old history must not
			// fill the board's memory with it.
			const endedSince = now - windowMs;
			const tasks: Task[] = [];
			for (const id of changed) {
				const task = reader.task(id);
				if (task && (task.endedAt === null || task.endedAt >= endedSince)) tasks.push(task);
			}
			const isOpenChanged = openTaskId !== null && changed.has(openTaskId);
			return {
				tasks,
				queue: loadHumanQueue(reader, now),
				lastSeq: seq,
				isFull: false,
				hasMore: events.length === PAGE,
				...(isOpenChanged ? {timelineEvents: reader.eventsOf(openTaskId)} : {}),
			};
		},
		eventsOf: taskId => reader.eventsOf(taskId),
		acknowledge(taskId, signalAt, now) {
			acknowledgeEntry(ledger, taskId, signalAt, now, 'board');
		},
	};
}
