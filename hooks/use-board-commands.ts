import {useApp} from 'ink';
import {useCallback, useEffect, type Dispatch} from 'react';
import {
	callAnsweredNotice,
	callFailedNotice,
	type ApprovalOutcome,
	type BoardCall,
	type CallAnswer,
	type DecideOutcome,
	type JumpOutcome,
	type MessageOutcome,
	type OrderSendBackOutcome,
	type SendBackOutcome,
	type StopOutcome,
} from '../src/core/board/command-calls.ts';
import {
	planBoardCommand,
	planPendingAnswer,
	planPendingSendBack,
	type BoardAbilities,
	type BoardPlan,
} from '../src/core/board/command-plan.ts';
import type {HeldEffectRef} from '../src/core/board/effects-view.ts';
import type {KeyBinding, KeyWords} from '../src/core/board/keymap.ts';
import type {ScreenView} from '../src/core/board/screen.ts';
import type {BoardAction, BoardState, Notice} from '../src/core/board/state.ts';
import type {BoardFeed} from '../src/ledger/board-feed.ts';
import {useClock} from './use-clock.ts';

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
	readonly approveEffects?: (refs: readonly HeldEffectRef[]) => Promise<ApprovalOutcome>;
	/**
	 * Sends an order's held effects back with a reason (the function behind `controlroom effects
	 * reject`); it answers at once on a local board, and once the request is written on a fleet board.
	 */
	readonly sendBackOrder?: (orderId: string, reason: string) => OrderSendBackOutcome | Promise<OrderSendBackOutcome>;
	/** Answers an agent's question (the function behind `controlroom decide`, docs/decisions.md). */
	readonly decide?: (
		decisionId: string,
		answer: 'allow' | 'deny',
		reason: string | null,
		headroom?: number,
	) => Promise<DecideOutcome>;
	/** Takes the person's tmux client to the task's pane (the function behind `controlroom jump`, docs/tmux.md). */
	readonly jump?: (taskId: string) => Promise<JumpOutcome>;
	/** A word to a running agent (the function behind `controlroom send`, docs/messages.md). */
	readonly message?: (taskId: string, text: string) => Promise<MessageOutcome>;
};

type Wiring = {
	readonly dispatch: Dispatch<BoardAction>;
	/** Each command's key in force, for the status line's words. */
	readonly words: KeyWords;
	readonly actions: BoardActions;
	readonly refresh: () => void;
	readonly exit: (status: number) => void;
};

function abilitiesOf(actions: BoardActions, isReadOnly: boolean): BoardAbilities {
	return {
		isReadOnly,
		canStop: actions.stop !== undefined,
		...(actions.stopUnavailable === undefined ? {} : {stopUnavailable: actions.stopUnavailable}),
		canSendBack: actions.sendBack !== undefined,
		canApprove: actions.approveEffects !== undefined,
		canSendBackOrder: actions.sendBackOrder !== undefined,
		canDecide: actions.decide !== undefined,
		canJump: actions.jump !== undefined,
		canMessage: actions.message !== undefined,
	};
}

function wired<F>(adapter: F | undefined, call: BoardCall): F {
	// The plan calls only what abilitiesOf found wired; this names the call if that ever breaks.
	if (adapter === undefined) throw new Error(`${call.kind} is not wired on this board`);
	return adapter;
}

/** Calls the adapter a plan names; a local board's answer may come at once, a fleet board's later. */
function perform(call: BoardCall, actions: BoardActions): CallAnswer | Promise<CallAnswer> {
	switch (call.kind) {
		case 'stop':
			return wired(actions.stop, call)(call.taskId).then(outcome => ({...call, outcome}));
		case 'send-back':
			return wired(actions.sendBack, call)(call.taskId, call.reason).then(outcome => ({...call, outcome}));
		case 'approve':
			return wired(actions.approveEffects, call)(call.refs).then(outcome => ({...call, outcome}));
		case 'send-back-order': {
			const answer = wired(actions.sendBackOrder, call)(call.orderId, call.reason);
			return answer instanceof Promise ? answer.then(outcome => ({...call, outcome})) : {...call, outcome: answer};
		}
		case 'acknowledge':
			return {...call, outcome: actions.feed.acknowledge(call.taskId, call.signalAt, call.now)};
		case 'decide':
			return wired(actions.decide, call)(call.decisionId, call.answer, call.reason, call.headroom).then(outcome => ({
				...call,
				outcome,
			}));
		case 'jump':
			return wired(actions.jump, call)(call.taskId).then(outcome => ({...call, outcome}));
		case 'message':
			return wired(actions.message, call)(call.taskId, call.text).then(outcome => ({...call, outcome}));
	}
}

