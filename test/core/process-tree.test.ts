import {describe, expect, it} from 'vitest';
import {
	agentNameOf,
	descendsFrom,
	findUntracked,
	ownedWithin,
	parseProcStat,
	pidFate,
	type ProcessInfo,
} from '../../src/core/process-tree.ts';

const proc = (pid: number, ppid: number, name = 'bash', patch: Partial<ProcessInfo> = {}): ProcessInfo => ({
	pid,
	ppid,
	pgid: pid,
	name,
	state: 'S',
	startTime: 1000 + pid,
	...patch,
});
const tableOf = (...processes: ProcessInfo[]) => new Map(processes.map(process => [process.pid, process]));
const names = new Set(['claude', 'codex']);
const untracked = (table: Map<number, ProcessInfo>, tracked: Set<number>) =>
	findUntracked(
		[...table.values()].filter(process => names.has(process.name)),
		pid => table.get(pid),
		tracked,
	).map(process => process.pid);

describe('parseProcStat', () => {
	it('reads pid, name (even with spaces and parentheses), state, ppid, pgid and start time', () => {
		const text =
			'4242 (my (odd) name) S 17 4242 4242 0 -1 4194304 0 0 0 0 4 1 0 0 20 0 1 0 98765 780070912 10980 18446744073709551615';
		expect(parseProcStat(text)).toEqual({pid: 4242, ppid: 17, pgid: 4242, name: 'my (odd) name', state: 'S', startTime: 98765});
		expect(parseProcStat('garbage')).toBeNull();
	});
});

describe('agentNameOf', () => {
	it('matches the kernel name, argv[0], or the script an interpreter runs', () => {
		expect(agentNameOf('codex', null, names)).toBe('codex');
		expect(agentNameOf('sleep', ['codex', '60'], names)).toBe('codex');
		expect(agentNameOf('node', ['node', '/usr/lib/node_modules/x/bin/claude.js'], names)).toBe('claude');
		expect(agentNameOf('node', ['node', '--enable-source-maps', '/opt/codex'], names)).toBe('codex');
		expect(agentNameOf('node', ['node', 'server.js'], names)).toBeNull();
		expect(agentNameOf('vim', ['vim', 'codex'], names)).toBeNull();
	});
});

describe('findUntracked', () => {
	it('reports an agent nobody tracks, keyed by its PID', () => {
		const table = tableOf(proc(1, 0, 'init'), proc(50, 1, 'bash'), proc(60, 50, 'codex'));
		expect(untracked(table, new Set())).toEqual([60]);
	});

	it('skips agents that are tracked or have a tracked ancestor within three levels', () => {
		const table = tableOf(
			proc(1, 0, 'init'),
			proc(10, 1, 'node'), // a wrapper's child (tracked)
			proc(11, 10, 'sh'),
			proc(12, 11, 'sh'),
			proc(13, 12, 'codex'), // great-grandchild of the tracked one: level 3
			proc(20, 1, 'codex'), // tracked itself
			proc(30, 1, 'x'),
			proc(31, 30, 'x'),
			proc(32, 31, 'x'),
			proc(33, 32, 'x'),
			proc(34, 33, 'codex'), // tracked ancestor 30 is four levels up: counted
		);
		expect(untracked(table, new Set([10, 20, 30]))).toEqual([34]);
	});

	it('counts an agent started by another untracked agent once, and ignores zombies', () => {
		const table = tableOf(
			proc(1, 0, 'init'),
			proc(40, 1, 'claude'),
			proc(41, 40, 'sh'),
			proc(42, 41, 'codex'),
			proc(43, 1, 'codex', {state: 'Z'}),
		);
		expect(untracked(table, new Set())).toEqual([40]);
	});

	it('walks at most the given number of levels', () => {
		const table = tableOf(proc(2, 1), proc(3, 2), proc(4, 3));
		expect(
			ownedWithin(
				4,
				pid => table.get(pid),
				pid => pid === 2,
				2,
			),
		).toBe(true);
		expect(
			ownedWithin(
				4,
				pid => table.get(pid),
				pid => pid === 2,
				1,
			),
		).toBe(false);
	});
});

describe('pidFate', () => {
	it('tells alive, gone (absent or zombie) and reused (start time differs)', () => {
		expect(pidFate(1042, proc(42, 1))).toBe('alive');
		expect(pidFate(null, proc(42, 1))).toBe('alive');
		expect(pidFate(1042, undefined)).toBe('gone');
		expect(pidFate(1042, proc(42, 1, 'bash', {state: 'Z'}))).toBe('gone');
		expect(pidFate(999, proc(42, 1))).toBe('reused');
	});
});

describe('descendsFrom', () => {
	it('follows parents up to the ancestor at any depth, and stops at init or a missing parent', () => {
		const table = tableOf(
			proc(500, 1, 'node'),
			proc(501, 500, 'node'),
			proc(502, 501, 'sh'),
			proc(503, 502, 'codex'),
			proc(600, 1, 'codex'),
			proc(700, 999, 'codex'),
		);
		const lookup = (pid: number) => table.get(pid);
		expect(descendsFrom(501, 500, lookup)).toBe(true);
		expect(descendsFrom(503, 500, lookup)).toBe(true);
		// Another user's agent, and one whose parent the table does not hold, are not the demo's.
		expect(descendsFrom(600, 500, lookup)).toBe(false);
		expect(descendsFrom(700, 500, lookup)).toBe(false);
		// A process is not its own descendant.
		expect(descendsFrom(500, 500, lookup)).toBe(false);
	});
});
