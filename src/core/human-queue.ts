import {disagreementReason, type DisagreementRecord} from './disagreements.ts';
import {effectState, stagedEffects, type ApproverCheck, type OrderRecord} from './effects/fold.ts';
import type {EventOfType} from './events.ts';
import type {ReviewSignal} from './review/reviews.ts';
import {MISSING_INFO_KIND} from './stats/need-kinds.ts';
import type {Task} from './task.ts';

/** The lanes of the human queue (docs/board.md, "The human queue"). */
export const QUEUE_LANES = ['decisions', 'failed', 'reviews', 'disagreements', 'needs', 'waiting'] as const;
export type QueueLane = (typeof QUEUE_LANES)[number];

/** At most this many entries a lane; the rest are counted. */
export const QUEUE_LANE_LIMIT = 5;
/** Failed tasks stay in the queue this long. */
export const FAILED_WINDOW_MS = 2 * 60 * 60 * 1000;

/** Something that may need a person, from any of the five sources. */
export type QueueSignal = {
	readonly taskId: string;
	readonly lane: QueueLane;
	readonly reason: string;
	readonly at: number;
	/** Ledger sequence of the signal, so an entry can be acknowledged precisely. */
	readonly seq: number;
	/** The task an entry keyed otherwise is about (a question's agent task): what Enter opens. */
	readonly about?: string;
};

export type QueueItem = {
	readonly taskId: string;
	readonly reason: string;
	readonly at: number;
	readonly seq: number;
	readonly about?: string;
	/** The task's host, on a fleet ledger (docs/fleet.md); absent on a local one. */
	readonly host?: string;
};
export type QueueLaneView = {readonly name: QueueLane; readonly total: number; readonly items: readonly QueueItem[]};
export type HumanQueue = {readonly lanes: readonly QueueLaneView[]; readonly total: number};

/** A run that ended well, which makes earlier failures in its directory or of its title moot. */
export type Success = {
	readonly taskId: string;
	readonly cwd: string | null;
	readonly title: string | null;
	readonly endedAt: number;
};

export type QueueInput = {
	readonly signals: readonly QueueSignal[];
	/** Latest acknowledgement time per task. */
	readonly acknowledgedAt: ReadonlyMap<string, number>;
	readonly successes: readonly Success[];
	/** Directory and title of each task that has signals, for the success rule. */
	readonly taskKeys: ReadonlyMap<string, {readonly cwd: string | null; readonly title: string | null}>;
	/** Latest time a person acted on each task (sent it back, accepted it): what came before is answered. */
	readonly closedAt?: ReadonlyMap<string, number>;
	/** Entries a lane (five unless said: `ack` looks past the five shown). */
	readonly limit?: number;
};

/**
 * A later success answers a failure, not a question: a need or a hand-in waiting for its acceptor
 * stays until someone acts on it.
 */
function supersededBySuccess(signal: QueueSignal, input: QueueInput): boolean {
	if (signal.lane !== 'failed') return false;
	const key = input.taskKeys.get(signal.taskId);
	if (!key) return false;
	return input.successes.some(
		success =>
			success.taskId !== signal.taskId &&
			success.endedAt > signal.at &&
			((key.cwd !== null && success.cwd === key.cwd) || (key.title !== null && success.title === key.title)),
	);
}

/**
 * Computes the queue: newest signal per task, minus those acknowledged after it, those a person
 * acted on after it (sent back, accepted) and those a later success made moot; each lane oldest
 * waiting first, capped at five with a count of the rest.
 */
export function computeHumanQueue(input: QueueInput): HumanQueue {
	const newest = new Map<string, QueueSignal>();
	for (const signal of input.signals) {
		const previous = newest.get(signal.taskId);
		if (!previous || signal.at > previous.at || (signal.at === previous.at && signal.seq > previous.seq)) {
			newest.set(signal.taskId, signal);
		}
	}
	const live = [...newest.values()].filter(signal => {
		const acknowledged = input.acknowledgedAt.get(signal.taskId);
		if (acknowledged !== undefined && acknowledged >= signal.at) return false;
		const closed = input.closedAt?.get(signal.taskId);
		if (closed !== undefined && closed >= signal.at) return false;
		return !supersededBySuccess(signal, input);
	});
	const lanes = QUEUE_LANES.map(name => {
		// Oldest-waiting first: what has waited longest is what the person should see first.
		const entries = live.filter(signal => signal.lane === name).sort((a, b) => a.at - b.at || a.seq - b.seq);
		return {
			name,
			total: entries.length,
			items: entries
				.slice(0, input.limit ?? QUEUE_LANE_LIMIT)
				.map(({taskId, reason, at, seq, about}) => ({taskId, reason, at, seq, ...(about === undefined ? {} : {about})})),
		};
	});
	return {lanes, total: live.length};
}

