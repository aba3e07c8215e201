import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EventType, newEvent} from '../../src/core/events.ts';
import {isWholeTask} from '../../src/core/read-port/host-rows.ts';
import {printSnapshotText} from '../../src/cli/print-snapshot.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import type {LedgerReader} from '../../src/ledger/reader.ts';
import {readSnapshot} from '../../src/ledger/snapshot-query.ts';
import {scratchDir} from '../helpers/cli.ts';

let ledger: Ledger | undefined;
afterEach(() => {
	ledger?.close();
	ledger = undefined;
});

const HOUR = 3_600_000;
const sonnet = (input: number, output: number) => ({
	'claude-sonnet-4-5': {input, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 7, output, messages: 1},
});

/**
 * A session's helpers of every kind a folding snapshot meets: ended done (with tokens, spend, a
 * person's look, telemetry's exact cost, a reported cost), failed (a Needs-you entry that a later
 * helper's exit 0 answers), still running, a helper's helper, one whose parent ended outside the
 * window, one whose parent was merged, one stopped; beside a failed run in another folder.
 */
function buildLedger(now: number): Ledger {
	const opened = openLedger(join(scratchDir('cr-folded-'), 'ledger.db'));
	const at = (minutesAgo: number) => now - minutesAgo * 60_000;
	const write = (type: Parameters<typeof newEvent>[0], data: object, taskId: string, minutesAgo: number, source = 'claude') =>
		opened.writer.append([newEvent(type, data as never, {taskId, at: at(minutesAgo), source})]);
	const helper = (id: string, parentId: string, minutesAgo: number, cwd = '/repo/a') =>
		write(EventType.registered, {title: `helper ${id}`, source: 'claude-helper', parentId, cwd}, id, minutesAgo);
	write(EventType.registered, {title: 'fan out', cwd: '/repo/a', sessionId: 's-1'}, 'c-1', 50);
	write(EventType.started, {}, 'c-1', 50);
	helper('c-1.a', 'c-1', 49);
	write(EventType.tokensReported, {input: 1200, output: 340, byModel: sonnet(1200, 340)}, 'c-1.a', 48);
	helper('c-1.a.x', 'c-1.a', 47);
	write(EventType.tokensReported, {input: 10, output: 3, byModel: sonnet(10, 3)}, 'c-1.a.x', 46);
	write(EventType.ended, {reason: 'SubagentStop'}, 'c-1.a.x', 45);
	write(EventType.ended, {reason: 'SubagentStop'}, 'c-1.a', 44);
	write(EventType.seen, {by: 'ana'}, 'c-1.a', 43, 'board');
	helper('c-1.b', 'c-1', 42);
	write(EventType.failed, {error: 'tool crashed', exitCode: 3}, 'c-1.b', 41);
	helper('c-1.c', 'c-1', 40);
	write(
		EventType.telemetryRequest,
		{requestId: 'r-1', model: 'claude-sonnet-4-5', input: 5, output: 2, costUsd: 0.006286},
		'c-1.c',
		39,
	);
	write(
		EventType.telemetryRequest,
		{requestId: 'r-2', model: 'claude-sonnet-4-5', input: 5, output: 2, costUsd: 0.006286},
		'c-1.c',
		38,
	);
	write(EventType.costReported, {amount: 0.25, currency: 'USD'}, 'c-1.c', 37);
	write(EventType.ended, {reason: 'SubagentStop'}, 'c-1.c', 36);
	helper('c-1.d', 'c-1', 35);
	write(EventType.exited, {exitCode: 0, signal: null}, 'c-1.d', 30);
	helper('c-1.e', 'c-1', 29);
	write(EventType.stopped, {signal: 'SIGTERM'}, 'c-1.e', 28);
	helper('c-1.f', 'c-1', 5);
	// A session that ended two days ago, with a helper that ended within the day.
	write(EventType.registered, {title: 'old session', cwd: '/repo/b'}, 'c-2', 3000);
	write(EventType.exited, {exitCode: 0, signal: null}, 'c-2', 2900);
	helper('c-2.a', 'c-2', 2899, '/repo/b');
	write(EventType.ended, {reason: 'SubagentStop'}, 'c-2.a', 20);
	// A row merged into another, with a helper of its own.
	write(EventType.registered, {title: 'merged row', cwd: '/repo/c'}, 'c-3', 19);
	helper('c-3.a', 'c-3', 18, '/repo/c');
	write(EventType.ended, {reason: 'SubagentStop'}, 'c-3.a', 17);
	write(EventType.merged, {into: 'c-1', reason: 'same session'}, 'c-3', 16);
	write(EventType.registered, {title: 'lint', cwd: '/repo/d'}, 'w-1', 15, 'wrapper');
	write(EventType.exited, {exitCode: 2, signal: null}, 'w-1', 14, 'wrapper');
	return opened;
}

