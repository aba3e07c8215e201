import {mkdirSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType, newEvent, type EventDataOf, type EventTypeName} from '../../src/core/events.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {reconcileOnce} from '../../src/producers/reconciler.ts';
import {scratchDir} from '../helpers/cli.ts';

// These passes read a synthetic process table (the reconciler's procRoot option), so PID reuse and
// wrapper liveness can be set up exactly; the end-to-end tests beside this use the real /proc.

const open: Ledger[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
});

function fakeProc(root: string, pid: number, name: string, ppid: number, startTime: number, state = 'S'): void {
	mkdirSync(join(root, String(pid)), {recursive: true});
	writeFileSync(join(root, String(pid), 'stat'), `${pid} (${name}) ${state} ${ppid} ${pid} ${'0 '.repeat(16)}${startTime} 0\n`);
	writeFileSync(join(root, String(pid), 'cmdline'), `${name}\0`);
	writeFileSync(join(root, String(pid), 'comm'), `${name}\n`);
}

function setup() {
	const dir = scratchDir('cr-pass-');
	const procRoot = join(dir, 'proc');
	mkdirSync(procRoot);
	const ledger = openLedger(join(dir, 'ledger.db'));
	open.push(ledger);
	const append = <T extends EventTypeName>(taskId: string, type: T, data: EventDataOf<T>, source = 'wrapper') =>
		ledger.writer.append([newEvent(type, data, {taskId, at: Date.now(), source})]);
	return {procRoot, ledger, append};
}

