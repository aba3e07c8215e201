import {spawn, type ChildProcess} from 'node:child_process';
import {join} from 'node:path';
import {setImmediate as turn} from 'node:timers/promises';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType, newEvent} from '../../src/core/events.ts';
import {handleHookInput} from '../../src/producers/agent-hook/hook-main.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {momentAtSeq, momentAtTime, readerAsOf} from '../../src/ledger/reader-as-of.ts';
import {readSnapshot} from '../../src/ledger/snapshot-query.ts';
import {childScript} from '../helpers/children.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {homeWithLedger, spoolFiles} from '../helpers/hook.ts';

let ledger: Ledger | undefined;
const children: ChildProcess[] = [];
afterEach(() => {
	ledger?.close();
	ledger = undefined;
	for (const child of children.splice(0)) child.kill();
});

/** Until the clock has moved past `at`: the next write then arrives after the moment taken. */
function pastMillisecond(at: number): void {
	while (Date.now() <= at) {
		// The clock moves within a millisecond.
	}
}

describe('the ledger at a moment', () => {
	it('a snapshot as of a moment equals, field for field, the snapshot taken then', () => {
		ledger = openLedger(join(scratchDir('cr-asof-'), 'ledger.db'));
		const base = Date.now() - 3_600_000;
		const at = (minutes: number) => base + minutes * 60_000;
		const write = (...events: Parameters<typeof newEvent>[]) => ledger!.writer.append(events.map(args => newEvent(...args)));
		const taken: {now: number; seq: number; snapshot: unknown}[] = [];
		const take = () => {
			const now = Date.now();
			const query = {now, windowMs: 86_400_000, stallSeconds: 600, host: 'here', person: 'ana'};
			taken.push({now, seq: ledger!.reader.lastSeq(), snapshot: readSnapshot(ledger!.reader, query)});
			pastMillisecond(now);
		};
		write([EventType.registered, {title: 'build', steps: 3}, {taskId: 'w-1', at: at(0), source: 'wrapper'}]);
		write([EventType.started, {pid: 4242, pgid: 4242}, {taskId: 'w-1', at: at(1), source: 'wrapper'}]);
		write([EventType.registered, {title: 'review'}, {taskId: 'w-2', at: at(2), source: 'wrapper'}]);
		take();
		write([EventType.progressed, {done: 1, total: 3}, {taskId: 'w-1', at: at(3), source: 'wrapper'}]);
		write([EventType.needRaised, {message: 'which branch?', kind: 'question'}, {taskId: 'w-2', at: at(4), source: 'cli'}]);
		write([EventType.registered, {title: 'future clock'}, {taskId: 'w-3', at: Date.now() + 86_400_000, source: 'wrapper'}]);
		take();
		write([EventType.exited, {exitCode: 0, signal: null}, {taskId: 'w-1', at: at(5), source: 'wrapper'}]);
		write([EventType.seen, {by: 'ana'}, {taskId: 'w-1', at: at(6), source: 'board'}]);
		write([EventType.exited, {exitCode: 2, signal: null}, {taskId: 'w-2', at: at(7), source: 'wrapper'}]);
		take();
		write([EventType.acknowledged, {signalAt: at(7)}, {taskId: 'w-2', at: at(8), source: 'cli'}]);
		for (const moment of taken) {
			const query = {now: moment.now, windowMs: 86_400_000, stallSeconds: 600, host: 'here', person: 'ana'};
			const byTime = momentAtTime(ledger.reader, moment.now);
			expect(byTime.seq).toBe(moment.seq);
			expect(readSnapshot(readerAsOf(ledger.reader, byTime), query)).toEqual(moment.snapshot);
			const bySeq = readSnapshot(readerAsOf(ledger.reader, momentAtSeq(ledger.reader, moment.seq)), query);
			expect(bySeq).toEqual(moment.snapshot);
		}
		// The moments differ from each other and from now: the fold stopped where it should.
		expect(new Set(taken.map(moment => JSON.stringify(moment.snapshot))).size).toBe(3);
	});

	it('snapshot, timeline and explain take --at, and a bad one is one line, exit 64', () => {
		const file = join(scratchDir('cr-asof-'), 'ledger.db');
		ledger = openLedger(file);
		ledger.writer.append([newEvent(EventType.registered, {title: 'first'}, {taskId: 'w-1', at: 1_000, source: 'wrapper'})]);
		ledger.writer.append([
			newEvent(EventType.exited, {exitCode: 0, signal: null}, {taskId: 'w-1', at: 2_000, source: 'wrapper'}),
		]);
		ledger.writer.append([newEvent(EventType.registered, {title: 'second'}, {taskId: 'w-2', at: 3_000, source: 'wrapper'})]);
		ledger.close();
		ledger = undefined;
		const past = JSON.parse(runCli(['snapshot', '--json', '--all', '--at', '1', '--ledger', file]).stdout) as {
			tasks: {id: string; status: string}[];
		};
		expect(past.tasks.map(task => [task.id, task.status])).toEqual([['w-1', 'registered']]);
		const timeline = runCli(['timeline', 'w-1', '--json', '--at', '1', '--ledger', file]);
		expect((JSON.parse(timeline.stdout) as {entries: unknown[]}).entries).toHaveLength(1);
		expect(runCli(['explain', 'w-1', '--at', '2', '--ledger', file]).stdout).toMatch(/^status\s+done/m);
		const notYet = runCli(['timeline', 'w-2', '--at', '2', '--ledger', file]);
		expect(notYet).toMatchObject({status: 1, stderr: expect.stringMatching(/was not in .* yet at seq 2/)});
		const bad = runCli(['snapshot', '--at', 'soon', '--ledger', file]);
		expect(bad).toMatchObject({status: 64, stdout: ''});
		expect(bad.stderr.trim().split('\n')).toHaveLength(1);
	});
});

