import {describe, expect, it} from 'vitest';
import {selectScreen} from '../../src/core/board/screen.ts';
import {ledgerHeaderLabel} from '../../src/core/board/selectors.ts';
import {initialBoardState} from '../../src/core/board/state.ts';
import {FIXED_NOW} from '../helpers/board-fixture.ts';

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
});
