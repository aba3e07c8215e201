/**
 * Event types the projection understands. Types are dotted and past tense; any other type is kept
 * on the timeline and only refreshes the task's last-seen time.
 */
export const EventType = {
	registered: 'task.registered',
	started: 'task.started',
	heartbeat: 'task.heartbeat',
	pidReported: 'task.pid_reported',
	progressed: 'task.progressed',
	planItem: 'task.plan_item',
	tokensReported: 'task.tokens_reported',
	exited: 'task.exited',
	failed: 'task.failed',
	stopped: 'task.stopped',
	/** `controlroom stop` asked for the task to stop; `task.stopped` follows once its processes are gone. */
	stopRequested: 'task.stop_requested',
	lost: 'task.lost',
	ended: 'task.ended',
	discovered: 'task.discovered',
	agentEvent: 'agent.event',
	needRaised: 'need.raised',
	acknowledged: 'queue.acknowledged',
	claimTaken: 'claim.taken',
	claimProgressed: 'claim.progressed',
	claimHandedIn: 'claim.handed_in',
	claimPassedBack: 'claim.passed_back',
} as const;

/** A JSON object as stored in an event's data column. */
export type EventData = Readonly<Record<string, unknown>>;

/** An event about to be appended: what a producer says, before the ledger numbers it. */
export type NewEvent = {
	readonly taskId: string;
	readonly type: string;
	/** Milliseconds since the epoch, as the producer saw it. */
	readonly at: number;
	/** Who wrote it: wrapper, claude, codex, reconciler, board, cli. */
	readonly source: string;
	readonly data: EventData;
	/** Same key, same event: a second append with it adds nothing. */
	readonly dedupKey?: string | null;
};

/** An event as stored: numbered by a monotonic sequence readers can tail by. */
export type LedgerEvent = NewEvent & {readonly seq: number};

/** Reads a field as a finite number, or null. */
export function numberField(data: EventData, key: string): number | null {
	const value = data[key];
	return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Reads a field as a string, or null. */
export function stringField(data: EventData, key: string): string | null {
	const value = data[key];
	return typeof value === 'string' ? value : null;
}