/** A hook call from a Claude session, as the hook reads it on stdin. */
const hookPayload = (session: string, index: number): string =>
	JSON.stringify({
		session_id: session,
		transcript_path: '/nonexistent/transcript.jsonl',
		cwd: '/tmp',
		hook_event_name: 'PostToolUse',
		tool_name: 'Bash',
		tool_input: {command: `echo ${index}`},
		tool_use_id: `${session}-${index}`,
	});

const liveQuery = (now: number) => ({now, windowMs: 86_400_000, stallSeconds: 600, host: 'here', person: 'ana'});

describe("a live snapshot's moment", () => {
	it('holds no write lock while it reads: a hook called meanwhile writes the ledger, not the spool, and the read does not see it', () => {
		const {home, ledgerFile, spool} = homeWithLedger();
		ledger = openLedger(ledgerFile);
		const env = {CONTROLROOM_HOME: home, CLAUDE_PID: ''};
		expect(handleHookInput({}, hookPayload('s-1', 0), env).recordedIn).toBe('ledger');
		const before = ledger.reader.lastSeq();
		const during = ledger.readAt(now => {
			// The read is under way (its view is open): the hook, which waits 25 ms for the lock and then
			// spools, gets the lock at once, and a writer that waits not at all does too.
			const hook = handleHookInput({}, hookPayload('s-1', 1), env);
			const other = openLedger(ledgerFile, {busyTimeoutMs: 0});
			try {
				other.writer.append([newEvent(EventType.needRaised, {message: 'meanwhile'}, {taskId: 'w-9', at: now, source: 'cli'})]);
			} finally {
				other.close();
			}
			return {
				now,
				recordedIn: hook.recordedIn,
				seq: ledger!.reader.lastSeq(),
				snapshot: readSnapshot(ledger!.reader, liveQuery(now)),
			};
		});
		expect(during.recordedIn).toBe('ledger');
		expect(spoolFiles(spool)).toEqual([]);
		// The read saw the ledger as it was when it began, and the events written meanwhile arrived after its now.
		expect(during.seq).toBe(before);
		expect(ledger.reader.lastSeq()).toBeGreaterThan(before);
		expect(ledger.reader.arrivalOf(before + 1)).toBeGreaterThan(during.now);
		const moment = momentAtTime(ledger.reader, during.now);
		expect(moment.seq).toBe(before);
		expect(readSnapshot(readerAsOf(ledger.reader, moment), liveQuery(during.now))).toEqual(during.snapshot);
	});

	it('is exact while hook writers write: each snapshot equals the one --at its time gives', async () => {
		const {home, ledgerFile} = homeWithLedger();
		ledger = openLedger(ledgerFile);
		// Two processes calling the hook's own code as fast as they can, each through its own connection.
		const writers = [0, 1].map(writer => {
			const child = spawn(process.execPath, [childScript('hook-writer'), home, String(writer), '300'], {stdio: 'ignore'});
			children.push(child);
			return new Promise<number | null>(resolve => child.on('exit', resolve));
		});
		let isDone = false;
		const ended = Promise.all(writers).then(codes => {
			isDone = true;
			return codes;
		});
		const taken: {now: number; seq: number; snapshot: unknown}[] = [];
		// A hundred moments while they write are enough; the rest of their writes are only waited for.
		while (!isDone && taken.filter(moment => moment.seq > 0).length < 100) {
			taken.push(
				ledger.readAt(now => ({now, seq: ledger!.reader.lastSeq(), snapshot: readSnapshot(ledger!.reader, liveQuery(now))})),
			);
			await turn();
		}
		expect(await ended).toEqual([0, 0]);
		const last = ledger.reader.lastSeq();
		// Taken while the writers wrote: some moments fall between the first event and the last.
		expect(taken.filter(moment => moment.seq > 0 && moment.seq < last).length).toBeGreaterThan(0);
		for (const moment of taken) {
			const byTime = momentAtTime(ledger.reader, moment.now);
			expect(byTime.seq).toBe(moment.seq);
			expect(readSnapshot(readerAsOf(ledger.reader, byTime), liveQuery(moment.now))).toEqual(moment.snapshot);
		}
	}, 120_000);
});
