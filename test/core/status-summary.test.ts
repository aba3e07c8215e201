import {describe, expect, it} from 'vitest';
import {formatStatus, staleText, statusJson, summaryFileText, type StatusSummary} from '../../src/core/status-summary.ts';

const summary: StatusSummary = {at: 1_796_000_000, needs: 3, decisions: 1, running: 2, stalled: 0, lost: 1, costToday: null};

describe('the status line summary', () => {
	it('fills the named fields and leaves other braces and text as written', () => {
		expect(
			formatStatus(summary, '#[fg=red]{needs}#[default] {decisions}? {running}▶ {lost}✗ {cost} {nope} {{needs}} {age}', 4),
		).toBe('#[fg=red]3#[default] 1? 2▶ 1✗ — {nope} {3} 4');
	});

	it('says how old the summary is past 30 s, in s, m, then h', () => {
		expect(staleText(29)).toBe('');
		expect(staleText(30)).toBe(' (summary 30s old)');
		expect(staleText(600)).toBe(' (summary 10m old)');
		expect(staleText(3 * 3600)).toBe(' (summary 3h old)');
	});

	it('writes the file the shell entry reads, and the JSON both print', () => {
		expect(summaryFileText({...summary, costToday: 1.5})).toBe(
			'v=1\nat=1796000000\niso=2026-11-30T00:53:20.000Z\nneeds=3\ndecisions=1\nrunning=2\nstalled=0\nlost=1\ncost=1.50\n',
		);
		expect(JSON.parse(statusJson(summary, 7))).toEqual({
			v: 1,
			at: '2026-11-30T00:53:20.000Z',
			ageSeconds: 7,
			needs: 3,
			decisions: 1,
			running: 2,
			stalled: 0,
			lost: 1,
			costToday: null,
		});
	});
});
