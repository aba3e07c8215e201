import {describe, expect, it} from 'vitest';
import {EventType, type EventDataOf, type EventOfType, type EventTypeName, type LedgerEvent} from '../../src/core/events.ts';
import {FAILED_WINDOW_MS} from '../../src/core/human-queue.ts';
import {boardRound, type BoardRound} from '../../src/core/read-port/board-round.ts';
import {hostGatesOf} from '../../src/core/read-port/host-gates.ts';
import {hostQueue} from '../../src/core/read-port/host-queue.ts';
import type {RowsHost, SnapshotRows} from '../../src/core/read-port/host-rows.ts';
import {coversRecent, isRecent} from '../../src/core/read-port/read-port.ts';
import {mergeOrdered, sumStatusCounts} from '../../src/core/read-port/merge.ts';
import {snapshotOf} from '../../src/core/read-port/snapshot-of.ts';
import type {Snapshot} from '../../src/core/snapshot.ts';
import {STATUSES, type Status} from '../../src/core/status.ts';
import {applyEvent, type Task} from '../../src/core/task.ts';

const NOW = 1_000 * FAILED_WINDOW_MS;
const MIN = 60_000;

function task(id: string, patch: Partial<Task> = {}): Task {
	const registered = applyEvent(
		undefined,
		{taskId: id, type: EventType.registered, at: NOW - 90 * MIN, source: 'wrapper', data: {}},
		1,
	);
	return {...registered!, ...patch};
}

/** Events of one host, numbered as its ledger would. */
function eventsOf() {
	let seq = 0;
	return <T extends EventTypeName>(taskId: string, type: T, at: number, data: EventDataOf<T>, source = 'cli'): EventOfType<T> => {
		seq += 1;
		return {taskId, type, at, source, data, seq} as EventOfType<T>;
	};
}

const counts = (patch: Partial<Record<Status, number>>): Record<Status, number> => ({
	...(Object.fromEntries(STATUSES.map(status => [status, 0])) as Record<Status, number>),
	...patch,
});

/** A host with something in every lane and gate: failures (one answered by a later success), needs, a review, a disagreement, a held effect. */
function busyHost(host: RowsHost, offset = 0): SnapshotRows {
	const event = eventsOf();
	const at = (minutesAgo: number) => NOW - minutesAgo * MIN + offset;
	const failed = task('w-fail', {status: 'failed', exitCode: 1, endedAt: at(50), lastSeq: 3, cwd: '/repo', createdAt: at(60)});
	const lone = task('w-lone', {status: 'failed', exitCode: 3, endedAt: at(55), lastSeq: 2, cwd: '/lone', createdAt: at(70)});
	const answered = task('w-answered', {
		status: 'failed',
		exitCode: 2,
		endedAt: at(40),
		lastSeq: 5,
		cwd: '/other',
		createdAt: at(45),
	});
	const success = task('w-ok', {status: 'done', exitCode: 0, endedAt: at(30), lastSeq: 7, cwd: '/other', createdAt: at(35)});
	const quiet = task('c-quiet', {status: 'running', source: 'claude', lastEventAt: at(20), createdAt: at(25)});
	const busy = task('c-busy', {status: 'running', source: 'claude', lastEventAt: at(5), createdAt: at(24)});
	const gateEvents: LedgerEvent[] = [
		event('w-fail', EventType.reviewStarted, at(48), {reviewId: 'r-1', reviewers: ['a']}),
		event('w-fail', EventType.reviewVerdict, at(47), {reviewId: 'r-1', round: 1, reviewer: 1, verdict: 'FIX', fixes: ['x']}),
		event('w-fail', EventType.reviewConcluded, at(46), {reviewId: 'r-1', outcome: 'needs-person', reason: 'fixes left'}),
		event('m-1', EventType.disagreementOpened, at(15), {kind: 'value', items: ['release'], agents: ['a', 'b']}),
		event('o-1', EventType.orderOpened, at(12), {worker: 'worker-1', workerTask: 'w-fail'}, 'gateway'),
		event('o-1', EventType.effectHeld, at(11), {id: 'fs/write#1', seq: 1, upstream: 'fs', tool: 'write', args: {}}, 'gateway'),
	];
	const needs = [
		event('c-quiet', EventType.needRaised, at(19), {message: 'permission?'}, 'claude'),
		event('c-busy', EventType.needRaised, at(10), {message: 'answered since'}, 'claude'),
		event('need-1', EventType.needRaised, at(8), {message: 'mine'}, 'cli'),
		event('w-old', EventType.needRaised, at(400), {message: 'on an old task'}, 'cli'),
	];
	return {
		host,
		recentTasks: [busy, quiet, success, answered, failed, lone],
		needs,
		needTasks: [task('w-old', {status: 'done', exitCode: 0, endedAt: at(300), title: 'old work', createdAt: at(500)})],
		gateEvents,
		viewTasks: [busy, quiet, success, answered, failed, lone],
		statusCounts: counts({running: 2, failed: 3, done: 1 + offset}),
	};
}

