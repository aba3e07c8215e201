import {closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync} from 'node:fs';
import {join} from 'node:path';
import {parseProcStat, type ProcessInfo} from '../core/process-tree.ts';

/**
 * The process table, read straight from /proc (Linux). Reading /proc costs one small read per
 * process and no fork, which keeps a pass with a thousand processes within a few milliseconds;
 * spawning `ps` each pass would cost more than the whole pass budget on its own.
 */
export const DEFAULT_PROC_ROOT = '/proc';

/** One buffer for every small /proc read: a stat line is a few hundred bytes. */
const readBuffer = Buffer.alloc(4096);

/** Reads a small /proc file with open/read/close into the shared buffer; undefined when it is gone. */
function readSmall(file: string): string | undefined {
	let fd: number;
	try {
		fd = openSync(file, 'r');
	} catch {
		return undefined;
	}
	try {
		const length = readSync(fd, readBuffer, 0, readBuffer.length, 0);
		return readBuffer.toString('utf8', 0, length);
	} catch {
		return undefined;
	} finally {
		closeSync(fd);
	}
}

/**
 * One process's stat line, or undefined when it is gone (or was never there). open/read/close
 * into a shared buffer: readFileSync's extra fstat and allocation per file cost a third more.
 */
export function readProcess(pid: number, procRoot = DEFAULT_PROC_ROOT): ProcessInfo | undefined {
	const text = readSmall(`${procRoot}/${pid}/stat`);
	return text === undefined ? undefined : (parseProcStat(text) ?? undefined);
}

/** Every process in the table, keyed by PID. Processes that exit while we read are skipped. */
export function readProcessTable(procRoot = DEFAULT_PROC_ROOT): Map<number, ProcessInfo> {
	const table = new Map<number, ProcessInfo>();
	for (const entry of readdirSync(procRoot)) {
		const first = entry.charCodeAt(0);
		if (first < 48 || first > 57) continue;
		const info = readProcess(Number(entry), procRoot);
		if (info) table.set(info.pid, info);
	}
	return table;
}

/** A process's argv, or null when it is gone or unreadable (kernel threads have none). */
export function readArgv(pid: number, procRoot = DEFAULT_PROC_ROOT): string[] | null {
	try {
		const raw = readFileSync(join(procRoot, String(pid), 'cmdline'), 'utf8');
		const argv = raw.split('\0');
		if (argv.at(-1) === '') argv.pop();
		return argv.length > 0 ? argv : null;
	} catch {
		return null;
	}
}

/** A process's working folder, or null when it is gone or belongs to another user. */
export function readCwd(pid: number, procRoot = DEFAULT_PROC_ROOT): string | null {
	try {
		return readlinkSync(join(procRoot, String(pid), 'cwd'));
	} catch {
		return null;
	}
}

/**
 * Clock ticks a second in /proc's start times (USER_HZ). Linux reports them in USER_HZ, which is
 * 100 on every architecture it runs on today (sysconf(_SC_CLK_TCK)); Node cannot ask sysconf.
 */
export const CLOCK_TICKS_PER_SECOND = 100;

/**
 * How long ago each process started, from its start time and the time since boot read now
 * (/proc/uptime); a function that says null for every process when the uptime cannot be read.
 */
export function processAge(procRoot = DEFAULT_PROC_ROOT): (process: ProcessInfo) => number | null {
	const uptime = Number((readSmall(`${procRoot}/uptime`) ?? '').split(' ')[0]);
	if (!Number.isFinite(uptime) || uptime <= 0) return () => null;
	const upMs = uptime * 1000;
	return process => Math.max(0, upMs - (process.startTime * 1000) / CLOCK_TICKS_PER_SECOND);
}

/** The start time of a live process (clock ticks after boot), or null when it is gone. */
export function processStartTime(pid: number, procRoot = DEFAULT_PROC_ROOT): number | null {
	return readProcess(pid, procRoot)?.startTime ?? null;
}

/**
 * Live processes whose environment holds `NAME=VALUE` exactly: the descendants of a wrapped child,
 * wherever they went (a `setsid` grandchild is in no group of ours, but it keeps the
 * CONTROLROOM_TASK_ID the wrapper gave its child). Reads every process's environment, so it is
 * asked once, when a child has exited. Other users' processes cannot be read and are skipped.
 */
export function processesWithEnv(name: string, value: string, procRoot = DEFAULT_PROC_ROOT): ProcessInfo[] {
	const needle = Buffer.from(`${name}=${value}\0`);
	const found: ProcessInfo[] = [];
	for (const entry of readdirSync(procRoot)) {
		const first = entry.charCodeAt(0);
		if (first < 48 || first > 57 || Number(entry) === process.pid) continue;
		let environ: Buffer;
		try {
			environ = readFileSync(join(procRoot, entry, 'environ'));
		} catch {
			continue;
		}
		const at = environ.indexOf(needle);
		if (at < 0 || (at > 0 && environ[at - 1] !== 0)) continue;
		const info = readProcess(Number(entry), procRoot);
		if (info && info.state !== 'Z') found.push(info);
	}
	return found;
}

/** The value of one variable in a process's environment, or null (not set, gone, or another user's). */
export function envValueOf(pid: number, name: string, procRoot = DEFAULT_PROC_ROOT): string | null {
	let environ: Buffer;
	try {
		environ = readFileSync(join(procRoot, String(pid), 'environ'));
	} catch {
		return null;
	}
	const needle = Buffer.from(`${name}=`);
	for (let at = environ.indexOf(needle); at >= 0; at = environ.indexOf(needle, at + 1)) {
		if (at > 0 && environ[at - 1] !== 0) continue;
		const end = environ.indexOf(0, at);
		return environ.subarray(at + needle.length, end < 0 ? environ.length : end).toString('utf8');
	}
	return null;
}

/** Live (non-zombie) members of a process group. */
export function groupMembers(pgid: number, procRoot = DEFAULT_PROC_ROOT): ProcessInfo[] {
	return [...readProcessTable(procRoot).values()].filter(process => process.pgid === pgid && process.state !== 'Z');
}

/**
 * A pass's view of the process table: every PID with its kernel name (one read of the short
 * `comm` file each), and the full stat line read only for the processes a pass asks about
 * (tracked PIDs, agent-named processes and their ancestors), cached for the pass.
 */
export type ProcessScan = {
	readonly pids: readonly number[];
	name(pid: number): string | undefined;
	get(pid: number): ProcessInfo | undefined;
};

/** Lists the process table for one pass (see ProcessScan). */
export function scanProcesses(procRoot = DEFAULT_PROC_ROOT): ProcessScan {
	const names = new Map<number, string>();
	for (const entry of readdirSync(procRoot)) {
		const first = entry.charCodeAt(0);
		if (first < 48 || first > 57) continue;
		const comm = readSmall(`${procRoot}/${entry}/comm`);
		if (comm !== undefined) names.set(Number(entry), comm.endsWith('\n') ? comm.slice(0, -1) : comm);
	}
	const stats = new Map<number, ProcessInfo | undefined>();
	return {
		pids: [...names.keys()],
		name: pid => names.get(pid),
		get(pid) {
			if (!stats.has(pid)) stats.set(pid, readProcess(pid, procRoot));
			return stats.get(pid);
		},
	};
}
