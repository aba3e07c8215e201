import {selectScreen, type ScreenView} from './screen.ts';
import type {BoardOptions} from './selectors.ts';
import {initialBoardState, reduceBoard, type BoardAction, type BoardState} from './state.ts';

/** The board's first read of its feed. */
export type OpeningRead = Omit<Extract<BoardAction, {type: 'ledger-read'}>, 'type'>;

type Size = {readonly width: number; readonly height: number};

/** The board as it opens: its state, and the first screen, drawn at `now` for a terminal of `size`. */
export type BoardOpening = {readonly state: BoardState; readonly screen: ScreenView; readonly now: number; readonly size: Size};

/**
 * The board as it opens: the first read, the cursor where the first screen puts it, and that
 * screen. The first frame is drawn from it before Ink loads (docs/board.md, "The first frame"),
 * and Ink's first frame from the same state and screen, so nothing moves when Ink takes over.
 */
export function openingBoard(read: OpeningRead, now: number, size: Size, options: BoardOptions): BoardOpening {
	const loaded = reduceBoard(initialBoardState(), {type: 'ledger-read', ...read});
	// Selecting the row the screen put the cursor on changes nothing the screen shows: that screen is the frame's.
	const screen = selectScreen(loaded, now, size, options);
	return {
		state: reduceBoard(loaded, {type: 'select', taskId: screen.selectedId, index: screen.selectedIndex}),
		screen,
		now,
		size,
	};
}
