import {EventType} from '../../core/events.ts';
import {isSameChange, measureWorktree, type WorktreeChange} from '../worktree-change.ts';
import type {WrapperOptions} from './options.ts';
import type {TaskLog} from './record.ts';

/**
 * A `run --worktree` run's change, measured by its wrapper at each heartbeat and when the child
 * exits, and recorded (`task.worktree_changed`) only when it differs from the last: the board reads
 * it from the task and never calls git itself (docs/wrapper.md, "A worktree per run").
 */
export function worktreeWatch(options: Pick<WrapperOptions, 'worktree'>, log: TaskLog): {measure(): void} {
	const worktree = options.worktree ?? null;
	let last: WorktreeChange | null = null;
	return {
		measure() {
			if (worktree === null) return;
			const change = measureWorktree(worktree.path, worktree.base);
			if (change === null || isSameChange(change, last)) return;
			last = change;
			log.append(EventType.worktreeChanged, {
				files: change.files,
				insertions: change.added,
				deletions: change.removed,
				stat: change.stat.map(file => ({...file})),
				more: change.more,
			});
		},
	};
}