/** Sources whose need is answered by the session's own later activity (or its end). */
export const SESSION_ANSWERED_SOURCES = ['claude', 'codex'] as const;
const AGENT_SOURCES: ReadonlySet<string> = new Set(SESSION_ANSWERED_SOURCES);

function failedReason(task: Task): string {
	if (task.error) return task.error;
	if (task.exitCode !== null) return `exit ${task.exitCode}`;
	return 'failed';
}

/** What the signals are made from, as the ledger holds it. */
export type SignalRows = {
	readonly now: number;
	/** At least every task that failed, or ended done with exit 0, within the failed window (a store may give more). */
	readonly recentTasks: readonly Task[];
	/** The `need.raised` events (every one, or at least every one still current: see `LedgerReader.needsMaybeCurrent`). */
	readonly needs: readonly EventOfType<'need.raised'>[];
	/** The tasks the needs (and recent tasks) belong to, by id; a need may outlive its task's row. */
	readonly tasks: ReadonlyMap<string, Task>;
	/** Reviews that need a person (src/core/review/reviews.ts). */
	readonly reviews?: readonly ReviewSignal[];
	/** Disagreements a plan review or a mediation could not settle (src/core/disagreements.ts). */
	readonly disagreements?: readonly DisagreementRecord[];
};

/**
 * The queue's signals: each task that failed within the window, each review that needs a person, each disagreement left for a person,
 * and each need still current. An agent's own need is current only until that session shows
 * activity after it or ends (the person answered it); a need raised by hand stays until
 * acknowledged; a hand-in waits until accepted, sent back or acknowledged.
 */
export function queueSignals(rows: SignalRows): QueueSignal[] {
	const signals: QueueSignal[] = [];
	for (const task of rows.recentTasks) {
		if (task.status === 'failed' && task.endedAt !== null && task.endedAt >= rows.now - FAILED_WINDOW_MS) {
			signals.push({taskId: task.id, lane: 'failed', reason: failedReason(task), at: task.endedAt, seq: task.lastSeq});
		}
	}
	for (const review of rows.reviews ?? []) signals.push({...review, lane: 'reviews'});
	for (const record of rows.disagreements ?? []) {
		signals.push({
			taskId: record.taskId,
			lane: 'disagreements',
			reason: disagreementReason(record),
			at: record.at,
			seq: record.seq,
		});
	}
	for (const event of rows.needs) {
		const task = rows.tasks.get(event.taskId);
		const isAnswered = task !== undefined && (task.lastEventAt > event.at || task.endedAt !== null);
		if (AGENT_SOURCES.has(event.source) && isAnswered) continue;
		signals.push({
			taskId: event.taskId,
			lane: event.data.lane === 'waiting' ? 'waiting' : 'needs',
			// An agent's need names who raised it: the person answers that worker, not any.
			reason:
				(event.data.kind === 'agent' || event.data.kind === MISSING_INFO_KIND) && event.data.actor
					? `${event.data.actor} asks: ${event.data.message ?? 'needs you'}`
					: (event.data.message ?? 'needs you'),
			at: event.at,
			seq: event.seq,
		});
	}
	return signals;
}

/**
 * Work orders waiting on their owner (the waiting lane): held effects to approve, and effects whose
 * outcome is unknown (started, never finished: a person checks the world by hand). One signal an
 * order, as of its newest such effect, so a newly held effect brings an acknowledged order back.
 */
