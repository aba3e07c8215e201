import {useReducer, useState, type Dispatch} from 'react';
import type {ScreenView} from '../src/core/board/screen.ts';
import type {BoardOptions} from '../src/core/board/selectors.ts';
import {initialBoardState, reduceBoard, type BoardAction, type BoardState} from '../src/core/board/state.ts';
import {submitPrompt, useBoardCommands, useSendBack, type BoardActions} from './use-board-commands.ts';
import {useInterval} from './use-interval.ts';
import {useKeymap} from './use-keymap.ts';
import {useLedgerFeed, type FeedSource} from './use-ledger-feed.ts';
import {useScreen} from './use-screen.ts';
import {useTerminalSize} from './use-terminal-size.ts';

/** Everything the board is wired to; built once by `controlroom board` (or a test). */
export type BoardAdapters = FeedSource &
	BoardActions & {
		readonly options: BoardOptions;
		/** A reconciler pass, run on its own timer so the board alone still tells the truth. */
		readonly reconcile?: () => unknown;
		readonly reconcileIntervalMs?: number;
	};

/** The board's state and the screen drawn from it. */
export type ControlRoomState = {readonly state: BoardState; readonly screen: ScreenView};

/**
 * The one container hook: owns the reducer (first read before the first frame), tails the ledger,
 * runs the reconciler timer, builds the screen for the terminal's size and handles the keys.
 */
export function useControlRoom(adapters: BoardAdapters): ControlRoomState & {readonly dispatch: Dispatch<BoardAction>} {
	const [state, dispatch] = useReducer(reduceBoard, adapters.feed, feed =>
		reduceBoard(initialBoardState(), {type: 'ledger-read', ...feed.load(Date.now())}),
	);
	const [fromSeq] = useState(state.lastSeq);
	const size = useTerminalSize();
	const {refresh} = useLedgerFeed(adapters, dispatch, fromSeq, state.timeline?.taskId ?? null);
	useInterval(adapters.reconcile, adapters.reconcileIntervalMs, error =>
		dispatch({
			type: 'notify',
			notice: {tone: 'error', text: `reconciler pass failed: ${error instanceof Error ? error.message : String(error)}`},
		}),
	);
	const screen = useScreen(state, size, adapters.options);
	const onCommand = useBoardCommands(state, screen, dispatch, adapters, refresh);
	useSendBack(state, dispatch, adapters, refresh);
	useKeymap(state.mode, state.prompt?.text ?? '', {
		onCommand,
		onText: text => dispatch({type: 'prompt-input', text}),
		onSubmit: () => submitPrompt(state, dispatch, adapters, refresh),
	});
	return {state, screen, dispatch};
}