/** The same reader, reading every task of the window whole: what the snapshot read before helpers were folded in SQL. */
const wholeReader = (reader: LedgerReader): LedgerReader => ({...reader, tasksForFoldedView: reader.tasksForView});

describe('a folding snapshot reads ended helpers as their few fields', () => {
	it('gives the same snapshot, text and object, as reading every task whole, with and without a window', () => {
		const now = Date.now();
		ledger = buildLedger(now);
		for (const windowMs of [24 * HOUR, null, 10 * 60_000]) {
			const query = {now, windowMs, stallSeconds: 600, host: 'here', person: 'ana', foldHelpers: true};
			const folded = readSnapshot(ledger.reader, query);
			const whole = readSnapshot(wholeReader(ledger.reader), query);
			expect(folded).toEqual(whole);
			expect(printSnapshotText(folded, {width: 160})).toBe(printSnapshotText(whole, {width: 160}));
		}
		// The failed helper is answered by the later exit 0 in its folder: only the run that failed alone needs you.
		const text = printSnapshotText(readSnapshot(ledger.reader, {now, windowMs: 24 * HOUR, person: 'ana', foldHelpers: true}));
		expect(text).toMatch(/needs you 1 .*\n/);
		expect(text).toMatch(/w-1 +waiting/);
		expect(text).toMatch(/c-1 +▸ 7 helpers: 1 active, 6 ended · fan out/);
	});

	it('folds exactly the ended helpers whose parent is listed in the window, and reads the rest whole', () => {
		const now = Date.now();
		ledger = buildLedger(now);
		const foldedIds = (since: number | null) =>
			ledger!.reader
				.tasksForFoldedView(since)
				.filter(row => !isWholeTask(row))
				.map(row => row.id)
				.sort();
		expect(foldedIds(now - 24 * HOUR)).toEqual(['c-1.a', 'c-1.a.x', 'c-1.b', 'c-1.c', 'c-1.d', 'c-1.e']);
		// With every task listed the old session is listed too: its helper folds under it.
		expect(foldedIds(null)).toEqual(['c-1.a', 'c-1.a.x', 'c-1.b', 'c-1.c', 'c-1.d', 'c-1.e', 'c-2.a']);
		// The rows come in the order of the whole read, and a folded one holds what the whole task holds there.
		const whole = ledger.reader.tasksForView(null);
		const rows = ledger.reader.tasksForFoldedView(null);
		expect(rows.map(row => row.id)).toEqual(whole.map(task => task.id));
		const c = rows.find(row => row.id === 'c-1.c');
		const cWhole = whole.find(task => task.id === 'c-1.c');
		expect(c && !isWholeTask(c)).toBe(true);
		// A field the document lacks is null there, as the tree reads it (`?? null`).
		for (const field of ['tokens', 'telemetry', 'reportedCost', 'spend', 'status', 'endedAt', 'lastSeenAt', 'parentId'] as const)
			expect(c?.[field] ?? null).toEqual(cWhole?.[field] ?? null);
		expect(c?.telemetry?.costUsd).toBe(0.012572);
		expect(rows.find(row => row.id === 'c-1.a')?.seenBy).toEqual(whole.find(task => task.id === 'c-1.a')?.seenBy);
	});
});
