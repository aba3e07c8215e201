import type {Task} from './task.ts';

/** How an ended claim ended, as every view says it (work, the board's status cell, JSON). */
export type ClaimEnding = 'handed in' | 'accepted' | 'passed back' | 'rejected';

/**
 * An ended claim's ending, from its projection: handed in (waiting for its acceptor), accepted (a
 * person accepted the hand-in), passed back (by its holder), rejected (a person sent the hand-in
 * back: free to take again). Null for a task that is no ended claim.
 */
export function claimEnding(task: Pick<Task, 'status' | 'endReason'>): ClaimEnding | null {
	const reason = task.endReason ?? '';
	if (task.status === 'done' && reason.startsWith('accepted by')) return 'accepted';
	if (task.status === 'done' && reason.startsWith('handed in')) return 'handed in';
	if (task.status === 'stopped' && reason.startsWith('passed back: sent back by')) return 'rejected';
	if (task.status === 'stopped' && reason.startsWith('passed back')) return 'passed back';
	return null;
}
