import {execFile} from 'node:child_process';
import {readdirSync, readFileSync} from 'node:fs';

/** A live process as the test sees it. */
export type SeenProcess = {readonly pid: number; readonly name: string};

function comm(pid: number): string | null {
	try {
		return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
	} catch {
		return null;
	}
}

/**
 * Every live process carrying a wrapped run's task id in its environment (`CONTROLROOM_TASK_ID`):
 * the run's whole tree, wherever its processes moved, read straight from /proc by the test.
 */
export function processesOfTask(taskId: string): SeenProcess[] {
	const needle = Buffer.from(`CONTROLROOM_TASK_ID=${taskId}\0`);
	const found: SeenProcess[] = [];
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
		try {
			const environ = readFileSync(`/proc/${entry}/environ`);
			const at = environ.indexOf(needle);
			if (at < 0 || (at > 0 && environ[at - 1] !== 0)) continue;
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
			found.push({pid: Number(entry), name: comm(Number(entry)) ?? '?'});
		} catch {
			// Gone meanwhile, or another user's.
		}
	}
	return found;
}

/** The PIDs among `pids` that `ps` shows alive (a zombie is dead: this container's init may reap late). */
export function aliveByPs(pids: readonly number[]): Promise<number[]> {
	if (pids.length === 0) return Promise.resolve([]);
	return new Promise(resolve => {
		execFile('ps', ['-o', 'pid=,stat=', '-p', pids.join(',')], {encoding: 'utf8'}, (_error, stdout) => {
			resolve(
				stdout
					.split('\n')
					.map(line => line.trim().split(/\s+/))
					.filter(([pid, stat]) => pid && stat && !stat.startsWith('Z'))
					.map(([pid]) => Number(pid)),
			);
		});
	});
}

/** Whether a PID is a live, non-zombie process. */
export function isAlive(pid: number): boolean {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
	} catch {
		return false;
	}
}

/** The start time (field 22 of /proc/PID/stat) of a live process. */
export function startTimeOf(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}