const ALPHA: RowsHost = {id: 'a1', label: 'alpha', synced: {lastSyncedAt: NOW - MIN, lastSeq: 9}};
const BETA: RowsHost = {id: 'b2', label: 'beta', synced: {lastSyncedAt: NOW - 2 * MIN, lastSeq: 7}};

/** A fleet snapshot as a local one reads: no hosts list, no host on gate entries. */
function unmarked(snapshot: Snapshot): Snapshot {
	const strip = <T extends object>(entries: readonly T[]) => entries.map(({host: _host, ...rest}: T & {host?: unknown}) => rest);
	const {hosts: _hosts, ...rest} = snapshot;
	return {
		...rest,
		verdicts: strip(snapshot.verdicts) as Snapshot['verdicts'],
		effects: strip(snapshot.effects) as Snapshot['effects'],
		disagreements: strip(snapshot.disagreements) as Snapshot['disagreements'],
	};
}

/** A fleet board's round as a local board's: board keys back to ids, queue entries without their host. */
function unkeyed(round: BoardRound, label: string): Omit<BoardRound, 'orderRefs'> {
	const id = (key: string) => key.replace(`${label}/`, '');
	return {
		queue: {
			...round.queue,
			lanes: round.queue.lanes.map(lane => ({...lane, items: lane.items.map(({host: _host, ...item}) => item)})),
		},
		verdicts: round.verdicts.map(entry => ({...entry, taskId: id(entry.taskId)})),
		orders: {
			...round.orders,
			records: round.orders.records.map(order => ({...order, id: id(order.id), workerTasks: order.workerTasks.map(id)})),
		},
		decisions: round.decisions,
		contracts: round.contracts.map(({host: _host, ...contract}) => contract),
	};
}

describe('the read port: one host', () => {
	const rows = busyHost(ALPHA);

	it('computes the queue from the rows: a later success answers a failure, a need answered by its session goes, one raised by hand stays', () => {
		const queue = hostQueue(rows, hostGatesOf(rows.gateEvents), NOW);
		const lane = (name: string) => queue.lanes.find(each => each.name === name)?.items.map(item => item.taskId);
		expect(lane('failed')).toEqual(['w-lone']);
		expect(lane('needs')).toEqual(['w-old', 'c-quiet', 'need-1']);
		expect(lane('reviews')).toEqual(['w-fail']);
		expect(lane('disagreements')).toEqual(['m-1']);
		expect(lane('waiting')).toEqual(['o-1']);
		// One entry a task: w-fail's newest signal is its review; w-answered's failure was answered by w-ok in /other
		expect(queue.total).toBe(7);
	});

	it('makes the same snapshot as a fleet of one host, but for the hosts list and the host on each gate entry', () => {
		const query = {now: NOW, since: NOW - 24 * 60 * MIN};
		const local = snapshotOf([rows], {...query, isFleet: false});
		const fleet = snapshotOf([rows], {...query, isFleet: true});
		expect(local.verdicts.length * local.effects.length * local.disagreements.length * local.queue.total).toBeGreaterThan(0);
		expect(unmarked(fleet)).toEqual(local);
		expect(fleet.hosts).toEqual([{name: 'alpha', id: 'a1', lastSyncedAt: new Date(NOW - MIN).toISOString(), lastSeq: 9}]);
		expect(
			new Set([...fleet.verdicts, ...fleet.effects, ...fleet.disagreements].map(entry => (entry as {host?: string}).host)),
		).toEqual(new Set(['alpha']));
		expect(new Set([...local.tasks, ...local.queue.lanes.flatMap(lane => lane.items)].map(entry => entry.host))).toEqual(
			new Set(['alpha']),
		);
	});

	it('makes the same board round as a fleet board of one host, but for the board keys', () => {
		const query = {now: NOW, windowMs: 24 * 60 * MIN};
		const local = boardRound([rows], {...query, isFleet: false});
		const fleet = boardRound([rows], {...query, isFleet: true});
		expect(local.verdicts.length * local.orders.records.length * local.queue.total).toBeGreaterThan(0);
		expect(fleet.verdicts.map(entry => entry.taskId)).toEqual(['alpha/w-fail']);
		expect([...fleet.orderRefs.values()]).toEqual([{key: 'alpha/o-1', id: 'o-1', host: ALPHA}]);
		const {orderRefs: _refs, ...localRest} = local;
		expect(unkeyed(fleet, 'alpha')).toEqual(localRest);
	});

	it('refuses a local read of several hosts: a local ledger is one host', () => {
		expect(() => snapshotOf([rows, busyHost(BETA)], {now: NOW, since: null, isFleet: false})).toThrow(/one host/);
		expect(() => boardRound([], {now: NOW, windowMs: MIN, isFleet: false})).toThrow(/one host/);
	});
});

