import {useApp} from 'ink';
import {useCallback, useEffect, type Dispatch} from 'react';
import {heldKey, type HeldEffectRef} from '../src/core/board/effects-view.ts';
import {BoardCommand, type KeyBinding} from '../src/core/board/keymap.ts';
import {sendBackBlockedReason} from '../src/core/board/reviews-view.ts';
import type {ScreenView} from '../src/core/board/screen.ts';
import {stopBlockedReason} from '../src/core/board/selectors.ts';
import type {BoardAction, BoardState} from '../src/core/board/state.ts';
import type {BoardFeed} from '../src/ledger/board-feed.ts';

/** What a stop request came to, in one line for the status line. */
export type StopOutcome = {
	readonly isStopped: boolean;
	readonly message: string;
	/** The stop was asked of the task's host (a fleet board) and is not done yet. */
	readonly isPending?: boolean;
};

/** The exit status of `q`, and of Ctrl-C (128 + SIGINT, as a shell reports an interrupted program). */
export const QUIT_STATUS = 0;
export const INTERRUPT_STATUS = 130;
/** What a send-back came to, in one line for the status line. */
export type SendBackOutcome = {readonly isSentBack: boolean; readonly message: string};

/** The actions that write: each one is an event on the ledger, through the same functions as the CLI. */
export type BoardActions = {
	readonly feed: BoardFeed;
	/** Stops a task (the function behind `controlroom stop`); absent when it is not available. */
	readonly stop?: (taskId: string) => Promise<StopOutcome>;
	/** Why `stop` is absent. */
	readonly stopUnavailable?: string;
	/** Sends a task back with a reason (the function behind `controlroom send-back`). */
	readonly sendBack?: (taskId: string, reason: string) => Promise<SendBackOutcome>;
	/** Runs held effects once each (the function behind `controlroom effects approve`), per order. */
	readonly approveEffects?: (refs: readonly HeldEffectRef[]) => Promise<{readonly isSuccess: boolean; readonly message: string}>;
	/** Sends an order's held effects back with a reason (the function behind `controlroom effects reject`). */
	/** Answers at once on a local board; a fleet board's answer comes once the request is written. */
	readonly sendBackOrder?: (orderId: string, reason: string) => {readonly message: string} | Promise<{readonly message: string}>;
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
		case 'effects':
		case 'help':
		case 'confirm':
		case 'input':
			return screen.selectedId;
	}
}

/**
 * Carries out a send-back the reason prompt committed (the reducer holds it as pending, so the
 * reason is the whole text typed, even when the last keys and Enter came in one burst).
 */
export function useSendBack(state: BoardState, dispatch: Dispatch<BoardAction>, actions: BoardActions, refresh: () => void) {
	const pending = state.pendingSendBack;
	useEffect(() => {
		if (pending === null) return;
		dispatch({type: 'send-back-taken'});
		const notify = (tone: 'ok' | 'warn' | 'error' | 'info', text: string) => dispatch({type: 'notify', notice: {tone, text}});
		if (!actions.sendBack) return notify('warn', 'x: send back is not available here');
		notify('info', `sending ${pending.taskId} back…`);
		void actions.sendBack(pending.taskId, pending.reason).then(
			outcome => {
				notify(outcome.isSentBack ? 'ok' : 'warn', outcome.message);
				refresh();
			},
			(error: unknown) =>
				notify('error', `send back ${pending.taskId} failed: ${error instanceof Error ? error.message : String(error)}`),
		);
	}, [pending, dispatch, actions, refresh]);
}

type Notify = (tone: 'ok' | 'warn' | 'error' | 'info', text: string) => void;

/** Enter in a prompt: a filter applies; a reason with an order sends that order's held effects back. */
export function submitPrompt(
	state: BoardState,
	dispatch: Dispatch<BoardAction>,
	actions: BoardActions,
	refresh: () => void,
): void {
	const prompt = state.prompt;
	dispatch({type: 'prompt-commit'});
	if (prompt?.kind !== 'reason' || prompt.orderId === undefined) return;
	const notify: Notify = (tone, text) => dispatch({type: 'notify', notice: {tone, text}});
	const reason = prompt.text.trim();
	if (reason === '') return notify('warn', `x: not sent back: a reason is required (${prompt.orderId}'s worker reads it)`);
	if (!actions.sendBackOrder) return notify('warn', 'x: sending back is not available here');
	const failed = (error: unknown) => notify('error', `x: ${error instanceof Error ? error.message : String(error)}`);
	try {
		const answer = actions.sendBackOrder(prompt.orderId, reason);
		if (answer instanceof Promise) {
			void answer.then(({message}) => notify('ok', message), failed).finally(refresh);
			return;
		}
		notify('ok', answer.message);
	} catch (error) {
		failed(error);
	}
	refresh();
}

