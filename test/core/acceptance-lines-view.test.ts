import {describe, expect, it} from 'vitest';
import {acceptanceLinesView} from '../../src/core/board/acceptance-lines-view.ts';
import {EventType, newEvent, type EventDataOf, type EventTypeName, type LedgerEvent} from '../../src/core/events.ts';

const at = <T extends EventTypeName>(seq: number, type: T, data: EventDataOf<T>): LedgerEvent => ({
	...newEvent(type, data, {taskId: 'claim-1', at: seq * 1000, source: 'cli'}),
	seq,
});

const TAKEN = at(1, EventType.claimTaken, {
	holder: 'worker-1',
	checks: ['`npm test -- export` passes', '`make check` exits 0', 'the CSV header keeps its order'],
	acceptorTerms: {dana: {duty: 'product', lines: [1]}, lee: {duty: 'engineer', lines: [2, 3]}},
});
const HANDED_IN = at(2, EventType.claimHandedIn, {
	acceptor: 'lee',
	evidence: {
		after: [
			{check: 1, kind: 'tests', tests: {passed: 12, failed: 0}},
			{check: 2, kind: 'command', command: 'make check', exit_code: 0},
		],
	},
});

// The board's hand-in view (docs/board.md): each line's verdicts and evidence, and who owes what.
describe('the hand-in view, line by line', () => {
	it('shows each line with its evidence and every acceptor’s verdict, and who still owes which lines', () => {
		const view = acceptanceLinesView([
			TAKEN,
			HANDED_IN,
			at(3, EventType.workLineVerdict, {line: 1, verdict: 'met', by: 'dana'}),
			at(4, EventType.workLineVerdict, {line: 3, verdict: 'unmet', reason: 'status \u001b[31mfirst', by: 'lee'}),
		]);
		expect(view).toEqual([
			'waiting for lee: lines 2, 3',
			'1 ✓ met: dana · 12 passed, 0 failed · `npm test -- export` passes',
			'2 · owed: lee · make check: exit 0 · `make check` exits 0',
			'3 ✗ unmet: lee (status \\e[31mfirst) · no evidence · the CSV header keeps its order',
		]);
	});

	it('says accepted once every acceptor has, ignores verdicts of an earlier hand-in, and is empty before a hand-in', () => {
		expect(acceptanceLinesView([TAKEN])).toEqual([]);
		const earlier = at(0, EventType.workLineVerdict, {line: 2, verdict: 'met', by: 'lee'});
		const view = acceptanceLinesView([
			earlier,
			TAKEN,
			HANDED_IN,
			at(3, EventType.workLineVerdict, {line: 1, verdict: 'met', by: 'dana'}),
			at(4, EventType.workLineVerdict, {line: 2, verdict: 'met', by: 'lee'}),
			at(5, EventType.workLineVerdict, {line: 3, verdict: 'met', by: 'lee'}),
			at(5, EventType.workAccepted, {by: 'lee'}),
		]);
		expect(view[0]).toBe('accepted');
		expect(view.slice(1).every(line => line.includes('✓ met'))).toBe(true);
	});
});
