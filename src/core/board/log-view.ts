/** Where a task's log comes from. */
export type TaskLogSource = 'output' | 'transcript' | 'ledger' | 'none';

/** The tail of a task's output (or an agent session's last messages), as an adapter read it. */
export type TaskLog = {
	readonly source: TaskLogSource;
	/** Where the lines were read, or why there are none, in words. */
	readonly origin: string;
	/** The newest lines, oldest first, already plain text. */
	readonly lines: readonly string[];
	/** Said above the lines when older output is no longer kept, or was not read. */
	readonly note: string | null;
};

/** Lines the log view keeps; older ones are left in the file. */
export const LOG_VIEW_LINES = 2000;

// CSI and OSC sequences, other escapes, and C0/C1 controls but tab.
const ESCAPES = new RegExp(
	[
		'\\u001B\\[[0-?]*[ -/]*[@-~]',
		'\\u001B\\][^\\u0007\\u001B]*(?:\\u0007|\\u001B\\\\)',
		'\\u001B[@-Z\\\\-_]',
		'[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F]',
	].join('|'),
	'g',
);

/**
 * One line of a program's output as plain text for the board: what a carriage return overwrote is
 * dropped (progress bars redraw with `\r`), colours and other escapes are removed, tabs expanded.
 */
export function plainLine(line: string): string {
	const afterReturn = line.slice(line.lastIndexOf('\r', line.length - 2) + 1).replace(/\r$/, '');
	return afterReturn.replace(ESCAPES, '').replace(/\t/g, '  ');
}

/** The log view as drawn: a window of lines ending `fromEnd` lines above the newest. */
export type LogWindow = {
	readonly lines: readonly string[];
	/** Index of the first line shown. */
	readonly start: number;
	readonly total: number;
	/** True when the newest line is in view: new output scrolls it on. */
	readonly isFollowing: boolean;
};

/** The lines that fit `height`, ending `fromEnd` lines above the newest (0 follows the end). */
export function windowLog(lines: readonly string[], fromEnd: number, height: number): LogWindow {
	const size = Math.max(1, height);
	const maxFromEnd = Math.max(0, lines.length - size);
	const offset = Math.min(Math.max(0, fromEnd), maxFromEnd);
	const end = lines.length - offset;
	const start = Math.max(0, end - size);
	return {lines: lines.slice(start, end), start, total: lines.length, isFollowing: offset === 0};
}

/** Reads a task's log for the board: its tail now, and again each time it grows. */
export type LogReader = {
	/** Calls `onRead` with the log's tail at once and after each change; returns the function that stops watching. */
	watch(taskId: string, onRead: (log: TaskLog) => void): () => void;
};
