import {BoardCommand, type KeyWords} from '../keymap.ts';
import type {ScreenView} from '../screen-view.ts';
import type {BoardPanel} from './panel.ts';

/**
 * Side by side, Needs you takes half and Reviews and Held effects a quarter each; while calls are
 * held, Held effects takes two fifths (Reviews one fifth), so a call's arguments can be read at
 * 160 columns (64 cells for `path="CHANGELOG.md" content="## 0.2.0…"`). One column between panels.
 */
function panelWidths(width: number, isHolding: boolean): ScreenView['panelWidths'] {
	const effects = Math.floor((width - 2) * (isHolding ? 0.4 : 0.25));
	const reviews = Math.floor((width - 2) * (isHolding ? 0.2 : 0.25));
	return {queue: width - effects - reviews - 2, reviews, effects};
}

/**
 * Held effects' title words: its keys while it has the focus; one line stacked, how to give it the
 * focus while it holds calls (a read-only board has no keys that act on them).
 */
function hintOf(keys: KeyWords, isFocused: boolean, isStackedHolding: boolean, isReadOnly: boolean): string {
	if (isReadOnly) return '';
	if (isFocused)
		return ` — ${keys[BoardCommand.mark]} marks, ${keys[BoardCommand.approve]} approves, ${keys[BoardCommand.sendBack]} sends back`;
	return isStackedHolding ? ` (${keys[BoardCommand.focus]} to act)` : '';
}

/** Held effects: held calls by work order, then recent outcomes; space marks, a approves, x sends back. */
export const HELD_EFFECTS: BoardPanel = {
	name: 'held-effects',
	commands: [BoardCommand.mark, BoardCommand.approve, BoardCommand.sendBack],
	view({state, width, held, band, isSideBySide, keys, options}) {
		const isFocused = state.mode === 'effects';
		const isEmpty = held.held.length === 0;
		const isReadOnly = options.isReadOnly === true;
		return {
			view: {
				isSideBySide,
				panelWidths: panelWidths(width, !isEmpty),
				effects: {
					lines: held.lines,
					heldCount: held.held.length,
					markedCount: held.markedCount,
					isFocused,
					height: isSideBySide ? band.height : band.effectsLines,
					hint: hintOf(keys, isFocused, !isEmpty && !isSideBySide, isReadOnly),
				},
				effectOrder: held.held,
			},
			keys: {
				off: isEmpty ? [BoardCommand.approve, BoardCommand.mark, ...(isFocused ? [BoardCommand.sendBack] : [])] : [],
			},
		};
	},
};
