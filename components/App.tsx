import {useControlRoom, type BoardAdapters} from '../hooks/use-control-room.ts';
import {BoardView} from './BoardView.tsx';

export type {BoardAdapters} from '../hooks/use-control-room.ts';

type Props = {readonly adapters: BoardAdapters};

/**
 * The board: the container hook's screen, drawn by the view. The view takes the screen as a prop;
 * no component below reads state or dispatches by itself, so no context is provided for them.
 */
export function App({adapters}: Props) {
	const {screen} = useControlRoom(adapters);
	return <BoardView screen={screen} />;
}
