import {readdirSync, readFileSync, readlinkSync} from 'node:fs';
import {join} from 'node:path';
import {parseProcStat, type ProcessInfo} from '../core/process-tree.ts';

/**
 * The process table, read straight from /proc (Linux). Reading /proc costs one small read per
 * process and no fork, which keeps a pass with a thousand processes within a few milliseconds;
 * spawning `ps` each pass would cost more than the whole pass budget on its own.
 */
export const DEFAULT_PROC_ROOT = '/proc';

/** One process's stat line, or undefined when it is gone (or was never there). */
export function readProcess(pid: number, procRoot = DEFAULT_PROC_ROOT): ProcessInfo | undefined {
	try {
		return parseProcStat(readFileSync(join(procRoot, String(pid), 'stat'), 'utf8')) ?? undefined;
	} catch {
		return undefined;
	}
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

/** The start time of a live process (clock ticks after boot), or null when it is gone. */
export function processStartTime(pid: number, procRoot = DEFAULT_PROC_ROOT): number | null {
	return readProcess(pid, procRoot)?.startTime ?? null;
}

/** Live (non-zombie) members of a process group. */
export function groupMembers(pgid: number, procRoot = DEFAULT_PROC_ROOT): ProcessInfo[] {
	return [...readProcessTable(procRoot).values()].filter(process => process.pgid === pgid && process.state !== 'Z');
}
