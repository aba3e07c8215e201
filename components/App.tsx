import {DEFAULT_COLORS} from '../src/core/board/palette.ts';
import {useControlRoom, type BoardAdapters} from '../hooks/use-control-room.ts';
import {BoardView} from './BoardView.tsx';
import {ThemeContext} from './theme.ts';

export type {BoardAdapters} from '../hooks/use-control-room.ts';

type Props = {readonly adapters: BoardAdapters};

/**
 * The board: the container hook's screen, drawn by the view in the colours in force (the one
 * context: the config file's `colors`, docs/config.md). The view takes the screen as a prop; no
 * component below reads state or dispatches by itself.
 */
export function App({adapters}: Props) {
	const {screen} = useControlRoom(adapters);
	return (
		<ThemeContext.Provider value={adapters.palette ?? DEFAULT_COLORS}>
			<BoardView screen={screen} />
		</ThemeContext.Provider>
	);
}
