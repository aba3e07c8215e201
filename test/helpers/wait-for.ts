import type {ChildProcess} from 'node:child_process';
import type {EventEmitter} from 'node:events';
import {existsSync, watch, type FSWatcher} from 'node:fs';
import {dirname} from 'node:path';

/**
 * Something that can say "look again": it calls `look` whenever the awaited condition may have
 * changed, and returns how to stop listening.
 */
export type Wakeup = (look: () => void) => () => void;

export type WaitOptions = {
	/** What is awaited, in words, for the message when it never comes. */
	readonly what: string;
	/** How long before giving up; 10 s unless said. */
	readonly timeoutMs?: number;
	/**
	 * What can change the condition (a child's output, a folder's files, a ledger's commits, an
	 * emitter's event). Without any, the condition is polled: only for what nothing can notify (a
	 * process that is not our child dying, a terminal's mode), and only here.
	 */
	readonly on?: readonly Wakeup[];
	/** Adds the state last seen to the timeout message (a pane, a frame). */
	readonly explain?: () => string;
};

/** How often a condition that nothing can notify is looked at. */
const POLL_MS = 20;

/**
 * Resolves with the condition's value once it is neither undefined, null nor false; looks at once,
 * then each time a wakeup fires (or every POLL_MS without wakeups); rejects after `timeoutMs`
 * naming `what`. An exception from the condition rejects at once.
 */
export async function waitFor<T>(condition: () => T | undefined | null | false, options: WaitOptions): Promise<T> {
	const timeoutMs = options.timeoutMs ?? 10_000;
	return new Promise<T>((resolve, reject) => {
		const stops: (() => void)[] = [];
		let isDone = false;
		let isQueued = false;
		const finish = (settle: () => void): void => {
			if (isDone) return;
			isDone = true;
			for (const stop of stops) stop();
			settle();
		};
		const look = (): void => {
			if (isDone) return;
			try {
				const value = condition();
				if (value !== undefined && value !== null && value !== false) finish(() => resolve(value));
			} catch (error) {
				finish(() => reject(error instanceof Error ? error : new Error(String(error))));
			}
		};
		// A burst of wakeups (a write in many chunks) costs one look, after the burst.
		const lookSoon = (): void => {
			if (isQueued || isDone) return;
			isQueued = true;
			setImmediate(() => {
				isQueued = false;
				look();
			});
		};
		const timer = setTimeout(() => {
			const seen = options.explain ? `; last seen:\n${options.explain()}\n(end)` : '';
			finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}${seen}`)));
		}, timeoutMs);
		stops.push(() => clearTimeout(timer));
		// Listen first, then look: a change between the two is seen either way.
		const wakeups = options.on === undefined || options.on.length === 0 ? [every(POLL_MS)] : options.on;
		for (const wakeup of wakeups) stops.push(wakeup(lookSoon));
		look();
	});
}

/** Fires every `ms`: the bounded poll, for what nothing announces. */
function every(ms: number): Wakeup {
	return look => {
		const timer = setInterval(look, ms);
		return () => clearInterval(timer);
	};
}

/** How often a ledger is looked at besides its file events (see onLedgerChange). */
const LEDGER_POLL_MS = 50;

/**
 * Fires when a ledger may have a new commit. Its folder's file events come at once when a writer
 * writes its WAL; but a commit becomes visible to readers only when the writer then updates the
 * WAL index, which lives in shared memory and announces nothing, so a look on the last file event
 * can come too early. A steady look every 50 ms covers that last step.
 */
export function onLedgerChange(ledgerFile: string): Wakeup {
	const files = onFileChange(ledgerFile);
	const poll = every(LEDGER_POLL_MS);
	return look => {
		const stops = [files(look), poll(look)];
		return () => {
			for (const stop of stops) stop();
		};
	};
}

/** Fires on every chunk a stream emits (a child's stdout or stderr that something already reads). */
export function onOutput(stream: NodeJS.ReadableStream | null | undefined): Wakeup {
	return look => {
		if (!stream) return () => undefined;
		stream.on('data', look);
		return () => stream.removeListener('data', look);
	};
}

/** Fires when the child exits. */
export function onExit(child: ChildProcess): Wakeup {
	return look => {
		child.on('exit', look);
		return () => child.removeListener('exit', look);
	};
}

/** Fires on `event` of any emitter. */
export function onEvent(emitter: EventEmitter, event: string): Wakeup {
	return look => {
		emitter.on(event, look);
		return () => emitter.removeListener(event, look);
	};
}

/**
 * Fires when anything in the folder of `path` is created, written or removed: a file appearing
 * (for a ledger's commits, use onLedgerChange). A folder that does not exist yet (a
 * ledger's home, made by the wrapper) is waited for from the nearest folder above it that does.
 */
export function onFileChange(path: string): Wakeup {
	const target = dirname(path);
	const nearest = (): string => {
		let dir = target;
		while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
		return dir;
	};
	return look => {
		let watcher: FSWatcher | undefined;
		let watched = '';
		let isStopped = false;
		const arm = (): void => {
			if (isStopped) return;
			const dir = nearest();
			if (dir === watched) return;
			watcher?.close();
			watched = dir;
			watcher = watch(dir, () => {
				if (watched !== target) arm();
				look();
			});
			// A folder removed under the watcher ends it; the nearest one above is watched instead.
			watcher.on('error', () => {
				watched = '';
				arm();
				look();
			});
			// A deeper folder made while this one was being armed is not reported: look again.
			arm();
			look();
		};
		arm();
		return () => {
			isStopped = true;
			watcher?.close();
		};
	};
}
