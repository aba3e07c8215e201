import {useMemo} from 'react';
import {
	ControlRoomDispatchContext,
	ControlRoomStateContext,
	useControlRoom,
	type BoardAdapters,
} from '../hooks/use-control-room.ts';
import {BoardView} from './BoardView.tsx';

export type {BoardAdapters} from '../hooks/use-control-room.ts';

type Props = {readonly adapters: BoardAdapters};

/** The board: the container hook's state and dispatch in two contexts, and the view it draws. */
export function App({adapters}: Props) {
	const {state, screen, dispatch} = useControlRoom(adapters);
	const value = useMemo(() => ({state, screen}), [state, screen]);
	return (
		<ControlRoomDispatchContext.Provider value={dispatch}>
			<ControlRoomStateContext.Provider value={value}>
				<BoardView screen={screen} />
			</ControlRoomStateContext.Provider>
		</ControlRoomDispatchContext.Provider>
	);
}
