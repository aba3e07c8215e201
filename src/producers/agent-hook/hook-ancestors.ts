import {readFileSync} from 'node:fs';
import type {HookAncestor} from '../../core/agent-process.ts';
import {parseProcStat} from '../../core/process-tree.ts';
import {ANCESTOR_LEVELS} from '../../ledger/payload-schema.ts';

/**
 * The hook process's parent chain, nearest first, at most `levels` deep: PID, start time and
 * kernel name of each, read from /proc (a few small reads, well under a millisecond). The mapping
 * finds the agent among them when the agent names no PID itself (Codex). Empty where /proc cannot
 * be read: the PID then stays unknown, and the hook goes on.
 */
export function readAncestors(firstParent = process.ppid, levels = ANCESTOR_LEVELS, procRoot = '/proc'): HookAncestor[] {
	const chain: HookAncestor[] = [];
	let pid = firstParent;
	while (chain.length < levels && pid > 1) {
		let info;
		try {
			info = parseProcStat(readFileSync(`${procRoot}/${pid}/stat`, 'utf8'));
		} catch {
			break;
		}
		if (!info) break;
		chain.push({pid: info.pid, startTime: info.startTime, name: info.name});
		pid = info.ppid;
	}
	return chain;
}
