import {assertNever} from './assert-never.ts';

/**
 * The stored statuses: facts a producer wrote, never derived. `vanished` is an untracked process
 * that went away (how it ended is unknown: never `done`); `merged` is an untracked row whose
 * process a wrapper or hook then registered (the same work: shown and counted once, as that task).
 */
export const STATUSES = [
	'registered',
	'running',
	'done',
	'failed',
	'stopped',
	'lost',
	'untracked',
	'vanished',
	'merged',
] as const;
export type Status = (typeof STATUSES)[number];

/** The statuses a task is listed and counted under: a merged row is listed as the task it became. */
export const LISTED_STATUSES = STATUSES.filter((status): status is Exclude<Status, 'merged'> => status !== 'merged');
export type ListedStatus = (typeof LISTED_STATUSES)[number];

/** Whether a task is listed (board lanes, snapshot tasks and counts): every one but a merged row. */
export function isListed(task: {readonly status: Status}): boolean {
	return task.status !== 'merged';
}

/** Health is derived at read time, only for statuses that can go quiet. */
export type Health = 'active' | 'stalled';

/** Default stall threshold (docs/config.md, `stallSeconds`). */
export const DEFAULT_STALL_SECONDS = 600;

/** Statuses after which a task no longer runs. */
export function isEnded(status: Status): boolean {
	switch (status) {
		case 'done':
		case 'failed':
		case 'stopped':
		case 'lost':
		case 'vanished':
		case 'merged':
			return true;
		case 'registered':
		case 'running':
		case 'untracked':
			return false;
		default:
			return assertNever(status);
	}
}

/** Whether a task in this status has a health at all. */
export function hasHealth(status: Status): boolean {
	return status === 'running' || status === 'untracked';
}

/**
 * Derives health from status and the agent's last sign of life (`lastSeenAt`: its output, a hook,
 * its transcript; never the wrapper's heartbeat); `null` where health does not apply.
 */
export function deriveHealth(
	status: Status,
	lastSeenAt: number,
	now: number,
	stallSeconds = DEFAULT_STALL_SECONDS,
	isWaitingForPerson = false,
): Health | null {
	if (!hasHealth(status)) return null;
	// A task waiting for a person's answer is silent because of us, not stuck: never stalled (docs/board.md).
	if (isWaitingForPerson) return 'active';
	return now - lastSeenAt > stallSeconds * 1000 ? 'stalled' : 'active';
}
