import {describe, expect, it} from 'vitest';
import {citedPaths, planReviewPacket} from '../../src/core/plan-review/packet.ts';
import {decidePlanRound} from '../../src/core/plan-review/rounds.ts';

describe('the evidence a plan cites', () => {
	it.each([
		['See [limits](docs/limits.md) and [the bench](bench.txt#L3).', ['docs/limits.md', 'bench.txt']],
		['evidence: logs/run.txt\n- Evidence: data.csv', ['logs/run.txt', 'data.csv']],
		['[web](https://example.com/x) [anchor](#top) [mail](mailto:a@b)', []],
		['[a](x.md) then evidence: x.md again', ['x.md']],
		['evidence: later.md\n[first](first.md)', ['later.md', 'first.md']],
	])('%j cites %j', (plan, expected) => {
		expect(citedPaths(plan)).toEqual(expected);
	});
});

describe('the plan review rounds', () => {
	it('ends at APPROVE in any round', () => {
		expect(decidePlanRound({kind: 'APPROVE'}, 1, [])).toEqual({next: 'approved'});
		expect(decidePlanRound({kind: 'APPROVE'}, 2, ['x'])).toEqual({next: 'approved'});
	});

	it('goes to a second round with the fixes, then to a person with the fixes still open', () => {
		expect(decidePlanRound({kind: 'FIX', fixes: ['a', 'b']}, 1, [])).toEqual({next: 'another-round', openPoints: ['a', 'b']});
		expect(decidePlanRound({kind: 'FIX', fixes: ['b']}, 2, ['a', 'b'])).toEqual({
			next: 'escalate',
			openPoints: ['b'],
			reason: '1 point still open after 2 rounds',
		});
	});

	it('keeps the open points through an unreadable answer or a stopped reviewer, and names it when nothing was open', () => {
		expect(decidePlanRound({kind: 'INVALID', reason: 'line 1 is prose'}, 2, ['a'])).toEqual({
			next: 'escalate',
			openPoints: ['a'],
			reason: 'no APPROVE after 2 rounds (last answer INVALID)',
		});
		expect(decidePlanRound({kind: 'STOPPED', signal: 'SIGTERM'}, 1, [])).toEqual({
			next: 'another-round',
			openPoints: ['the reviewer was stopped (SIGTERM)'],
		});
	});
});

describe('the plan review packet', () => {
	it('gives each cited file once, for both plans, and fences text that holds fences', () => {
		const packet = planReviewPacket({
			plans: [
				{name: 'a.md', text: 'use ```code```'},
				{name: 'b.md', text: 'B'},
			],
			evidence: [
				{cited: 'x.md', citedBy: ['a.md', 'b.md'], text: 'X', problem: null, isCut: true},
				{cited: 'gone.md', citedBy: ['b.md'], text: null, problem: 'cited but missing', isCut: false},
			],
			round: 2,
			maxRounds: 2,
			openPoints: ['measure it'],
		});
		expect(packet).toContain('# Plan review, round 2 of 2');
		expect(packet).toContain('## Left open in round 1\n\n1. measure it');
		expect(packet).toContain('````\nuse ```code```\n````');
		expect(packet).toContain('### x.md (cited by a.md and b.md, cut to its start)');
		expect(packet).toContain('### gone.md (cited by b.md): cited but missing');
		expect(packet.match(/### x\.md/g)).toHaveLength(1);
	});
});
