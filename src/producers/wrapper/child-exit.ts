import type {Readable} from 'node:stream';
import {groupMembers, processesWithEnv} from '../proc-table.ts';
import {TASK_ID_ENV} from '../task-id-env.ts';

/** How the child process itself ended, from its own exit (not from its pipes closing). */
export type ChildExit = {readonly exitCode: number | null; readonly signal: string | null};

/**
 * Resolves when the child process exits. Node reports the exit as soon as the process is reaped,
 * even when processes it started in the background still hold its stdout and stderr open, which
 * is what the wrapper must not wait for (`sh -c 'sleep 20 & echo hi'` ends when `sh` does).
 */
export function childExit(child: {
	once(event: 'exit', listener: (code: number | null, signal: string | null) => void): unknown;
}): Promise<ChildExit> {
	return new Promise(resolve => child.once('exit', (exitCode, signal) => resolve({exitCode, signal})));
}

/** No output for this long after the exit: whatever the child wrote before it exited has been read. */
const QUIET_MS = 50;
/** A background process that keeps writing does not hold the wrapper longer than this after the exit. */
const MAX_DRAIN_MS = 500;

/**
 * After the child's exit: reads what it wrote before exiting (still in the pipes), then lets go of
 * the pipes, which background processes it left behind may keep open. Done once both pipes have
 * ended, or once they have been quiet for QUIET_MS, at most MAX_DRAIN_MS after the exit. The quiet
 * check runs in an immediate, after the event loop's poll phase, so bytes already in a pipe are
 * read before it, however late a loaded machine runs the timer.
 */
export async function releaseOutput(streams: readonly (Readable | null)[]): Promise<void> {
	const open = streams.filter((stream): stream is Readable => stream !== null && !stream.readableEnded && !stream.destroyed);
	if (open.length === 0) return;
	const started = Date.now();
	let lastData = started;
	await new Promise<void>(resolve => {
		let timer: NodeJS.Timeout | undefined;
		const onData = (): void => {
			lastData = Date.now();
		};
		const isDone = (): boolean => open.every(stream => stream.readableEnded || stream.destroyed);
		const finish = (): void => {
			clearTimeout(timer);
			for (const stream of open) {
				stream.off('data', onData);
				stream.off('end', onEnd);
				stream.off('close', onEnd);
			}
			resolve();
		};
		function onEnd(): void {
			if (isDone()) finish();
		}
		// A pipe paused by backpressure (a slow terminal) still holds unread output: not quiet yet.
		const isQuiet = (): boolean => Date.now() - lastData >= QUIET_MS && open.every(stream => stream.readableFlowing !== false);
		const check = (): void => {
			setImmediate(() => {
				if (isDone() || isQuiet() || Date.now() - started >= MAX_DRAIN_MS) finish();
				else timer = setTimeout(check, QUIET_MS);
			});
		};
		for (const stream of open) {
			stream.on('data', onData);
			stream.once('end', onEnd);
			stream.once('close', onEnd);
		}
		timer = setTimeout(check, QUIET_MS);
		if (isDone()) finish();
	});
	for (const stream of open) stream.destroy();
}

/** At most this many leftover processes are named on the exit record; the count says how many in all. */
const MAX_NAMED = 20;

/**
 * What the child left running when it exited: live members of its process group (background jobs)
 * and any other process carrying its CONTROLROOM_TASK_ID (a grandchild that left the group with
 * `setsid`), the first MAX_NAMED named, and how many in all.
 */
export function leftRunning(
	pgid: number,
	taskId: string,
): {readonly processes: readonly {pid: number; name: string}[]; readonly count: number} {
	const found = new Map(groupMembers(pgid).map(process => [process.pid, process.name]));
	for (const process of processesWithEnv(TASK_ID_ENV, taskId)) found.set(process.pid, process.name);
	const processes = [...found].map(([pid, name]) => ({pid, name}));
	return {processes: processes.slice(0, MAX_NAMED), count: processes.length};
}