/** Makes the call and shows what it came to; the board reads the ledger again either way. */
function runCall(call: BoardCall, {dispatch, actions, refresh, words}: Wiring): void {
	const settled = (notice: Notice) => {
		dispatch({type: 'notify', notice});
		refresh();
	};
	try {
		const answer = perform(call, actions);
		if (answer instanceof Promise)
			void answer.then(
				done => settled(callAnsweredNotice(done, words)),
				(error: unknown) => settled(callFailedNotice(call, error, words)),
			);
		else settled(callAnsweredNotice(answer, words));
	} catch (error) {
		settled(callFailedNotice(call, error, words));
	}
}

/** Dispatches a plan's actions, then carries out its effect or shows its refusal. */
function carryOut(plan: BoardPlan, wiring: Wiring): void {
	for (const action of plan.actions) wiring.dispatch(action);
	if (plan.kind === 'refuse') return wiring.dispatch({type: 'notify', notice: {tone: 'warn', text: plan.message}});
	const effect = plan.effect;
	if (!effect) return;
	switch (effect.kind) {
		case 'exit':
			return wiring.exit(effect.status);
		case 'open-timeline':
			return wiring.dispatch({type: 'open-timeline', taskId: effect.taskId, events: wiring.actions.feed.eventsOf(effect.taskId)});
		case 'call':
			return runCall(effect.call, wiring);
	}
}

/**
 * Carries out a send-back the reason prompt committed (the reducer holds it as pending, so the
 * reason is the whole text typed, even when the last keys and Enter came in one burst).
 */
export function useSendBack(
	state: BoardState,
	dispatch: Dispatch<BoardAction>,
	actions: BoardActions,
	refresh: () => void,
	words: KeyWords,
	isReadOnly = false,
) {
	const {exit} = useApp();
	const pending = state.pendingSendBack;
	useEffect(() => {
		const plan = planPendingSendBack({pendingSendBack: pending}, abilitiesOf(actions, isReadOnly), words);
		if (plan) carryOut(plan, {dispatch, actions, refresh, exit, words});
	}, [pending, dispatch, actions, refresh, exit, words, isReadOnly]);
}

/** Carries out an answer to a question the prompt committed (held by the reducer, so it is the whole text typed). */
export function usePendingAnswer(
	state: BoardState,
	dispatch: Dispatch<BoardAction>,
	actions: BoardActions,
	refresh: () => void,
	words: KeyWords,
	isReadOnly = false,
) {
	const {exit} = useApp();
	const {pendingAnswer, decisions} = state;
	useEffect(() => {
		const plan = planPendingAnswer({pendingAnswer, decisions}, abilitiesOf(actions, isReadOnly), words);
		if (plan) carryOut(plan, {dispatch, actions, refresh, exit, words});
	}, [pendingAnswer, decisions, dispatch, actions, refresh, exit, words, isReadOnly]);
}

/** Turns a key from the table into the plan core makes of it, and carries that out. */
export function useBoardCommands(
	state: BoardState,
	screen: ScreenView,
	dispatch: Dispatch<BoardAction>,
	actions: BoardActions,
	refresh: () => void,
	isReadOnly = false,
) {
	const {exit} = useApp();
	const clock = useClock();
	return useCallback(
		(binding: KeyBinding) =>
			carryOut(planBoardCommand(state, screen, binding, abilitiesOf(actions, isReadOnly), clock.now()), {
				dispatch,
				actions,
				refresh,
				exit,
				words: screen.keys,
			}),
		[state, screen, dispatch, actions, refresh, exit, clock, isReadOnly],
	);
}
