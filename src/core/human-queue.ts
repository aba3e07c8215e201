/** The lanes of the human queue (PRODUCT.md §5.2). */
export const QUEUE_LANES = ['failed', 'reviews', 'needs', 'waiting'] as const;
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
};

export type QueueItem = {readonly taskId: string; readonly reason: string; readonly at: number; readonly seq: number};
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
 * Computes the queue: newest signal per task, minus those acknowledged after it and those a later
 * success made moot; each lane capped at five with a count of the rest.
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
		return !supersededBySuccess(signal, input);
	});
	const lanes = QUEUE_LANES.map(name => {
		const entries = live.filter(signal => signal.lane === name).sort((a, b) => b.at - a.at || b.seq - a.seq);
		return {
			name,
			total: entries.length,
			items: entries.slice(0, QUEUE_LANE_LIMIT).map(({taskId, reason, at, seq}) => ({taskId, reason, at, seq})),
		};
	});
	return {lanes, total: live.length};
}
