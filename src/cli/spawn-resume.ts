import {spawn} from 'node:child_process';
import {join} from 'node:path';
import {packageRoot} from './package-root.ts';

/**
 * Starts `controlroom run --resume TASK` on its own (detached, no terminal, output discarded):
 * what a reconciler pass does for a held task answered while no wrapper of it lives. A second
 * start for the same task is refused by the first (its wrapper lives) or finds the answer taken.
 */
export function spawnResume(ledgerPath: string): (taskId: string) => void {
	const started = new Set<string>();
	return taskId => {
		// Once per task from one reconciler: the answer is taken within a second by the one it started.
		if (started.has(taskId)) return;
		started.add(taskId);
		const child = spawn(
			process.execPath,
			[join(packageRoot(), 'bin', 'controlroom'), 'run', '--resume', taskId, '--ledger', ledgerPath],
			{
				detached: true,
				stdio: 'ignore',
			},
		);
		child.on('error', () => started.delete(taskId));
		child.unref();
	};
}
