import {useControlRoom, type BoardAdapters} from '../hooks/use-control-room.ts';
import type {BoardOpening} from '../src/core/board/opening.ts';
import {BoardView} from './BoardView.tsx';

export type {BoardAdapters} from '../hooks/use-control-room.ts';

type Props = {
	readonly adapters: BoardAdapters;
	/** The board as its first frame drew it before Ink loaded (src/cli/first-frame.ts); absent, the first read is made here. */
	readonly opening?: BoardOpening;
};

/**
 * The board: the container hook's screen, drawn by the view. The view takes the screen as a prop;
 * no component below reads state or dispatches by itself, so no context is provided for them.
 */
export function App({adapters, opening}: Props) {
	const {screen} = useControlRoom(adapters, opening);
	return <BoardView screen={screen} />;
}