export function orderSignals(orders: Iterable<OrderRecord>, now: number, isApproverAlive?: ApproverCheck): QueueSignal[] {
	const signals: QueueSignal[] = [];
	for (const order of orders) {
		const staged = stagedEffects(order);
		const held = staged.filter(effect => effectState(effect, now, isApproverAlive) === 'held');
		const unknown = staged.filter(effect => effectState(effect, now, isApproverAlive) === 'outcome unknown');
		if (held.length === 0 && unknown.length === 0) continue;
		const parts = [
			...(unknown.length > 0 ? [`outcome unknown: ${unknown.map(effect => effect.id).join(', ')} (check by hand)`] : []),
			...(held.length > 0 ? [`${held.length} held effect${held.length === 1 ? '' : 's'} to approve`] : []),
		];
		const times = [...held.map(effect => effect.calledAt), ...unknown.map(effect => effect.unknownAt ?? effect.startedAt ?? 0)];
		signals.push({
			taskId: order.id,
			lane: 'waiting',
			reason: `${parts.join('; ')}${order.worker ? ` (${order.worker})` : ''}`,
			at: Math.max(...times),
			seq: order.lastSeq,
		});
	}
	return signals;
}

/** How far back a success may answer a signal: the oldest signal's time (now when there is none). */
export function earliestSignalAt(signals: readonly QueueSignal[], now: number): number {
	return signals.reduce((min, signal) => Math.min(min, signal.at), now);
}

/** What the queue is computed from once the signals are known. */
export type QueueRows = {
	readonly signals: readonly QueueSignal[];
	/** Tasks by id, for the directory and title of each signal's task. */
	readonly tasks: ReadonlyMap<string, Task>;
	/** Every `queue.acknowledged` event. */
	readonly acknowledgements: readonly EventOfType<'queue.acknowledged'>[];
	/**
	 * Where the answering successes are: at least every task ended since the oldest failure signal
	 * (the recent tasks are: a failure is a signal only within the failed window).
	 */
	readonly endedSinceEarliest: readonly Pick<Task, 'id' | 'status' | 'exitCode' | 'endedAt' | 'cwd' | 'title'>[];
	/** Every `work.sent_back` and `work.accepted` event: a person acted on the task. */
	readonly closers?: readonly EventOfType<'work.sent_back' | 'work.accepted'>[];
	readonly limit?: number;
};

/**
 * The queue from its rows: an acknowledgement covers signals up to the time it names (or its own
 * time), a send-back or an acceptance covers the task's signals up to its time, and a run that
 * exited 0 answers earlier failures in its directory or of its title.
 */
export function humanQueueOf(rows: QueueRows): HumanQueue {
	const acknowledgedAt = new Map<string, number>();
	for (const event of rows.acknowledgements) {
		const at = event.data.signalAt ?? event.at;
		acknowledgedAt.set(event.taskId, Math.max(acknowledgedAt.get(event.taskId) ?? 0, at));
	}
	const successes = rows.endedSinceEarliest
		.filter(task => task.status === 'done' && task.exitCode === 0 && task.endedAt !== null)
		.map(task => ({taskId: task.id, cwd: task.cwd, title: task.title, endedAt: task.endedAt ?? 0}));
	const taskKeys = new Map(
		rows.signals.map(signal => {
			const task = rows.tasks.get(signal.taskId);
			return [signal.taskId, {cwd: task?.cwd ?? null, title: task?.title ?? null}] as const;
		}),
	);
	const closedAt = new Map<string, number>();
	for (const event of rows.closers ?? []) closedAt.set(event.taskId, Math.max(closedAt.get(event.taskId) ?? 0, event.at));
	return computeHumanQueue({
		signals: rows.signals,
		acknowledgedAt,
		successes,
		taskKeys,
		closedAt,
		...(rows.limit === undefined ? {} : {limit: rows.limit}),
	});
}

/**
 * One queue for several hosts (a fleet ledger): each host's queue is computed on its own (its
 * acknowledgements and successes answer only its own signals), then the lanes are merged oldest
 * waiting first, as one host's are, still five a lane, with the totals added up. Each host's five
 * oldest are enough to know the fleet's five oldest.
 */
export function mergeHumanQueues(queues: readonly {readonly host: string; readonly queue: HumanQueue}[]): HumanQueue {
	const lanes = QUEUE_LANES.map(name => {
		const parts = queues.map(({host, queue}) => ({host, lane: queue.lanes.find(lane => lane.name === name)}));
		const items = parts
			.flatMap(({host, lane}) => (lane?.items ?? []).map(item => ({...item, host})))
			.sort((a, b) => a.at - b.at || a.host.localeCompare(b.host) || a.seq - b.seq);
		return {name, total: parts.reduce((sum, {lane}) => sum + (lane?.total ?? 0), 0), items: items.slice(0, QUEUE_LANE_LIMIT)};
	});
	return {lanes, total: queues.reduce((sum, {queue}) => sum + queue.total, 0)};
}
