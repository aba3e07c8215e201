import {DEFAULT_COLORS} from '../src/core/board/palette.ts';
import {useControlRoom, type BoardAdapters} from '../hooks/use-control-room.ts';
import type {BoardOpening} from '../src/core/board/opening.ts';
import {BoardView} from './BoardView.tsx';
import {ThemeContext} from './theme.ts';

export type {BoardAdapters} from '../hooks/use-control-room.ts';

type Props = {
	readonly adapters: BoardAdapters;
	/** The board as its first frame drew it before Ink loaded (src/cli/first-frame.ts); absent, the first read is made here. */
	readonly opening?: BoardOpening;
};

/**
 * The board: the container hook's screen, drawn by the view in the colours in force (the one
 * context: the config file's `colors`, docs/config.md). The view takes the screen as a prop; no
 * component below reads state or dispatches by itself.
 */
export function App({adapters, opening}: Props) {
	const {screen} = useControlRoom(adapters, opening);
	return (
		<ThemeContext.Provider value={adapters.palette ?? DEFAULT_COLORS}>
			<BoardView screen={screen} />
		</ThemeContext.Provider>
	);
}
