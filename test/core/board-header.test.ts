import {describe, expect, it} from 'vitest';
import {selectScreen} from '../../src/core/board/screen.ts';
import {ledgerHeaderLabel, selectHeader, selectLanes} from '../../src/core/board/selectors.ts';
import {initialBoardState, type BoardAction} from '../../src/core/board/state.ts';
import {FIXED_NOW} from '../helpers/board-fixture.ts';
import {fixtureBoardState, fixtureScreen} from '../helpers/board-state.ts';

describe("the board's header names the ledger it shows", () => {
	it('shows the ledger label whole when it fits', () => {
		const screen = selectScreen(
			initialBoardState(),
			FIXED_NOW,
			{width: 160, height: 40},
			{ledgerLabel: '~/.controlroom/ledger.db'},
		);
		expect(screen.ledger).toBe('~/.controlroom/ledger.db');
	});

	it('has no ledger label when the caller names none', () => {
		expect(selectScreen(initialBoardState(), FIXED_NOW, {width: 160, height: 40}).ledger).toBeNull();
	});

	it('cuts a long path in the middle at 120 columns, keeping the file name whole', () => {
		const long = '/home/someone/work/projects/a-rather-long-folder-name/and-another-one/ledger.db';
		const screen = selectScreen(initialBoardState(), FIXED_NOW, {width: 120, height: 24}, {ledgerLabel: long});
		expect(screen.ledger).not.toBeNull();
		const shown = screen.ledger ?? '';
		expect(shown.length).toBeLessThanOrEqual(26);
		expect(shown).toContain('…');
		expect(shown.endsWith('/ledger.db')).toBe(true);
		expect(shown.startsWith('/home')).toBe(true);
	});

	it('gives the counts the room first: at 80 columns every count and the Needs you total show, and the path gives way', () => {
		const long = '/home/someone/work/projects/a-rather-long-folder-name/and-another-one/ledger.db';
		const screen = selectScreen(initialBoardState(), FIXED_NOW, {width: 80, height: 24}, {ledgerLabel: long});
		expect(screen.header.counts).toBe('run 0 · stall 0 · lost 0 · untr 0 · ended 0 · needs 0');
		expect(screen.ledger).toBeNull();
		const wide = selectScreen(initialBoardState(), FIXED_NOW, {width: 160, height: 45}, {ledgerLabel: '/tmp/ledger.db'});
		expect(wide.ledger).toBe('/tmp/ledger.db');
	});

	it('never cuts below a readable minimum', () => {
		expect(ledgerHeaderLabel('/a/b/c/d/e/f/ledger.db', 2)).toHaveLength(5);
	});

	it('counts what each lane shows, with a filter in force too, at 160 and 80 columns', () => {
		for (const size of [
			{width: 160, height: 45},
			{width: 80, height: 24},
		]) {
			for (const actions of [
				[],
				[{type: 'start-prompt', kind: 'filter'}, {type: 'prompt-input', text: 'e'}, {type: 'prompt-commit'}],
			] as const) {
				const screen = fixtureScreen(size, ...(actions as readonly BoardAction[]));
				const header = new Map(
					screen.header.counts.split(' · ').map(part => [part.split(' ')[0], Number(part.split(' ').at(-1))]),
				);
				const lanes = selectLanes(fixtureBoardState(...(actions as readonly BoardAction[])).tasks.values(), FIXED_NOW, {
					filter: screen.filter ?? '',
				}).counts;
				const names =
					size.width < 100 ? ['run', 'stall', 'lost', 'untr', 'ended'] : ['running', 'stalled', 'lost', 'untracked', 'ended'];
				expect(names.map(name => header.get(name))).toEqual([
					lanes.running,
					lanes.stalled,
					lanes.lost,
					lanes.untracked,
					lanes.ended,
				]);
				expect(header.get('needs')).toBe(screen.queue.total);
			}
		}
	});
});

describe("the board's header counts unseen finished work", () => {
	it('adds unseen N only when there is some, whole at 160 columns and, packed tighter, at 80', () => {
		const counts = {running: 2, stalled: 1, lost: 1, untracked: 1, ended: 3};
		expect(selectHeader(counts, 2, 'newest', 160, 0, 0).counts).toBe(
			'running 2 · stalled 1 · lost 1 · untracked 1 · ended 3 · needs you 2',
		);
		expect(selectHeader(counts, 2, 'newest', 160, 0, 4).counts).toBe(
			'running 2 · stalled 1 · lost 1 · untracked 1 · ended 3 · needs you 2 · unseen 4',
		);
		// At 80 columns the usual short words, until an unseen count would push the sort order off.
		expect(selectHeader(counts, 2, 'newest', 80, 0, 0).counts).toBe('run 2 · stall 1 · lost 1 · untr 1 · ended 3 · needs 2');
		const narrow = selectHeader(counts, 2, 'newest', 80, 0, 4);
		expect(narrow.counts).toBe('run 2·stall 1·lost 1·untr 1·ended 3·needs 2·unseen 4');
		expect('controlroom '.length + narrow.counts.length + 2 + narrow.sort.length).toBeLessThanOrEqual(80);
	});
});
