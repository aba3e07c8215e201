import {formatKnown} from './format.ts';
import type {BoardLane, SnapshotTask} from './snapshot.ts';

// The words the board and the snapshot text share, so a task reads the same in both.

/** Lane titles as the board and `controlroom snapshot` write them. */
export const LANE_TITLES: Readonly<Record<BoardLane, string>> = {
	running: 'RUNNING',
	stalled: 'STALLED',
	lost: 'LOST',
	untracked: 'UNTRACKED',
	ended: 'RECENTLY ENDED',
};

/** A lane's count in a header line (the board's at 100 columns and more, and the snapshot's). */
export const LANE_WORDS: Readonly<Record<BoardLane, string>> = {
	running: 'running',
	stalled: 'stalled',
	lost: 'lost',
	untracked: 'untracked',
	ended: 'ended',
};

/**
 * The status cell: status with health, or how it ended. A session that ended while its helpers
 * still worked (stopped or lost) says so before how it ended (docs/tree-and-cost.md, "Helpers in the background").
 */
export function statusLabel(
	task: Pick<SnapshotTask, 'status' | 'health' | 'exitCode' | 'signal'> & Partial<Pick<SnapshotTask, 'helpersUnfinished'>>,
): string {
	if (task.health) return `${task.status}/${task.health}`;
	const isCutShort = task.status === 'stopped' || task.status === 'lost';
	if (isCutShort && (task.helpersUnfinished ?? 0) > 0) return `${task.status} (work unfinished)`;
	if (task.status === 'failed') return `failed (exit ${formatKnown(task.exitCode)})`;
	if (task.status === 'stopped') return `stopped (${task.signal ?? `exit ${formatKnown(task.exitCode)}`})`;
	if (task.status === 'vanished') return 'vanished (outcome unknown)';
	return task.status;
}
