import {describe, expect, it} from 'vitest';
import {formatStatus, staleText, statusJson, summaryFileText, type StatusSummary} from '../../src/core/status-summary.ts';

const counts = {needs: 3, decisions: 1, running: 2, stalled: 0, lost: 1};
/** Made at 00:53:20 UTC on 2026-11-30; its day (UTC here) ends at the next midnight. */
const summary: StatusSummary = {
	at: 1_796_000_000,
	...counts,
	costToday: null,
	dayEndsAt: Date.UTC(2026, 11, 1) / 1000,
};
const estimated = {amount: 1.5, currency: 'USD', isEstimated: true, isPartial: false};

describe('the status line summary', () => {
	it('fills the named fields and leaves other braces and text as written', () => {
		expect(
			formatStatus(summary, '#[fg=red]{needs}#[default] {decisions}? {running}▶ {lost}✗ {cost} {nope} {{needs}} {age}', 4),
		).toBe('#[fg=red]3#[default] 1? 2▶ 1✗ $— {nope} {3} 4');
		expect(formatStatus({...summary, costToday: estimated}, 'today {cost}', 4)).toBe('today ~$1.50');
	});

	it('says how old the summary is past 30 s, in s, m, then h', () => {
		expect(staleText(29)).toBe('');
		expect(staleText(30)).toBe(' (summary 30s old)');
		expect(staleText(600)).toBe(' (summary 10m old)');
		expect(staleText(3 * 3600)).toBe(' (summary 3h old)');
	});

	it('writes the file the shell entry reads, and the JSON both print', () => {
		expect(summaryFileText({...summary, costToday: {...estimated, amount: 1.2345678}})).toBe(
			'v=1\nat=1796000000\niso=2026-11-30T00:53:20.000Z\nneeds=3\ndecisions=1\nrunning=2\nstalled=0\nlost=1\n' +
				'cost=1.234568\ncosttext=~$1.23\nestimated=1\npartial=0\nuntil=1796083200\n',
		);
		expect(summaryFileText(summary)).toContain('\ncost=\ncosttext=\nestimated=0\npartial=0\n');
		expect(JSON.parse(statusJson(summary, 7))).toEqual({
			v: 1,
			at: '2026-11-30T00:53:20.000Z',
			ageSeconds: 7,
			...counts,
			costToday: null,
			costTodayIsEstimated: false,
			costTodayIsPartial: false,
		});
		const partial = {amount: 0.0000004, currency: 'USD', isEstimated: false, isPartial: true};
		expect(JSON.parse(statusJson({...summary, costToday: partial}, 7))).toMatchObject({
			costToday: 0,
			costTodayIsEstimated: false,
			costTodayIsPartial: true,
		});
	});

	it("forgets the day's cost once that day is over: a summary from before midnight is not today's", () => {
		const withCost = {...summary, costToday: estimated};
		const toMidnight = withCost.dayEndsAt - withCost.at;
		expect(formatStatus(withCost, '{cost}', toMidnight - 1)).toBe('~$1.50');
		expect(formatStatus(withCost, '{cost}', toMidnight)).toBe('$—');
		expect(JSON.parse(statusJson(withCost, toMidnight))).toMatchObject({costToday: null, costTodayIsEstimated: false});
	});
});
