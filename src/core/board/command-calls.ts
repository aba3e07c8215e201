import {BoardCommand, keyWordsOf, type KeyWords} from './keymap.ts';
import {assertNever} from '../assert-never.ts';
import type {HeldEffectRef} from './effects-view.ts';
import type {Notice} from './state.ts';

/** What a stop request came to, in one line for the status line. */
export type StopOutcome = {
	readonly isStopped: boolean;
	readonly message: string;
	/** The stop was asked of the task's host (a fleet board) and is not done yet. */
	readonly isPending?: boolean;
};

/** What a send-back came to, in one line for the status line. */
export type SendBackOutcome = {readonly isSentBack: boolean; readonly message: string};

/** What approving held effects came to. */
export type ApprovalOutcome = {readonly isSuccess: boolean; readonly message: string};

/** What answering a question came to. */
export type DecideOutcome = {readonly isAnswered: boolean; readonly message: string};

/** What a jump to an agent's tmux pane came to (docs/tmux.md). */
export type JumpOutcome = {readonly isJumped: boolean; readonly message: string};

/** What a message to a running agent came to (docs/messages.md). */
export type MessageOutcome = {readonly isSent: boolean; readonly message: string};

/** What sending an order's held effects back came to. */
export type OrderSendBackOutcome = {readonly message: string};

/** A write the board makes through its adapters (the same functions as the CLI), and its target. */
export type BoardCall =
	| {readonly kind: 'stop'; readonly taskId: string}
	| {readonly kind: 'send-back'; readonly taskId: string; readonly reason: string}
	| {readonly kind: 'send-back-order'; readonly orderId: string; readonly reason: string}
	| {readonly kind: 'approve'; readonly refs: readonly HeldEffectRef[]}
	| {
			readonly kind: 'decide';
			readonly decisionId: string;
			readonly answer: 'allow' | 'deny';
			readonly reason: string | null;
			/** Tokens added to the budget, for a budget question allowed. */
			readonly headroom?: number;
	  }
	| {readonly kind: 'acknowledge'; readonly taskId: string; readonly signalAt: number; readonly now: number}
	| {readonly kind: 'jump'; readonly taskId: string}
	| {readonly kind: 'message'; readonly taskId: string; readonly text: string};

type Outcomes = {
	readonly stop: StopOutcome;
	readonly 'send-back': SendBackOutcome;
	readonly 'send-back-order': OrderSendBackOutcome;
	readonly approve: ApprovalOutcome;
	readonly decide: DecideOutcome;
	/** What to tell the person when it is not plain; nothing when it is. */
	readonly acknowledge: string | void;
	readonly jump: JumpOutcome;
	readonly message: MessageOutcome;
};

/** A call with what its adapter answered. */
export type CallAnswer = {
	[K in BoardCall['kind']]: Extract<BoardCall, {readonly kind: K}> & {readonly outcome: Outcomes[K]};
}[BoardCall['kind']];

/** The status line while a call is under way, or null for a call that answers at once. */
export function callStartedNotice(call: BoardCall): Notice | null {
	switch (call.kind) {
		case 'stop':
			return {tone: 'info', text: `stopping ${call.taskId}…`};
		case 'send-back':
			return {tone: 'info', text: `sending ${call.taskId} back…`};
		case 'approve':
			return {tone: 'info', text: `approving ${call.refs.length} held effect${call.refs.length === 1 ? '' : 's'}…`};
		case 'decide':
			return {
				tone: 'info',
				text: `${call.answer === 'allow' ? 'allowing' : 'denying'} ${call.decisionId}${call.headroom === undefined ? '' : ` (+${call.headroom} tokens)`}…`,
			};
		case 'send-back-order':
		case 'acknowledge':
		case 'jump':
		case 'message':
			return null;
		default:
			return assertNever(call);
	}
}

/** The status line once a call answered: the adapter's own words, in the tone of what happened. */
export function callAnsweredNotice(answer: CallAnswer, w: KeyWords = keyWordsOf()): Notice {
	switch (answer.kind) {
		case 'stop': {
			const {isStopped, isPending, message} = answer.outcome;
			return {tone: isStopped ? 'ok' : isPending ? 'info' : 'warn', text: message};
		}
		case 'send-back':
			return {tone: answer.outcome.isSentBack ? 'ok' : 'warn', text: answer.outcome.message};
		case 'send-back-order':
			return {tone: 'ok', text: answer.outcome.message};
		case 'approve':
			return {tone: answer.outcome.isSuccess ? 'ok' : 'error', text: answer.outcome.message};
		case 'decide':
			return {tone: answer.outcome.isAnswered ? 'ok' : 'warn', text: answer.outcome.message};
		case 'acknowledge':
			return {tone: 'ok', text: answer.outcome ?? `acknowledged ${answer.taskId}`};
		case 'jump':
			return {tone: answer.outcome.isJumped ? 'ok' : 'warn', text: `${w[BoardCommand.jump]}: ${answer.outcome.message}`};
		case 'message':
			return {tone: answer.outcome.isSent ? 'ok' : 'warn', text: `${w[BoardCommand.message]}: ${answer.outcome.message}`};
		default:
			return assertNever(answer);
	}
}

/** The status line when a call threw: what failed, and the error's own message (never its stack). */
export function callFailedNotice(call: BoardCall, error: unknown, w: KeyWords = keyWordsOf()): Notice {
	const why = error instanceof Error ? error.message : String(error);
	switch (call.kind) {
		case 'stop':
			return {tone: 'error', text: `stop ${call.taskId} failed: ${why}`};
		case 'send-back':
			return {tone: 'error', text: `send back ${call.taskId} failed: ${why}`};
		case 'send-back-order':
			return {tone: 'error', text: `${w[BoardCommand.sendBack]}: ${why}`};
		case 'approve':
			return {tone: 'error', text: `${w[BoardCommand.approve]}: ${why}`};
		case 'decide':
			return {
				tone: 'error',
				text: `${w[call.answer === 'allow' ? BoardCommand.approve : BoardCommand.sendBack]}: ${call.decisionId}: ${why}`,
			};
		case 'acknowledge':
			return {tone: 'error', text: `${w[BoardCommand.acknowledge]}: acknowledging ${call.taskId} failed: ${why}`};
		case 'jump':
			return {tone: 'error', text: `${w[BoardCommand.jump]}: ${call.taskId}: ${why}`};
		case 'message':
			return {tone: 'error', text: `${w[BoardCommand.message]}: ${call.taskId}: ${why}`};
		default:
			return assertNever(call);
	}
}
