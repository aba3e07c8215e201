import {describe, expect, it} from 'vitest';
import type {LedgerEvent, NewEvent} from '../../src/core/events.ts';
import {foldStats} from '../../src/core/stats/measures.ts';
import {needsYouSteps, sizeBetween} from '../../src/core/stats/needs-you-size.ts';
import {statsLines} from '../../src/core/stats/stats-text.ts';
import {weekLabel, weekStart} from '../../src/core/stats/week.ts';
import {event} from '../helpers/ledger.ts';

const HOUR = 3600_000;
/** Monday 30 November 2026, 00:00 UTC: the start of ISO week 2026-W49. */
const W49 = Date.UTC(2026, 10, 30);

/** Events as the ledger gives them back: numbered in order. */
function numbered(events: readonly NewEvent[]): LedgerEvent[] {
	return events.map((item, index) => ({...item, seq: index + 1}));
}

function verdict(taskId: string, kind: string, at: number): NewEvent {
	return event(taskId, 'review.verdict', {reviewId: `r-${taskId}`, round: 1, reviewer: 1, verdict: kind}, at);
}

describe('ISO weeks in UTC', () => {
	it('starts a week on Monday 00:00 UTC and labels it by the year of its Thursday', () => {
		expect(weekStart(Date.UTC(2026, 11, 3, 17))).toBe(W49);
		expect(weekStart(Date.UTC(2026, 10, 29, 23, 59))).toBe(W49 - 7 * 24 * HOUR);
		expect(weekLabel(W49)).toBe('2026-W49');
		// 29 December 2025 (a Monday) starts 2026-W01; 1 January 2027 (a Friday) is in 2026-W53.
		expect(weekLabel(weekStart(Date.UTC(2025, 11, 31)))).toBe('2026-W01');
		expect(weekLabel(weekStart(Date.UTC(2027, 0, 1)))).toBe('2026-W53');
	});
});

describe('the review measures', () => {
	it('counts verdicts per week, FIX per APPROVE and INVALID of the answers (STOPPED is no answer)', () => {
		const events = numbered([
			verdict('w-1', 'APPROVE', W49 - 2 * HOUR),
			verdict('w-2', 'FIX', W49 - HOUR),
			verdict('w-3', 'APPROVE', W49 + HOUR),
			verdict('w-4', 'FIX', W49 + 2 * HOUR),
			verdict('w-5', 'FIX', W49 + 3 * HOUR),
			verdict('w-6', 'FIX', W49 + 4 * HOUR),
			verdict('w-7', 'INVALID', W49 + 5 * HOUR),
			verdict('w-8', 'STOPPED', W49 + 6 * HOUR),
		]);
		const stats = foldStats([{hostId: 'h', events}], null, W49 + 24 * HOUR);
		expect(stats.verdicts).toEqual({approve: 2, fix: 4, invalid: 1, stopped: 1, fixPerApprove: 2, invalidShare: 1 / 7});
		expect(
			stats.weeks.map(week => [week.week, week.approve, week.fix, week.invalid, week.fixPerApprove, week.invalidShare]),
		).toEqual([
			['2026-W48', 1, 1, 0, 1, 0],
			['2026-W49', 1, 3, 1, 3, 0.2],
		]);
		const lately = foldStats([{hostId: 'h', events}], W49, W49 + 24 * HOUR);
		expect([lately.verdicts.approve, lately.verdicts.fix, lately.weeks.length]).toEqual([1, 3, 1]);
	});

	it('says null, not 0, for a ratio with nothing to divide by', () => {
		const stats = foldStats([{hostId: 'h', events: numbered([verdict('w-1', 'FIX', W49)])}], null, W49 + HOUR);
		expect(stats.verdicts.fixPerApprove).toBeNull();
		expect(stats.verdicts.invalidShare).toBe(0);
		expect(foldStats([], null, W49).verdicts.invalidShare).toBeNull();
	});
});

