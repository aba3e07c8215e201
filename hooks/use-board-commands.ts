import {useApp} from 'ink';
import {useCallback, type Dispatch} from 'react';
import {BoardCommand, type KeyBinding} from '../src/core/board/keymap.ts';
import type {ScreenView} from '../src/core/board/screen.ts';
import {stopBlockedReason} from '../src/core/board/selectors.ts';
import type {BoardAction, BoardState} from '../src/core/board/state.ts';
import type {BoardFeed} from '../src/ledger/board-feed.ts';

/** What a stop request came to, in one line for the status line. */
export type StopOutcome = {readonly isStopped: boolean; readonly message: string};

/** The exit status of `q`, and of Ctrl-C (128 + SIGINT, as a shell reports an interrupted program). */
export const QUIT_STATUS = 0;
export const INTERRUPT_STATUS = 130;

/** The actions that write: each one is an event on the ledger, through the same functions as the CLI. */
export type BoardActions = {
	readonly feed: BoardFeed;
	/** Stops a task (the function behind `controlroom stop`); absent when it is not available. */
	readonly stop?: (taskId: string) => Promise<StopOutcome>;
	/** Why `stop` is absent. */
	readonly stopUnavailable?: string;
};

/** The task a command is about: the one open, the Needs you entry under the cursor, or the selected row. */
function targetOf(state: BoardState, screen: ScreenView): string | null {
	switch (state.mode) {
		case 'timeline':
			return state.timeline?.taskId ?? null;
		case 'log':
			return state.log?.taskId ?? null;
		case 'queue':
			return screen.queueOrder[state.queueIndex]?.taskId ?? null;
		case 'list':
		case 'help':
		case 'confirm':
		case 'input':
			return screen.selectedId;
	}
}

/** Turns a key from the table into reducer actions and ledger writes. */
export function useBoardCommands(
	state: BoardState,
	screen: ScreenView,
	dispatch: Dispatch<BoardAction>,
	actions: BoardActions,
	refresh: () => void,
) {
	const {exit} = useApp();
	return useCallback(
		(binding: KeyBinding) => {
			const notify = (tone: 'ok' | 'warn' | 'error' | 'info', text: string) => dispatch({type: 'notify', notice: {tone, text}});
			if (binding.notBuilt) return notify('warn', `${binding.label}: ${binding.notBuilt}`);
			const queueItem = state.mode === 'queue' ? screen.queueOrder[state.queueIndex] : undefined;
			const taskId = targetOf(state, screen);
			const isScrolling = state.mode === 'timeline' || state.mode === 'log';
			const order = state.mode === 'queue' ? screen.queueOrder.map(item => item.taskId) : screen.order;
			const step = (delta: number): void =>
				dispatch(isScrolling ? {type: 'scroll', delta, max: screen.scrollMax} : {type: 'move', delta, order});
			const jump = (edge: 'first' | 'last'): void =>
				dispatch(isScrolling ? {type: 'scroll-to', edge, max: screen.scrollMax} : {type: 'move-to', edge, order});
			switch (binding.command) {
				case BoardCommand.down:
					return step(1);
				case BoardCommand.up:
					return step(-1);
				case BoardCommand.pageDown:
					return step(screen.pageSize);
				case BoardCommand.pageUp:
					return step(-screen.pageSize);
				case BoardCommand.top:
					return jump('first');
				case BoardCommand.bottom:
					return jump('last');
				case BoardCommand.focus:
					return dispatch({type: 'toggle-focus'});
				case BoardCommand.open:
					if (taskId === null) return notify('warn', 'no task selected');
					return dispatch({type: 'open-timeline', taskId, events: actions.feed.eventsOf(taskId)});
				case BoardCommand.log:
					if (taskId === null) return notify('warn', 'no task selected');
					return dispatch({type: 'open-log', taskId});
				case BoardCommand.back:
					if (state.mode === 'confirm') notify('info', 'stop cancelled');
					return dispatch({type: 'back'});
				case BoardCommand.help:
					return dispatch({type: 'toggle-help'});
				case BoardCommand.quit:
					return exit(QUIT_STATUS);
				case BoardCommand.interrupt:
					return exit(INTERRUPT_STATUS);
				case BoardCommand.filter:
					return dispatch({type: 'start-prompt', kind: 'filter'});
				case BoardCommand.sort:
					return dispatch({type: 'cycle-sort'});
				case BoardCommand.submit:
					return dispatch({type: 'prompt-commit'});
				case BoardCommand.stop: {
					if (taskId === null) return notify('warn', 'no task selected');
					// Checked on the task as it is now, in every view: an ended or lost task is refused at once, never asked about.
					const task = state.tasks.get(taskId);
					const blocked = task ? stopBlockedReason(task) : 'it is not on the board';
					if (blocked) return notify('warn', `s: cannot stop ${taskId}: ${blocked}`);
					if (!actions.stop) return notify('warn', `s: ${actions.stopUnavailable ?? 'stop is not available'}`);
					return dispatch({type: 'ask-stop', taskId});
				}
				case BoardCommand.confirm: {
					const target = state.confirmTaskId;
					dispatch({type: 'back'});
					if (target === null || !actions.stop) return;
					// The cursor stays on the task it stopped while the task moves to RECENTLY ENDED.
					if (state.previousMode === 'list') dispatch({type: 'select', taskId: target, index: screen.selectedIndex});
					notify('info', `stopping ${target}…`);
					void actions.stop(target).then(
						outcome => {
							notify(outcome.isStopped ? 'ok' : 'warn', outcome.message);
							refresh();
						},
						(error: unknown) =>
							notify('error', `stop ${target} failed: ${error instanceof Error ? error.message : String(error)}`),
					);
					return;
				}
				case BoardCommand.cancel:
					notify('info', 'stop cancelled');
					return dispatch({type: 'back'});
				case BoardCommand.acknowledge: {
					if (!queueItem) return notify('warn', 'k: nothing in Needs you to acknowledge');
					actions.feed.acknowledge(queueItem.taskId, queueItem.at, Date.now());
					notify('ok', `acknowledged ${queueItem.taskId}`);
					return refresh();
				}
				case BoardCommand.approve:
				case BoardCommand.mark:
				case BoardCommand.sendBack:
					return notify('warn', `${binding.label}: not available`);
			}
		},
		[state, screen, dispatch, actions, refresh, exit],
	);
}
