import {describe, expect, it} from 'vitest';
import {deriveHealth, isEnded, STATUSES} from '../../src/core/status.ts';

describe('deriveHealth', () => {
	it('is stalled once the last event is older than the threshold', () => {
		expect(deriveHealth('running', 0, 601_000)).toBe('stalled');
		expect(deriveHealth('running', 0, 600_000)).toBe('active');
		expect(deriveHealth('untracked', 0, 601_000, 600)).toBe('stalled');
	});

	it('has no health for statuses that cannot go quiet', () => {
		for (const status of STATUSES.filter(status => status !== 'running' && status !== 'untracked')) {
			expect(deriveHealth(status, 0, 10_000_000)).toBeNull();
		}
	});

	it('a later event flips a stalled task back to active', () => {
		expect(deriveHealth('running', 1_000_000, 1_000_500)).toBe('active');
	});

	it('knows which statuses have ended', () => {
		expect(STATUSES.filter(isEnded)).toEqual(['done', 'failed', 'stopped', 'lost', 'vanished', 'merged']);
	});
});