describe('reconcileOnce', () => {
	it('marks a task lost when its PID now belongs to another process', () => {
		const {procRoot, ledger, append} = setup();
		append('w-a', EventType.registered, {title: 'a'});
		append('w-a', EventType.started, {pid: 100, pgid: 100, startTime: 500, wrapperPid: 99, wrapperStartTime: 400});
		fakeProc(procRoot, 100, 'bash', 1, 777);
		const result = reconcileOnce(ledger, {procRoot});
		expect(result.lost).toEqual([{taskId: 'w-a', pid: 100, reason: expect.stringMatching(/now belongs to another process/)}]);
		expect(ledger.reader.task('w-a')?.status).toBe('lost');
	});

	it('leaves a task whose child is gone to its live wrapper, which records the exit itself', () => {
		const {procRoot, ledger, append} = setup();
		append('w-b', EventType.registered, {title: 'b'});
		append('w-b', EventType.started, {pid: 200, pgid: 200, startTime: 600, wrapperPid: 199, wrapperStartTime: 450});
		fakeProc(procRoot, 199, 'node', 1, 450);
		expect(reconcileOnce(ledger, {procRoot}).lost).toEqual([]);
		expect(ledger.reader.task('w-b')?.status).toBe('running');
		rmSync(join(procRoot, '199'), {recursive: true});
		expect(reconcileOnce(ledger, {procRoot}).lost.map(entry => entry.taskId)).toEqual(['w-b']);
	});

	it('records the start time of a hook-reported PID once, and catches its reuse later', () => {
		const {procRoot, ledger, append} = setup();
		append('c-1', EventType.registered, {source: 'claude', sessionId: 's'}, 'claude');
		append('c-1', EventType.started, {pid: 300}, 'claude');
		append('c-1', EventType.agentEvent, {event: 'UserPromptSubmit'}, 'claude'); // mid-turn: a death is lost
		fakeProc(procRoot, 300, 'claude', 1, 900);
		expect(reconcileOnce(ledger, {procRoot}).lost).toEqual([]);
		expect(reconcileOnce(ledger, {procRoot}).discovered).toEqual([]);
		const reported = ledger.reader.eventsOf('c-1').filter(event => event.type === EventType.pidReported);
		expect(reported.map(event => event.data)).toEqual([{pid: 300, startTime: 900}]);
		fakeProc(procRoot, 300, 'bash', 1, 901);
		expect(reconcileOnce(ledger, {procRoot}).lost.map(entry => entry.taskId)).toEqual(['c-1']);
	});

	it('merges an untracked row into the task whose hook now tracks its PID, and treats a zombie as vanished', () => {
		const {procRoot, ledger, append} = setup();
		fakeProc(procRoot, 400, 'codex', 1, 1200);
		fakeProc(procRoot, 500, 'claude', 1, 1300);
		const first = reconcileOnce(ledger, {procRoot});
		expect(first.discovered.map(entry => entry.taskId).sort()).toEqual(['u-400-1200', 'u-500-1300']);
		append('x-1', EventType.registered, {source: 'codex', sessionId: 't'}, 'codex');
		append('x-1', EventType.started, {pid: 400}, 'codex');
		fakeProc(procRoot, 500, 'claude', 1, 1300, 'Z');
		const second = reconcileOnce(ledger, {procRoot});
		expect(second.adopted).toEqual(['u-400-1200']);
		expect(second.lost).toEqual([]);
		expect(second.ended.map(entry => entry.taskId)).toEqual(['u-500-1300']);
		expect(ledger.reader.task('u-400-1200')).toMatchObject({status: 'merged', endReason: 'its process is tracked as x-1'});
		expect(ledger.reader.task('u-500-1300')).toMatchObject({status: 'vanished', exitCode: null});
	});

	it('ends a hook session whose agent exited after a completed turn, and loses one that died mid-turn', () => {
		const {procRoot, ledger, append} = setup();
		for (const [id, pid] of [
			['c-idle', 310],
			['c-busy', 320],
		] as const) {
			append(id, EventType.registered, {source: 'claude', sessionId: id}, 'claude');
			append(id, EventType.started, {pid, startTime: 900}, 'claude');
			append(id, EventType.agentEvent, {event: 'UserPromptSubmit'}, 'claude');
		}
		append('c-idle', EventType.agentEvent, {event: 'Stop'}, 'claude');
		const result = reconcileOnce(ledger, {procRoot});
		expect(result.lost.map(entry => entry.taskId)).toEqual(['c-busy']);
		expect(result.ended.map(entry => entry.taskId)).toEqual(['c-idle']);
		expect(ledger.reader.task('c-idle')).toMatchObject({
			status: 'done',
			exitCode: null,
			endReason: 'process 310 is gone and its last turn had completed, with no SessionEnd: ended, exit code unknown',
		});
	});

	it('never records as untracked an agent process a session that already ended names by PID and start time', () => {
		const {procRoot, ledger, append} = setup();
		fakeProc(procRoot, 330, 'codex', 1, 950);
		append('x-ended', EventType.registered, {source: 'codex', sessionId: 'e'}, 'codex');
		append('x-ended', EventType.started, {pid: 330, startTime: 950}, 'codex');
		append('x-ended', EventType.ended, {reason: 'other'}, 'codex');
		expect(reconcileOnce(ledger, {procRoot}).discovered).toEqual([]);
		// The same PID with another start time is another process: that one is untracked.
		fakeProc(procRoot, 330, 'codex', 1, 951);
		expect(reconcileOnce(ledger, {procRoot}).discovered.map(entry => entry.taskId)).toEqual(['u-330-951']);
	});

	it('marks a registered row lost when its wrapper died before the spawn', () => {
		const {procRoot, ledger, append} = setup();
		append('w-gone', EventType.registered, {title: 'gone', wrapperPid: 700, wrapperStartTime: 50});
		append('w-live', EventType.registered, {title: 'live', wrapperPid: 701, wrapperStartTime: 60});
		fakeProc(procRoot, 701, 'node', 1, 60);
		expect(reconcileOnce(ledger, {procRoot}).lost.map(entry => entry.taskId)).toEqual(['w-gone']);
		expect(ledger.reader.task('w-gone')?.status).toBe('lost');
		expect(ledger.reader.task('w-live')?.status).toBe('registered');
	});

	it('uses configured agent names', () => {
		const {procRoot, ledger} = setup();
		fakeProc(procRoot, 600, 'aider', 1, 1400);
		expect(reconcileOnce(ledger, {procRoot}).discovered).toEqual([]);
		expect(reconcileOnce(ledger, {procRoot, agentNames: ['aider']}).discovered.map(entry => entry.pid)).toEqual([600]);
	});
});
