import {foldStats, STATS_EVENT_TYPES, type Stats} from '../core/stats/measures.ts';
import type {BoardContract} from '../core/contract/intake.ts';
import type {OrdersSnapshot} from '../core/board/effects-view.ts';
import type {MomentIndex, PastMoment} from '../core/board/past-moment.ts';
import {DEFAULT_ENDED_WINDOW_MS} from '../core/board/selectors.ts';
import type {BoardTask, Notice, PendingAction} from '../core/board/state.ts';
import type {ApproverCheck} from '../core/effects/fold.ts';
import type {DecisionRecord} from '../core/decisions/fold.ts';
import type {LedgerEvent} from '../core/events.ts';
import {SESSION_ANSWERED_SOURCES, type HumanQueue} from '../core/human-queue.ts';
import {boardRound, type BoardRound} from '../core/read-port/board-round.ts';
import {coversRecent} from '../core/read-port/read-port.ts';
import type {VerdictRecord} from '../core/review/reviews.ts';
import type {Task} from '../core/task.ts';
import {droppedEvents} from './drop-markers.ts';
import {localReadPort} from './local-read-port.ts';
import {recordSeen} from './seen.ts';
import {spoolDir} from './paths.ts';
import type {Ledger, LedgerFileChange} from './open-ledger.ts';
import type {LedgerReader} from './reader.ts';

/** What one read of the ledger gives the board. */
export type FeedBatch = {
	readonly tasks: readonly BoardTask[];
	/** Every fleet request not answered yet (a fleet feed only). */
	readonly pending?: readonly PendingAction[];
	/** Something the person should know about the feed itself (a fleet server out of reach, and back). */
	readonly notice?: Notice;
	readonly queue: HumanQueue;
	/** The verdicts of each task's latest review within the window, newest first. */
	readonly verdicts: readonly VerdictRecord[];
	readonly lastSeq: number;
	/** True for the first read: the tasks replace what the board held. */
	readonly isFull: boolean;
	/** More events wait after this page: read again at the next frame. */
	readonly hasMore?: boolean;
	/** The open task's events, reloaded when that task changed. */
	readonly timelineEvents?: readonly LedgerEvent[];
	/** Work orders and their effects, reloaded when an order or effect event arrived. */
	readonly orders?: OrdersSnapshot;
	/** The questions a person can answer, oldest first (the Decisions panel). */
	readonly decisions?: readonly DecisionRecord[];
	/** Stored contracts still to act on (the Contracts panel). */
	readonly contracts?: readonly BoardContract[];
	/** The ledger file was deleted or replaced and has been reopened: this read is of the new file. */
	readonly ledgerChange?: LedgerFileChange;
	/** Events the hook could not record anywhere (the `hook.dropped` counter), when it is not 0. */
	readonly dropped?: number;
	/** The measures (docs/stats.md), read at the first read and again when an event they count arrived. */
	readonly stats?: Stats;
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
	/**
	 * Checks that the ledger file is still the one open (it may have been deleted or replaced under
	 * the board); when it is not, reopens it and returns a full read of the new file saying so.
	 */
	verify(now: number): FeedBatch | null;
	/** One task's events, for the drill-down. */
	eventsOf(taskId: string): LedgerEvent[];
	/** Records that a person saw the queue entry raised at `signalAt`; returns what to tell them, when it is not plain. */
	acknowledge(taskId: string, signalAt: number, now: number): string | void;
	/** For a feed with no files to watch (a fleet): calls `onChange` when there is something to read; returns how to stop. */
	subscribe?(onChange: () => void): () => void;
	/** Records that the board's person looked at a finished task; absent where the board marks nothing seen (a fleet). */
	markSeen?(taskId: string, now: number): void;
};

/** A board at a past moment's reads (`board --at`, made by src/ledger/past-board-feed.ts): the board's feed on the ledger as of the moment shown. */
export type PastBoardFeed = BoardFeed & {
	/** The moment shown. */
	moment(): PastMoment;
	/** The board's "now": the moment's time, or the clock once stepped to now. */
	now(): number;
	/** Shows `moment` from now on: the board's full read of it (and the open timeline's events, as of then). */
	moveTo(moment: PastMoment, openTaskId: string | null): FeedBatch;
	/** What stepping reads of the ledger (src/core/board/past-moment.ts). */
	readonly index: MomentIndex;
};

/** At most this many events are read per poll (one a frame), so a burst never blocks the board for long. */
const PAGE = 5000;

const STATS_TYPES: ReadonlySet<string> = new Set(STATS_EVENT_TYPES);

const isOrderType = (type: string): boolean => type.startsWith('order.') || type.startsWith('effect.');