describe('the read port: several hosts', () => {
	const hosts = [busyHost(ALPHA), busyHost(BETA, 30_000)];
	const snapshot = snapshotOf(hosts, {now: NOW, since: null, isFleet: true});

	it('lists tasks newest first, each with its host, and adds the counts up', () => {
		expect(snapshot.tasks.slice(0, 4).map(entry => [entry.host, entry.id])).toEqual([
			['beta', 'c-busy'],
			['alpha', 'c-busy'],
			['beta', 'c-quiet'],
			['alpha', 'c-quiet'],
		]);
		expect(snapshot.counts).toMatchObject({running: 4, failed: 6, done: 2 + 30_000});
	});

	it('merges the queue oldest waiting first, five a lane, and the gates as each list reads', () => {
		const needs = snapshot.queue.lanes.find(lane => lane.name === 'needs');
		expect(needs?.total).toBe(6);
		expect(needs?.items.map(item => [item.host, item.taskId])).toEqual([
			['alpha', 'w-old'],
			['beta', 'w-old'],
			['alpha', 'c-quiet'],
			['beta', 'c-quiet'],
			['alpha', 'need-1'],
		]);
		expect(snapshot.verdicts.map(entry => (entry as {host?: string}).host)).toEqual(['beta', 'alpha']);
		expect(snapshot.effects.map(entry => (entry as {host?: string}).host)).toEqual(['alpha', 'beta']);
		expect(snapshot.disagreements.map(entry => (entry as {host?: string}).host)).toEqual(['beta', 'alpha']);
		expect(snapshot.hosts?.map(host => host.name)).toEqual(['alpha', 'beta']);
	});

	it("keys a fleet board's ids by host, and lists the reviews newest first across hosts", () => {
		const round = boardRound(hosts, {now: NOW, windowMs: 24 * 60 * MIN, isFleet: true});
		expect(round.verdicts.map(entry => entry.taskId)).toEqual(['beta/w-fail', 'alpha/w-fail']);
		expect(round.orders.records.map(order => [order.id, order.workerTasks])).toEqual([
			['alpha/o-1', ['alpha/w-fail']],
			['beta/o-1', ['beta/w-fail']],
		]);
		expect(round.orderRefs.get('beta/o-1')?.host).toEqual(BETA);
	});
});

describe('the merges', () => {
	it("keep each list's own order, and give one list back as it was", () => {
		const compare = (a: number, b: number) => a - b;
		expect(mergeOrdered([[3, 1, 2]], compare)).toEqual([3, 1, 2]);
		expect(mergeOrdered([[1, 4, 9], [2, 3, 10], []], compare)).toEqual([1, 2, 3, 4, 9, 10]);
		// Entries of one list are never compared with each other
		expect(mergeOrdered([[5, 1], [3]], compare)).toEqual([3, 5, 1]);
		expect(mergeOrdered([], compare)).toEqual([]);
	});

	it('add the counts of every host', () => {
		expect(sumStatusCounts([counts({running: 1}), counts({running: 2, lost: 1})])).toMatchObject({running: 3, lost: 1, done: 0});
	});

	it("take a caller's tasks as the recent ones only when they cover the failed window", () => {
		expect(coversRecent(null, NOW)).toBe(true);
		expect(coversRecent(NOW - FAILED_WINDOW_MS, NOW)).toBe(true);
		expect(coversRecent(NOW - FAILED_WINDOW_MS + 1, NOW)).toBe(false);
		expect(isRecent(task('t', {endedAt: NOW - FAILED_WINDOW_MS}), NOW)).toBe(true);
		expect(isRecent(task('t', {endedAt: NOW - FAILED_WINDOW_MS - 1}), NOW)).toBe(false);
		expect(isRecent(task('t', {endedAt: null}), NOW)).toBe(true);
	});
});
