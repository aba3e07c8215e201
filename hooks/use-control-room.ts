import {useEffect, useReducer, useState, type Dispatch} from 'react';
import type {LogReader} from '../src/core/board/log-view.ts';
import {openingBoard, type BoardOpening} from '../src/core/board/opening.ts';
import {mouseAction} from '../src/core/board/mouse.ts';
import type {ScreenView} from '../src/core/board/screen.ts';
import type {NoticeSource} from '../src/core/board/notice-channel.ts';
import type {BoardOptions} from '../src/core/board/selectors.ts';
import type {Tone} from '../src/core/board/tone.ts';
import {reduceBoard, type BoardAction, type BoardState} from '../src/core/board/state.ts';
import {useBell} from './use-bell.ts';
import {useNotify, type Notify} from './use-notify.ts';
import {useBoardCommands, usePendingAnswer, useSendBack, type BoardActions} from './use-board-commands.ts';
import {useChainCheck, useIntegrityCheck} from './use-integrity-check.ts';
import {useSideNotices} from './use-side-notices.ts';
import {useInterval} from './use-interval.ts';
import {useKeymap} from './use-keymap.ts';
import {useMarkSeen} from './use-mark-seen.ts';
import {usePastMoment} from './use-past-moment.ts';
import type {PastBoardFeed} from '../src/ledger/board-feed.ts';
import {KEY_TABLE, keyTableFor} from '../src/core/board/keymap.ts';
import {useLedgerFeed, type FeedSource} from './use-ledger-feed.ts';
import {useScreen} from './use-screen.ts';
import {useTaskLog} from './use-task-log.ts';
import {useTerminalSize} from './use-terminal-size.ts';

/** Everything the board is wired to; built once by `controlroom board` (or a test). */
export type BoardAdapters = FeedSource &
	BoardActions & {
		readonly options: BoardOptions;
		/** A reconciler pass, run on its own timer so the board alone still tells the truth. */
		readonly reconcile?: () => unknown;
		readonly reconcileIntervalMs?: number;
		/** Reads a task's output or transcript for the log view (`l`). */
		readonly logs?: LogReader;
		/** Rings the terminal's bell when a new entry comes into Needs you; absent with `--no-bell`. */
		readonly bell?: () => void;
		/** Sends a notification for each entry new to Needs you (docs/tmux.md); absent with `--no-notify`. */
		readonly notify?: Notify;
		/** Checks the ledger file's integrity off the board's thread: the problems, empty when sound. */
		readonly checkIntegrity?: () => Promise<readonly string[]>;
		/** The board's own check of the hash chain: the break in one line, or null while it holds. */
		readonly checkChain?: () => Promise<string | null>;
		/** Notices of what runs beside the board (`--otel-port`'s receiver), for the notice line. */
		readonly notices?: NoticeSource;
		/** A board at a past moment (`board --at`): its feed, which steps through time; read-only. */
		readonly past?: PastBoardFeed;
		/** Each tone's colour: the config file's `colors` applied (src/core/board/palette.ts); the defaults when absent. */
		readonly palette?: Readonly<Record<Tone, string>>;
	};

/** The board's state and the screen drawn from it. */
export type ControlRoomState = {readonly state: BoardState; readonly screen: ScreenView};

/**
 * The one container hook: owns the reducer (opened on the first read: the first frame's, when it
 * was drawn before Ink loaded), tails the ledger, runs the reconciler timer, builds the screen for
 * the terminal's size and handles the keys.
 */
export function useControlRoom(
	adapters: BoardAdapters,
	opening?: BoardOpening,
): ControlRoomState & {readonly dispatch: Dispatch<BoardAction>} {
	const size = useTerminalSize();
	// The cursor starts where the first screen puts it: selecting it in an effect drew the whole
	// first frame a second time, unchanged, while the board was starting.
	const [first] = useState(() => opening ?? openingBoard(adapters.feed.load(Date.now()), Date.now(), size, adapters.options));
	const [state, dispatch] = useReducer(reduceBoard, first.state);
	const [fromSeq] = useState(state.lastSeq);
	const {refresh} = useLedgerFeed(adapters, dispatch, fromSeq, state.timeline?.taskId ?? null);
	useInterval(adapters.reconcile, adapters.reconcileIntervalMs, error =>
		dispatch({
			type: 'notify',
			notice: {tone: 'error', text: `reconciler pass failed: ${error instanceof Error ? error.message : String(error)}`},
		}),
	);
	useIntegrityCheck(adapters.checkIntegrity, dispatch);
	useChainCheck(adapters.checkChain, dispatch);
	useSideNotices(adapters.notices, dispatch);
	useTaskLog(adapters.logs, state.log?.taskId ?? null, dispatch);
	useBell(state.bells, adapters.bell);
	useNotify(state.queue, adapters.notify);
	const past = usePastMoment(adapters.past, adapters.options, state.timeline?.taskId ?? null, dispatch);
	const screen = useScreen(state, size, past.options, first);
	// The cursor is where the screen drew it: pinned to that task, so it stays on it when rows
	// come, go or re-sort around it (and at the same place when its own row leaves the list).
	useEffect(() => {
		if (screen.selectedId === state.selectedId && screen.selectedIndex === state.selectedIndex) return;
		dispatch({type: 'select', taskId: screen.selectedId, index: screen.selectedIndex});
	}, [screen.selectedId, screen.selectedIndex, state.selectedId, state.selectedIndex]);
	const isReadOnly = adapters.options.isReadOnly === true;
	const onCommand = useBoardCommands(state, screen, dispatch, adapters, refresh, isReadOnly);
	useSendBack(state, dispatch, adapters, refresh, screen.keys, isReadOnly);
	usePendingAnswer(state, dispatch, adapters, refresh, screen.keys, isReadOnly);
	// Each command key says the person is at the board: the finished task under the cursor is then
	// seen. Text typed into a filter is not: the rows the cursor crosses while it narrows are not looked at.
	// Counted as state, so the render that draws a command's effect is the one that sees its count.
	const [presses, countPress] = useReducer((count: number) => count + 1, 0);
	useKeymap(
		state.mode,
		{
			onCommand: binding => {
				// A past board's stepping keys, and the keys that would act there (it says why not).
				if (past.take(binding)) return;
				countPress();
				onCommand(binding);
			},
			onEdit: edit => dispatch({type: 'prompt-edit', edit}),
			onMouse: report => {
				const action = mouseAction(screen, report, adapters.options.keyTable);
				if (action === null) return;
				countPress();
				if (action.kind === 'select') dispatch({type: 'select', taskId: action.taskId, index: action.index});
				// A past board answers a click on an acting key as it answers the key.
				else if (!past.take(action.binding)) onCommand(action.binding);
			},
		},
		keyTableFor(adapters.past !== undefined, adapters.options.keyTable ?? KEY_TABLE),
	);
	useMarkSeen(
		presses,
		screen.selectedId === null ? undefined : state.tasks.get(screen.selectedId),
		adapters.options.person,
		// A shared screen's looks are nobody's: a read-only board marks nothing seen.
		isReadOnly ? undefined : adapters.feed.markSeen,
	);
	return {state, screen, dispatch};
}
