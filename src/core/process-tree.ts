/** One process as the reconciler sees it in the process table. */
export type ProcessInfo = {
	readonly pid: number;
	readonly ppid: number;
	/** Process group id. */
	readonly pgid: number;
	/** The kernel's short name (`comm`, at most 15 characters). */
	readonly name: string;
	/** One-letter state; `Z` is a zombie: exited, not yet reaped. */
	readonly state: string;
	/** Start time in clock ticks after boot: with the PID, it names one process across PID reuse. */
	readonly startTime: number;
};

/**
 * Parses the text of /proc/PID/stat. The name sits in parentheses and may itself hold spaces or
 * parentheses, so fields are counted from the last `)`.
 */
export function parseProcStat(text: string): ProcessInfo | null {
	const open = text.indexOf('(');
	const close = text.lastIndexOf(')');
	if (open < 0 || close < open) return null;
	const pid = Number(text.slice(0, open).trim());
	const fields = text.slice(close + 2).split(' ');
	// After the name: state(3) ppid(4) pgrp(5) session(6) ... starttime(22).
	const ppid = Number(fields[1]);
	const pgid = Number(fields[2]);
	const startTime = Number(fields[19]);
	if (!Number.isInteger(pid) || !Number.isInteger(ppid) || !Number.isInteger(pgid) || !Number.isFinite(startTime)) return null;
	return {pid, ppid, pgid, name: text.slice(open + 1, close), state: fields[0] ?? '?', startTime};
}

/** Interpreters whose first argument names the program (`node /usr/lib/.../codex`). */
const INTERPRETERS = new Set(['node', 'nodejs', 'bun', 'deno', 'python', 'python3']);

function baseName(path: string): string {
	const base = path.slice(path.lastIndexOf('/') + 1);
	return base.replace(/\.(c|m)?js$/, '');
}

/**
 * The agent name a process answers to, or null: its kernel name, the base name of argv[0], or,
 * for an interpreter, the base name of the script it runs.
 */
export function agentNameOf(name: string, argv: readonly string[] | null, agentNames: ReadonlySet<string>): string | null {
	if (agentNames.has(name)) return name;
	if (!argv || argv.length === 0) return null;
	const first = baseName(argv[0] ?? '');
	if (agentNames.has(first)) return first;
	if (INTERPRETERS.has(name) || INTERPRETERS.has(first)) {
		const script = argv.slice(1).find(arg => !arg.startsWith('-'));
		const scriptName = script === undefined ? null : baseName(script);
		if (scriptName !== null && agentNames.has(scriptName)) return scriptName;
	}
	return null;
}

/** How many parent levels are walked to see whether a process belongs to a tracked one. */
export const PARENT_LEVELS = 3;

/** Finds a process by PID (a map's `get`, or a lazy reader of the process table). */
export type ProcessLookup = (pid: number) => ProcessInfo | undefined;

/**
 * Whether one of the first `levels` ancestors of `pid` (parent, grandparent, ...) is an owner. An
 * agent started by a wrapped or hooked agent, or by another agent process, belongs to it.
 */
export function ownedWithin(
	pid: number,
	lookup: ProcessLookup,
	isOwner: (pid: number) => boolean,
	levels = PARENT_LEVELS,
): boolean {
	let ancestor = lookup(pid)?.ppid;
	for (let level = 1; level <= levels && ancestor !== undefined && ancestor > 1; level += 1) {
		if (isOwner(ancestor)) return true;
		ancestor = lookup(ancestor)?.ppid;
	}
	return false;
}

/** How far up the tree `descendsFrom` looks: deeper than any wrapper, shell and agent chain. */
const DESCENT_LEVELS = 32;

/**
 * Whether `ancestor` is the parent of `pid`, or its parent's parent, and so on. A demo asks this so
 * that only the processes it started count, never another user's or another demo's agents.
 */
