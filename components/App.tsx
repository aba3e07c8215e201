import {useReducer, useState} from 'react';
import type {BoardOptions} from '../src/core/board/selectors.ts';
import {initialBoardState, reduceBoard} from '../src/core/board/state.ts';
import {useBoardCommands, type BoardActions} from '../hooks/use-board-commands.ts';
import {useInterval} from '../hooks/use-interval.ts';
import {useKeymap} from '../hooks/use-keymap.ts';
import {useLedgerFeed, type FeedSource} from '../hooks/use-ledger-feed.ts';
import {useScreen} from '../hooks/use-screen.ts';
import {useTerminalSize} from '../hooks/use-terminal-size.ts';
import {BoardView} from './BoardView.tsx';

/** Everything the board is wired to; built once by `controlroom board` (or a test). */
export type BoardAdapters = FeedSource &
	BoardActions & {
		readonly options: BoardOptions;
		/** A reconciler pass, run on its own timer so the board alone still tells the truth. */
		readonly reconcile?: () => unknown;
		readonly reconcileIntervalMs?: number;
	};

type Props = {readonly adapters: BoardAdapters};

/** The board's container: owns the reducer, connects the feed, the clock and the keys, renders BoardView. */
export function App({adapters}: Props) {
	// The first read happens before the first frame, so the board never flashes empty lanes.
	const [state, dispatch] = useReducer(reduceBoard, adapters.feed, feed =>
		reduceBoard(initialBoardState(), {type: 'ledger-read', ...feed.load(Date.now())}),
	);
	const [fromSeq] = useState(state.lastSeq);
	const size = useTerminalSize();
	const {refresh} = useLedgerFeed(adapters, dispatch, fromSeq, state.timeline?.taskId ?? null);
	useInterval(adapters.reconcile, adapters.reconcileIntervalMs, error =>
		dispatch({type: 'notify', notice: {tone: 'error', text: `reconciler pass failed: ${error instanceof Error ? error.message : String(error)}`}}),
	);
	const screen = useScreen(state, size, adapters.options);
	const onCommand = useBoardCommands(state, screen, dispatch, adapters, refresh);
	useKeymap(state.mode, state.prompt?.text ?? '', {
		onCommand,
		onText: text => dispatch({type: 'prompt-input', text}),
		onSubmit: () => dispatch({type: 'prompt-commit'}),
	});
	return <BoardView screen={screen} />;
}
