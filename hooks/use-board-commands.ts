import {useApp} from 'ink';
import {useCallback, type Dispatch} from 'react';
import {BoardCommand, type KeyBinding} from '../src/core/board/keymap.ts';
import type {ScreenView} from '../src/core/board/screen.ts';
import type {BoardAction, BoardState} from '../src/core/board/state.ts';
import type {BoardFeed} from '../src/ledger/board-feed.ts';

/** What a stop request came to, in one line for the status line. */
export type StopOutcome = {
	readonly isStopped: boolean;
	readonly message: string;
	/** The stop was asked of the task's host (a fleet board) and is not done yet. */
	readonly isPending?: boolean;
};

/** The actions that write: each one is an event on the ledger, through the same functions as the CLI. */
export type BoardActions = {
	readonly feed: BoardFeed;
	/** Stops a task (the function behind `controlroom stop`); absent when it is not available. */
	readonly stop?: (taskId: string) => Promise<StopOutcome>;
	/** Why `stop` is absent. */
	readonly stopUnavailable?: string;
};

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
			const taskId =
				state.mode === 'timeline'
					? (state.timeline?.taskId ?? null)
					: state.mode === 'queue'
						? (queueItem?.taskId ?? null)
						: screen.selectedId;
			switch (binding.command) {
				case BoardCommand.down:
				case BoardCommand.up: {
					const order = state.mode === 'queue' ? screen.queueOrder.map(item => item.taskId) : screen.order;
					return dispatch({type: 'move', delta: binding.command === BoardCommand.down ? 1 : -1, order});
				}
				case BoardCommand.focus:
					return dispatch({type: 'toggle-focus'});
				case BoardCommand.open:
					if (taskId === null) return notify('warn', 'no task selected');
					return dispatch({type: 'open-timeline', taskId, events: actions.feed.eventsOf(taskId)});
				case BoardCommand.back:
					return dispatch({type: 'back'});
				case BoardCommand.help:
					return dispatch({type: 'toggle-help'});
				case BoardCommand.quit:
					return exit();
				case BoardCommand.filter:
					return dispatch({type: 'start-prompt', kind: 'filter'});
				case BoardCommand.stop: {
					const row = state.mode === 'timeline' && state.timeline ? state.tasks.get(state.timeline.taskId) : undefined;
					const blocked = row ? (row.pid === null ? 'its PID is unknown' : null) : screen.selected?.stopBlocked;
					if (taskId === null) return notify('warn', 'no task selected');
					if (blocked) return notify('warn', `s: cannot stop ${taskId}: ${blocked}`);
					if (!actions.stop) return notify('warn', `s: ${actions.stopUnavailable ?? 'stop is not available'}`);
					return dispatch({type: 'ask-stop', taskId});
				}
				case BoardCommand.confirm: {
					const target = state.confirmTaskId;
					dispatch({type: 'back'});
					if (target === null || !actions.stop) return;
					notify('info', `stopping ${target}…`);
					void actions.stop(target).then(
						outcome => {
							notify(outcome.isStopped ? 'ok' : outcome.isPending ? 'info' : 'warn', outcome.message);
							refresh();
						},
						(error: unknown) =>
							notify('error', `stop ${target} failed: ${error instanceof Error ? error.message : String(error)}`),
					);
					return;
				}
				case BoardCommand.cancel:
					if (state.mode === 'confirm') notify('info', 'stop cancelled');
					return dispatch({type: 'back'});
				case BoardCommand.acknowledge: {
					if (!queueItem) return notify('warn', 'k: nothing in Needs you to acknowledge');
					const said = actions.feed.acknowledge(queueItem.taskId, queueItem.at, Date.now());
					notify('ok', said ?? `acknowledged ${queueItem.taskId}`);
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