export function descendsFrom(pid: number, ancestor: number, lookup: ProcessLookup): boolean {
	let parent = lookup(pid)?.ppid;
	for (let level = 0; level < DESCENT_LEVELS && parent !== undefined && parent > 0; level += 1) {
		if (parent === ancestor) return true;
		if (parent === 1) return false;
		parent = lookup(parent)?.ppid;
	}
	return false;
}

/**
 * Picks the agent processes that nobody registered, from the processes named like agents: alive
 * (not zombies), not tracked themselves, and with no tracked or agent ancestor within three levels.
 */
export function findUntracked(
	agentProcesses: readonly ProcessInfo[],
	lookup: ProcessLookup,
	trackedPids: ReadonlySet<number>,
	levels = PARENT_LEVELS,
): ProcessInfo[] {
	const alive = agentProcesses.filter(process => process.state !== 'Z');
	const agents = new Set(alive.map(process => process.pid));
	return alive.filter(
		process =>
			!trackedPids.has(process.pid) &&
			!ownedWithin(process.pid, lookup, owner => trackedPids.has(owner) || agents.has(owner), levels),
	);
}

/** What became of a recorded PID. */
export type PidFate = 'alive' | 'gone' | 'reused';

/**
 * Compares a recorded PID (with its start time, when recorded) to the process table now. A zombie
 * has exited; a different start time means the kernel gave the PID to another process.
 */
export function pidFate(recordedStartTime: number | null, current: ProcessInfo | undefined): PidFate {
	if (!current || current.state === 'Z') return 'gone';
	if (recordedStartTime !== null && current.startTime !== recordedStartTime) return 'reused';
	return 'alive';
}

/**
 * Every process below the roots (children, grandchildren, ...), found by parent PID in the table
 * read now, the roots themselves left out. A process that moved to another process group or
 * session stays its parent's child, so it is found; one whose parent died was given to init and
 * can only be found another way (the wrapper's task id in its environment).
 */
export function descendantsOf(roots: Iterable<number>, table: Iterable<ProcessInfo>): ProcessInfo[] {
	const children = new Map<number, ProcessInfo[]>();
	for (const process of table) {
		const siblings = children.get(process.ppid);
		if (siblings) siblings.push(process);
		else children.set(process.ppid, [process]);
	}
	const found = new Map<number, ProcessInfo>();
	const queue = [...roots];
	const seen = new Set(queue);
	for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
		for (const child of children.get(next) ?? []) {
			if (seen.has(child.pid)) continue;
			seen.add(child.pid);
			found.set(child.pid, child);
			queue.push(child.pid);
		}
	}
	return [...found.values()];
}

/**
 * A process a producer recorded for a task: its PID with its start time, and, for a PID that came
 * from an agent's hook or the process table (not from the wrapper that spawned it), the agent it
 * must still answer to (`claude`, `codex`, a configured name).
 */
export type RecordedStamp = {
	readonly pid: number;
	readonly startTime: number | null;
	readonly agent: string | null;
	/** Which event type recorded it, and its producer: `task.started by wrapper`. */
	readonly from: string;
};

/**
 * Whether a recorded process may be signalled: `matches` only when it is alive with the recorded
 * start time and, where an agent is required, still answers to it. A PID recorded without a start
 * time is `unverified`: it could name any process by now, so it is never signalled.
 */
export type StampFate = 'matches' | 'gone' | 'reused' | 'not-an-agent' | 'unverified';

export function stampFate(
	stamp: RecordedStamp,
	current: ProcessInfo | undefined,
	answersTo: (agent: string, process: ProcessInfo) => boolean,
): StampFate {
	if (!current || current.state === 'Z') return 'gone';
	if (stamp.startTime === null) return 'unverified';
	if (current.startTime !== stamp.startTime) return 'reused';
	if (stamp.agent !== null && !answersTo(stamp.agent, current)) return 'not-an-agent';
	return 'matches';
}
