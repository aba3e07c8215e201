import {render} from 'ink-testing-library';
import {expect, it} from 'vitest';
import {BoardView} from '../../components/BoardView.tsx';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState} from '../../src/core/board/state.ts';
import {shareInkCaches} from '../../src/cli/ink-caches.ts';

it("shares Ink's line cache across frames, and every frame stays the same as drawn without it", () => {
	const frames = (): string[] =>
		[
			[160, 45],
			[80, 24],
		].map(
			([width, height]) =>
				render(
					<BoardView screen={selectScreen(initialBoardState(), 0, {width: width ?? 0, height: height ?? 0})} />,
				).lastFrame() ?? '',
		);
	const before = frames();
	// Ink still has its per-frame cache where the board looks for it (a new Ink fails here, not on screen).
	expect(shareInkCaches()).toBe(true);
	expect(frames()).toEqual(before);
	expect(frames()).toEqual(before);
	expect(shareInkCaches()).toBe(true);
});