describe('Needs you over time', () => {
	it('opens an entry a task, closes it on an acknowledgement, a send-back or an acceptance, and a failure after its window', () => {
		const events = numbered([
			...Array.from({length: 6}, (_, index) =>
				event(`need-${index}`, 'need.raised', {message: 'look', kind: 'person', lane: 'needs'}, W49 + index * HOUR),
			),
			// The same task again: still one entry.
			event('need-0', 'need.raised', {message: 'again', kind: 'person', lane: 'needs'}, W49 + 5 * HOUR + 1),
			event('w-9', 'task.failed', {error: 'boom'}, W49 + 6 * HOUR),
			event('need-1', 'queue.acknowledged', {signalAt: W49 + HOUR}, W49 + 7 * HOUR),
			event('need-2', 'work.sent_back', {reason: 'no'}, W49 + 7 * HOUR + 30 * 60_000),
			// A session's own notice is answered by its activity, which is not read: left out.
			{...event('s-1', 'need.raised', {message: 'permission', kind: 'agent'}, W49 + 7 * HOUR), source: 'claude'},
		]);
		const steps = needsYouSteps(events.map(item => ({hostId: 'h', event: item})));
		// Six at 5h, seven at 6h (the failure), six at 7h, five at 7h30 (over five from 5h to 7h30); the failure leaves at 8h.
		expect(sizeBetween(steps, W49, W49 + 10 * HOUR)).toEqual({max: 7, overCapMs: 2.5 * HOUR});
		expect(steps.at(-1)).toEqual({at: W49 + 8 * HOUR, size: 4});
		const stats = foldStats([{hostId: 'h', events}], W49 + 5.5 * HOUR, W49 + 10 * HOUR);
		expect(stats.needsYou).toEqual({max: 7, overFiveMs: 2 * HOUR, now: 4});
		expect(stats.weeks[0]?.needsYouMax).toBe(7);
	});

	it('keeps the same task id of two hosts apart', () => {
		const need = event('w-1', 'need.raised', {message: 'look', kind: 'person'}, W49);
		const stats = foldStats(
			[
				{hostId: 'a', events: numbered([need])},
				{hostId: 'b', events: numbered([need])},
			],
			null,
			W49 + HOUR,
		);
		expect(stats.needsYou.max).toBe(2);
	});
});

describe('handoffs and passes back', () => {
	it('counts claims taken, those that came back asking for missing information, and passes back per contract', () => {
		const events = numbered([
			event('claim-a-1', 'claim.taken', {contractKey: 'a', holder: 'kim'}, W49),
			event('claim-b-1', 'claim.taken', {contractKey: 'b', holder: 'kim'}, W49 + 1),
			event('claim-b-1', 'need.raised', {message: 'which table?', kind: 'missing_info', actor: 'kim'}, W49 + 2),
			event('claim-b-1', 'need.raised', {message: 'and the column?', kind: 'missing_info', actor: 'kim'}, W49 + 3),
			event('claim-b-1', 'claim.passed_back', {reason: 'no schema'}, W49 + 4),
			event('claim-b-2', 'claim.taken', {contractKey: 'b', holder: 'lee'}, W49 + 5),
			event('claim-b-2', 'claim.passed_back', {reason: 'still none'}, W49 + 6),
			event('claim-a-1', 'need.raised', {message: 'which port?', kind: 'agent', actor: 'kim'}, W49 + 7),
			event('need-77', 'need.raised', {message: 'where is the spec?', kind: 'missing_info'}, W49 + 8),
		]);
		const stats = foldStats([{hostId: 'h', events}], null, W49 + HOUR);
		expect(stats.handoffs).toEqual({taken: 3, cameBackMissingInfo: 1});
		expect(stats.missingInfoNeeds).toBe(3);
		expect(stats.passesBack).toEqual({contracts: 2, total: 2, max: 2, byContract: [{contract: 'b', passes: 2}]});
	});
});

describe('the measures as lines', () => {
	it('fits 80 columns inside a border and shows what the JSON holds', () => {
		const events = numbered([
			verdict('w-1', 'APPROVE', W49),
			verdict('w-2', 'FIX', W49 + 1),
			verdict('w-3', 'INVALID', W49 + 2),
			event('claim-a-1', 'claim.taken', {contractKey: 'a'}, W49 + 3),
			event('claim-a-1', 'need.raised', {message: 'which?', kind: 'missing_info'}, W49 + 4),
		]);
		const lines = statsLines(foldStats([{hostId: 'h', events}], null, W49 + 30 * 24 * HOUR), {weeks: 2});
		expect(Math.max(...lines.slice(0, 4).map(line => line.length))).toBeLessThanOrEqual(76);
		expect(lines[0]).toBe('WEEK      APPROVE  FIX  INVALID  STOP  FIX/APPROVE  INVALID%  Q MAX  Q>5 FOR');
		expect(lines).toContain('(3 earlier weeks in controlroom stats)');
		expect(lines.find(line => line.startsWith('total'))).toMatch(/^total +1 +1 +1 +0 +1\.00 +33% +1 +0$/);
		expect(lines).toContain('Handoffs: 1 taken, 1 came back for missing information (1 missing_info need)');
	});
});
