import {plainFrame, plainFrameText} from '../../components/plain-frame.ts';
import type {BoardAdapters} from '../../hooks/use-control-room.ts';
import {terminalSizeOf} from '../../hooks/terminal-size.ts';
import {openingBoard, type BoardOpening} from '../core/board/opening.ts';

/** Hides the cursor, as Ink does before its first frame. */
const HIDE_CURSOR = '\u001B[?25l';

/**
 * The board's first read and its first frame, drawn with the panels' view models and a plain
 * writer before React and Ink are loaded (docs/board.md, "The first frame"); Ink opens on the same
 * state and screen and draws the same cells over it. A screen the plain writer leaves to Ink is not
 * drawn here; the read is used all the same.
 */
export function drawFirstFrame(adapters: BoardAdapters, write: (text: string) => void): BoardOpening {
	const now = Date.now();
	const opening = openingBoard(adapters.feed.load(now), now, terminalSizeOf(process.stdout), adapters.options);
	const pieces = plainFrame(opening.screen, adapters.palette);
	if (pieces !== null) write(`${HIDE_CURSOR}${plainFrameText(pieces)}`);
	return opening;
}
