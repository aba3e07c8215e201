import {describe, expect, it} from 'vitest';
import {retryDelayMs} from '../../src/core/backoff.ts';

describe('retryDelayMs', () => {
	it('waits nothing before the first failure', () => {
		expect(retryDelayMs(0)).toBe(0);
	});

	it('doubles from 0.5 s to 10 s, each pause between half its ceiling and the whole of it', () => {
		const ceilings = [500, 1000, 2000, 4000, 8000, 10_000, 10_000];
		ceilings.forEach((ceiling, index) => {
			expect(retryDelayMs(index + 1, undefined, () => 0)).toBe(ceiling / 2);
			expect(retryDelayMs(index + 1, undefined, () => 0.999_999)).toBe(ceiling);
		});
	});

	it('jitters: hosts that lost the same server do not all retry at the same moment', () => {
		const pauses = new Set(Array.from({length: 50}, () => retryDelayMs(3)));
		expect(pauses.size).toBeGreaterThan(10);
		for (const pause of pauses) expect(pause).toBeGreaterThanOrEqual(1000);
	});

	it('stays at the last pause however long the outage', () => {
		expect(retryDelayMs(10_000, undefined, () => 0.5)).toBe(7500);
	});
});
