import {fstatSync, readFileSync} from 'node:fs';
import {userInfo} from 'node:os';
import {isatty} from 'node:tty';
import {AGENT_ENV_MARKERS, type ActorFacts, type AncestorFact, type Door, type TaskProcessFact} from '../core/actor.ts';
import {parseProcStat} from '../core/process-tree.ts';
import {isEnded} from '../core/status.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {DEFAULT_PROC_ROOT, readArgv} from './proc-table.ts';
import {processRecordOf} from './task-process.ts';

// The one place the actor rule's facts are read (docs/security.md, "Who is asking"): this
// process's parents from /proc, its environment, its stdin, and the PIDs the ledger recorded for
// tasks. The rule itself is src/core/actor.ts.

/** Always the real /proc, and the process's own environment: no parameter lets a caller point them elsewhere. */
const PROC = DEFAULT_PROC_ROOT;
/** A chain longer than this is cut (a fork loop cannot make the walk endless). */
const MAX_ANCESTORS = 128;

/** The fields of /proc/PID/stat after the name: state ppid pgrp session tty_nr tpgid ... */
function statFields(pid: number | 'self'): string[] | null {
	try {
		const text = readFileSync(`${PROC}/${pid}/stat`, 'utf8');
		return text.slice(text.lastIndexOf(')') + 2).split(' ');
	} catch {
		return null;
	}
}

/** The parent chain of `pid`, nearest first, to the first process without a parent. */
function readAncestry(pid: number): AncestorFact[] {
	const chain: AncestorFact[] = [];
	let parent = Number(statFields(pid)?.[1] ?? 0);
	while (parent > 1 && chain.length < MAX_ANCESTORS && !chain.some(known => known.pid === parent)) {
		let info;
		try {
			info = parseProcStat(readFileSync(`${PROC}/${parent}/stat`, 'utf8'));
		} catch {
			break;
		}
		if (!info) break;
		chain.push({pid: info.pid, startTime: info.startTime, name: info.name, argv: readArgv(info.pid, PROC)});
		parent = info.ppid;
	}
	return chain;
}

/** What stdin is: a terminal, this process's controlling one, with this process in its foreground. */
function readTerminal(): ActorFacts['terminal'] {
	const isTty = isatty(0);
	if (!isTty) return {isTty, isControlling: false, isForeground: false};
	const fields = statFields('self');
	let rdev: number | null;
	try {
		rdev = fstatSync(0).rdev;
	} catch {
		rdev = null;
	}
	// tty_nr and st_rdev encode a device the same way for every terminal (major below 4096).
	const ttyNr = Number(fields?.[4] ?? 0);
	const isControlling = rdev !== null && ttyNr !== 0 && ttyNr === rdev;
	const isForeground = isControlling && Number(fields?.[5] ?? -1) === Number(fields?.[2] ?? -2);
	return {isTty, isControlling, isForeground};
}

/** Tasks whose recorded process is `pid` (with the same start time where one was recorded). */
function tasksOf(ledger: Ledger | null, pid: number, startTime: number | null): TaskProcessFact[] {
	if (ledger === null) return [];
	return ledger.reader
		.tasksWithPid(pid)
		.filter(task => {
			const recorded = processRecordOf(ledger, task)?.startTime ?? null;
			if (recorded !== null && startTime !== null) return recorded === startTime;
			return !isEnded(task.status);
		})
		.map(task => ({taskId: task.id, pid}));
}

function currentUser(): {user: string | null; uid: number | null} {
	try {
		const info = userInfo();
		return {user: info.username, uid: info.uid};
	} catch {
		return {user: null, uid: process.getuid?.() ?? null};
	}
}

/**
 * Reads the facts the actor rule decides on, for this process asking through `door`: its parents
 * (PID, start time, name, argv), which agent markers its environment carries, its stdin, and the
 * tasks the ledger recorded for it or any parent (none known without a ledger: a fleet board).
 */
export function gatherActorFacts(ledger: Ledger | null, door: Door): ActorFacts {
	const ancestors = readAncestry(process.pid);
	const ownStart = parseProcStat(readFileSync(`${PROC}/self/stat`, 'utf8'))?.startTime ?? null;
	const taskProcesses = [
		...tasksOf(ledger, process.pid, ownStart),
		...ancestors.flatMap(ancestor => tasksOf(ledger, ancestor.pid, ancestor.startTime)),
	];
	return {
		pid: process.pid,
		...currentUser(),
		ancestors,
		markers: AGENT_ENV_MARKERS.filter(name => process.env[name] !== undefined),
		terminal: readTerminal(),
		taskProcesses,
		door,
	};
}
