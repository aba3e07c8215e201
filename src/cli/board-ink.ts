import {render, type Instance} from 'ink';
import {createElement} from 'react';
import {App} from '../../components/App.tsx';
import {ClockProvider} from '../../components/ClockProvider.tsx';
import type {BoardAdapters} from '../../hooks/use-control-room.ts';
import {terminalSizeOf} from '../../hooks/terminal-size.ts';
import type {BoardOpening} from '../core/board/opening.ts';
import {shareInkCaches} from './ink-caches.ts';

/** Clears the screen, cursor at the top left. */
const CLEAR = '\u001B[2J\u001B[H';

/**
 * Ink takes the board over from its first frame (src/cli/first-frame.ts): it opens on the same
 * state and screen, so its first frame puts the same cells where they already are. Loaded after
 * that frame: React and Ink are most of the board's loading.
 */
export function renderBoard(adapters: BoardAdapters, opening?: BoardOpening, time?: () => number): Instance {
	// Lines that did not change since the last frame are not tokenized and measured again.
	shareInkCaches();
	// Resized while Ink loaded: Ink's first frame writes over the old one without clearing it.
	const size = terminalSizeOf(process.stdout);
	if (opening !== undefined && (size.width !== opening.size.width || size.height !== opening.size.height))
		process.stdout.write(CLEAR);
	const clock = {intervalMs: 1000, ...(time === undefined ? {} : {time}), children: createElement(App, {adapters, opening})};
	return render(createElement(ClockProvider, clock), {
		maxFps: 30,
		// Ctrl-C is a key in the board's table (exit status 130), not Ink's exit 0.
		exitOnCtrlC: false,
		patchConsole: true,
	});
}