/** `a`: the marked held effects, else every held one, to confirm. */
function approvalTargets(state: BoardState, screen: ScreenView): HeldEffectRef[] {
	const marked = screen.effectOrder.filter(ref => state.marked.has(heldKey(ref)));
	return marked.length > 0 ? marked : [...screen.effectOrder];
}

function runApproval(refs: readonly HeldEffectRef[], actions: BoardActions, notify: Notify, refresh: () => void): void {
	if (!actions.approveEffects) return notify('warn', 'a: approving is not available here');
	notify('info', `approving ${refs.length} held effect${refs.length === 1 ? '' : 's'}…`);
	void actions.approveEffects(refs).then(
		outcome => {
			notify(outcome.isSuccess ? 'ok' : 'error', outcome.message);
			refresh();
		},
		(error: unknown) => {
			notify('error', `a: ${error instanceof Error ? error.message : String(error)}`);
			refresh();
		},
	);
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
			const notify: Notify = (tone, text) => dispatch({type: 'notify', notice: {tone, text}});
			if (binding.notBuilt) return notify('warn', `${binding.label}: ${binding.notBuilt}`);
			const queueItem = state.mode === 'queue' ? screen.queueOrder[state.queueIndex] : undefined;
			const heldEffect = state.mode === 'effects' ? screen.effectOrder[state.effectIndex] : undefined;
			const taskId = targetOf(state, screen);
			const isScrolling = state.mode === 'timeline' || state.mode === 'log';
			const order =
				state.mode === 'queue'
					? screen.queueOrder.map(item => item.taskId)
					: state.mode === 'effects'
						? screen.effectOrder.map(ref => ref.id)
						: screen.order;
			const step = (delta: number): void =>
				dispatch(isScrolling ? {type: 'scroll', delta, max: screen.scrollMax} : {type: 'move', delta, order});
			const jump = (edge: 'first' | 'last'): void =>
				dispatch(isScrolling ? {type: 'scroll-to', edge, max: screen.scrollMax} : {type: 'move-to', edge, order});
			const cancelled = (): void => {
				if (state.mode === 'confirm') notify('info', state.approval ? 'approval cancelled: nothing ran' : 'stop cancelled');
				if (state.mode === 'input' && state.promptTaskId !== null)
					notify('info', `x: cancelled; ${state.promptTaskId} was not sent back`);
			};
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
				case BoardCommand.open: {
					const openId = state.mode === 'effects' ? (heldEffect?.orderId ?? null) : taskId;
					if (openId === null) return notify('warn', state.mode === 'effects' ? 'no held effect selected' : 'no task selected');
					return dispatch({type: 'open-timeline', taskId: openId, events: actions.feed.eventsOf(openId)});
				}
				case BoardCommand.log:
					if (taskId === null) return notify('warn', 'no task selected');
					return dispatch({type: 'open-log', taskId});
				case BoardCommand.back:
					cancelled();
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
					return submitPrompt(state, dispatch, actions, refresh);
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
					const approval = state.approval;
					dispatch({type: 'back'});
					if (approval) return runApproval(approval, actions, notify, refresh);
					if (target === null || !actions.stop) return;
					// The cursor stays on the task it stopped while the task moves to RECENTLY ENDED.
					if (state.previousMode === 'list') dispatch({type: 'select', taskId: target, index: screen.selectedIndex});
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
					cancelled();
					return dispatch({type: 'back'});
				case BoardCommand.acknowledge: {
					if (!queueItem) return notify('warn', 'k: nothing in Needs you to acknowledge');
					const said = actions.feed.acknowledge(queueItem.taskId, queueItem.at, Date.now());
					notify('ok', said ?? `acknowledged ${queueItem.taskId}`);
					return refresh();
				}
				case BoardCommand.sendBack: {
					// In Held effects, x sends the order under the cursor back; elsewhere, the selected task.
					if (state.mode === 'effects') {
						if (!heldEffect) return notify('warn', 'x: no held order under the cursor');
						return dispatch({type: 'start-prompt', kind: 'reason', orderId: heldEffect.orderId});
					}
					if (taskId === null) return notify('warn', 'x: no task selected');
					const blocked = sendBackBlockedReason(state.tasks.get(taskId) ?? {id: taskId, status: 'done'}, state.queue);
					if (blocked) return notify('warn', `x: ${blocked}`);
					if (!actions.sendBack) return notify('warn', 'x: send back is not available here');
					return dispatch({type: 'start-prompt', kind: 'reason', taskId});
				}
				case BoardCommand.approve: {
					const refs = approvalTargets(state, screen);
					if (refs.length === 0) return notify('warn', 'a: no held effects to approve');
					return dispatch({type: 'ask-approve', refs});
				}
				case BoardCommand.mark:
					if (!heldEffect) return notify('warn', 'space: no held effect under the cursor');
					return dispatch({type: 'toggle-mark', ref: heldEffect});
			}
		},
		[state, screen, dispatch, actions, refresh, exit],
	);
}