/** Reads the ledger for the board: `seq > last`, then only the tasks those events touched. */
export function createBoardFeed(
	ledger: Ledger,
	options: {
		readonly endedWindowMs?: number;
		readonly isApproverAlive?: ApproverCheck;
		/**
		 * The board's `k`, through the gate that checks a person asks (src/gates/acknowledge.ts);
		 * without it the feed acknowledges nothing and says so.
		 */
		readonly acknowledge?: (taskId: string, signalAt: number, now: number) => string | void;
		/** The person the board marks finished tasks seen for (docs/tmux.md); without one it marks none. */
		readonly person?: string;
		/**
		 * The reads the board shows: a past moment's (readerAsOf, for `board --at`), or the ledger's own
		 * when absent. A moment's reads count no dropped hook events: that counter is the ledger's now.
		 */
		readonly reader?: () => LedgerReader;
	} = {},
): BoardFeed {
	const windowMs = options.endedWindowMs ?? DEFAULT_ENDED_WINDOW_MS;
	const isAlive = options.isApproverAlive;
	// The reads are taken from the ledger at each call: after a reopen they are the new file's.
	let generation = ledger.generation;
	// Counted in the ledger, and drop markers not yet folded (a full disk may keep the fold from running).
	const spool = spoolDir(ledger.path);
	const readerOf = options.reader ?? (() => ledger.reader);
	const dropped = (): {dropped?: number} => {
		if (options.reader) return {};
		const {counted, waiting} = droppedEvents(ledger, spool);
		return counted + waiting > 0 ? {dropped: counted + waiting} : {};
	};
	// One round of the queue, the Reviews panel and the work orders (src/core/read-port/board-round.ts);
	// which approvers still run is asked of the process table there, once a read, not at every frame.
	const round = (now: number, heldTasks?: readonly Task[]): BoardRound =>
		boardRound(
			localReadPort(readerOf()).queueRows({
				now,
				answeredBySession: SESSION_ANSWERED_SOURCES,
				...(heldTasks ? {heldTasks} : {}),
			}),
			{now, windowMs, isApproverAlive: isAlive, isFleet: false},
		);
	// The stats panel's figures: the same fold as controlroom stats, over the whole ledger.
	const statsAt = (now: number): Stats => foldStats(localReadPort(readerOf()).statsEvents(), null, now);
	const load = (now: number): FeedBatch => {
		generation = ledger.generation;
		const reader = readerOf();
		const lastSeq = reader.lastSeq();
		const tasks = reader.tasksForView(now - windowMs);
		// The board's tasks are the queue's recent tasks too when its window covers the failed window.
		const {queue, verdicts, orders, decisions, contracts} = round(now, coversRecent(now - windowMs, now) ? tasks : undefined);
		return {tasks, queue, verdicts, lastSeq, isFull: true, orders, decisions, contracts, stats: statsAt(now), ...dropped()};
	};
	const reloaded = (now: number): FeedBatch => {
		const change = ledger.lastChange;
		return {...load(now), ...(change ? {ledgerChange: change} : {})};
	};
	return {
		load,
		verify(now) {
			ledger.verifyFile();
			return ledger.generation !== generation ? reloaded(now) : null;
		},
		poll(lastSeq, now, openTaskId = null) {
			// Reopened (here, or by the reconciler pass sharing this ledger): read the new file from its start.
			if (ledger.generation !== generation) return reloaded(now);
			const reader = readerOf();
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
			const isOrderChanged = events.some(event => isOrderType(event.type));
			const isCounted = events.some(event => STATS_TYPES.has(event.type));
			const {queue, verdicts, orders, decisions, contracts} = round(now);
			return {
				tasks,
				queue,
				verdicts,
				decisions,
				contracts,
				lastSeq: seq,
				isFull: false,
				hasMore: events.length === PAGE,
				...dropped(),
				...(isOpenChanged ? {timelineEvents: reader.eventsOf(openTaskId)} : {}),
				...(isOrderChanged ? {orders} : {}),
				...(isCounted ? {stats: statsAt(now)} : {}),
			};
		},
		eventsOf: taskId => readerOf().eventsOf(taskId),
		acknowledge(taskId, signalAt, now) {
			if (!options.acknowledge) return `k: acknowledging is not wired on this board; ${taskId} stays in the queue`;
			return options.acknowledge(taskId, signalAt, now);
		},
		...(options.person === undefined ? {} : {markSeen: markSeenAs(ledger, options.person)}),
	};
}

/** The board's look at a finished task, for its person: the ledger's task.seen, written by the board. */
function markSeenAs(ledger: Ledger, person: string): (taskId: string, now: number) => void {
	return (taskId, now) => recordSeen(ledger, taskId, person, now, 'board');
}
