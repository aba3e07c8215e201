import {renderToString} from 'ink';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {BoardView} from '../../components/BoardView.tsx';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard, type BoardState} from '../../src/core/board/state.ts';
import {newEvent, type NewEvent} from '../../src/core/events.ts';
import {createBoardFeed} from '../../src/ledger/board-feed.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {boardFixtureEvents} from '../helpers/board-fixture.ts';
import {scratchDir} from '../helpers/cli.ts';

// The board's stats panel (docs/stats.md): the figures of controlroom stats, read through the
// board's own feed, shown and hidden by its key, fitted to 80×24 and 160×45.

const ledgers: Ledger[] = [];
afterEach(() => {
	for (const ledger of ledgers.splice(0)) ledger.close();
});

const verdict = (taskId: string, kind: string, at: number): NewEvent =>
	newEvent('review.verdict', {reviewId: `r-${taskId}`, round: 1, reviewer: 1, verdict: kind}, {taskId, at, source: 'wrapper'});

function boardOf(events: NewEvent[], now: number): {ledger: Ledger; state: BoardState} {
	const ledger = openLedger(join(scratchDir('cr-stats-panel-'), 'ledger.db'));
	ledgers.push(ledger);
	ledger.writer.append([...boardFixtureEvents(now), ...events]);
	const state = reduceBoard(initialBoardState(), {type: 'ledger-read', ...createBoardFeed(ledger).load(now)});
	return {ledger, state};
}

const frame = (state: BoardState, now: number, size: {width: number; height: number}) =>
	renderToString(<BoardView screen={selectScreen(state, now, size)} />, {columns: size.width});

describe('the stats panel', () => {
	it('shows the figures after its key, hides them again, and fits 160×45 and 80×24', () => {
		const now = Date.now();
		const events = [
			verdict('w-1', 'APPROVE', now - 60_000),
			verdict('w-2', 'FIX', now - 50_000),
			verdict('w-3', 'FIX', now - 40_000),
			verdict('w-4', 'INVALID', now - 30_000),
			newEvent(
				'need.raised',
				{message: 'which table?', kind: 'missing_info', lane: 'needs'},
				{taskId: 'need-1', at: now - 20_000, source: 'cli'},
			),
		];
		const {state} = boardOf(events, now);
		expect(frame(state, now, {width: 160, height: 45})).not.toContain('IS THE PROCESS WORKING?');
		const shown = reduceBoard(state, {type: 'toggle-stats'});
		for (const size of [
			{width: 160, height: 45},
			{width: 80, height: 24},
		]) {
			const lines = frame(shown, now, size).split('\n');
			expect(lines.length, `${size.width}×${size.height}`).toBeLessThanOrEqual(size.height);
			expect(Math.max(...lines.map(line => line.length))).toBeLessThanOrEqual(size.width);
			expect(lines.some(line => line.startsWith('IS THE PROCESS WORKING?'))).toBe(true);
			expect(lines.find(line => line.startsWith('total'))).toMatch(/^total +1 +2 +1 +0 +2\.00 +25% +\d+ +0 *$/);
			// The fixture's own failures and needs are in Needs you beside the missing_info need.
			expect(
				lines.some(line => /^Needs you \(Q; needs, reviews, failures\): \d+ now, at most \d+, never over five$/.test(line)),
			).toBe(true);
		}
		expect(frame(shown, now, {width: 160, height: 45})).toContain(
			'Handoffs: 0 taken, 0 came back for missing information (1 missing_info need)',
		);
		expect(frame(reduceBoard(shown, {type: 'toggle-stats'}), now, {width: 160, height: 45})).not.toContain(
			'IS THE PROCESS WORKING?',
		);
	});

	it('takes new figures from the feed when an event they count arrives', () => {
		const now = Date.now();
		const {ledger, state} = boardOf([verdict('w-1', 'APPROVE', now - 60_000)], now);
		const feed = createBoardFeed(ledger);
		ledger.writer.append([verdict('w-2', 'INVALID', now - 1000)]);
		const batch = feed.poll(state.lastSeq, now);
		expect(batch?.stats?.verdicts).toMatchObject({approve: 1, invalid: 1, invalidShare: 0.5});
	});
});
