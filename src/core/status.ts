import {assertNever} from './assert-never.ts';

/** The seven stored statuses: facts a producer wrote, never derived. */
export const STATUSES = ['registered', 'running', 'done', 'failed', 'stopped', 'lost', 'untracked'] as const;
export type Status = (typeof STATUSES)[number];

/** Health is derived at read time, only for statuses that can go quiet. */
export type Health = 'active' | 'stalled';

/** Default stall threshold (docs/snapshot.md, "Snapshot JSON, version 1": `tasks[].health`). */
export const DEFAULT_STALL_SECONDS = 600;

/** Statuses after which a task no longer runs. */
export function isEnded(status: Status): boolean {
	switch (status) {
		case 'done':
		case 'failed':
		case 'stopped':
		case 'lost':
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

/** Derives health from status and idle time; `null` where health does not apply. */
export function deriveHealth(
	status: Status,
	lastEventAt: number,
	now: number,
	stallSeconds = DEFAULT_STALL_SECONDS,
): Health | null {
	if (!hasHealth(status)) return null;
	return now - lastEventAt > stallSeconds * 1000 ? 'stalled' : 'active';
}
