import type {PastMoment} from '../core/board/past-moment.ts';
import {createBoardFeed, type PastBoardFeed} from './board-feed.ts';
import type {Ledger} from './open-ledger.ts';
import {readerAsOf, type Moment} from './reader-as-of.ts';
import type {LedgerReader} from './reader.ts';

/**
 * The board's feed (createBoardFeed) on `readerAsOf(ledger.reader, moment)`: the same fold as
 * `snapshot --at`, each moment folded once, when it is moved to. Nothing here writes: no
 * acknowledgement, no task marked seen, and a past moment's processes are taken as alive then, as
 * the ledger leaves them (snapshot --at does the same). At a past moment nothing new is read; at
 * now the board follows the ledger with the live board's reads, from the newest event on.
 */
export function createPastBoardFeed(
	ledger: Ledger,
	first: Moment,
	options: {readonly endedWindowMs?: number} = {},
): PastBoardFeed {
	let moment: PastMoment = {...first, isNow: false};
	// The moment's reads, folded when it is moved to; null at now, where the ledger's own are read.
	let folded: LedgerReader | null = readerAsOf(ledger.reader, moment);
	const reader = (): LedgerReader => folded ?? ledger.reader;
	// Where following starts once at now: the board read every event up to it then.
	let followFrom = 0;
	const window = options.endedWindowMs === undefined ? {} : {endedWindowMs: options.endedWindowMs};
	const past = createBoardFeed(ledger, {...window, isApproverAlive: () => true, reader});
	const live = createBoardFeed(ledger, window);
	const refuseAcknowledge = (taskId: string): string =>
		`read-only, a past moment (board --at): k acknowledges nothing; ${taskId} stays in the queue`;
	return {
		index: {
			lastSeq: () => ledger.reader.lastSeq(),
			arrivalOf: seq => ledger.reader.arrivalOf(seq),
			seqArrivedBy: at => ledger.reader.seqArrivedBy(at),
		},
		moment: () => moment,
		now: () => (moment.isNow ? Date.now() : moment.now),
		moveTo(next, openTaskId) {
			moment = next;
			if (next.isNow) {
				folded = null;
				const batch = live.load(Date.now());
				followFrom = batch.lastSeq;
				return openTaskId === null ? batch : {...batch, timelineEvents: live.eventsOf(openTaskId)};
			}
			folded = readerAsOf(ledger.reader, next);
			const batch = past.load(next.now);
			return openTaskId === null ? batch : {...batch, timelineEvents: folded.eventsOf(openTaskId)};
		},
		load: () => (moment.isNow ? live.load(Date.now()) : past.load(moment.now)),
		poll: (lastSeq, now, openTaskId) => (moment.isNow ? live.poll(Math.max(lastSeq, followFrom), now, openTaskId) : null),
		verify: now => (moment.isNow ? live.verify(now) : null),
		eventsOf: taskId => reader().eventsOf(taskId),
		acknowledge: taskId => refuseAcknowledge(taskId),
	};
}
