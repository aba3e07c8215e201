import {EventType} from '../../core/events.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {OVER_BUDGET_EXIT, signalExitCode} from '../../core/wrapper-outcome.ts';
import {watchLedger} from './hook-watch.ts';
import type {HeldQuestion, HoldOptions} from './hold-options.ts';
import type {WrapperOptions} from './options.ts';
import type {TaskLog} from './record.ts';
import type {SignalRelay} from './signals.ts';

/**
 * Exit code of a run stopped because the person denied a held call (`--on-deny stop`). Not 77:
 * that is every command's "an agent asked" (docs/cli.md), so a script reading 77 after `run`
 * would take a person's no for an agent's attempt. Beside run's own 125 (budget) and 127 (not
 * started), below the 128+N of signals.
 */
export const DENIED_EXIT = 122;

/** What follows a held run's exit: resume its session carrying an answer, or end the task. */
export type HeldNext =
	| {readonly kind: 'resume'; readonly session: string; readonly carried: string | null}
	| {readonly kind: 'end'; readonly exitCode: number}
	| {readonly kind: 'none'};

/** The variable a resumed agent's hold hook reads the carried answer from. */
export const CARRIED_ANSWER_ENV = 'CONTROLROOM_CARRIED_ANSWER';

/** How often a waiting wrapper looks at its signals (the ledger is watched; this is the fallback). */
const WAIT_LOOK_MS = 250;

/**
 * After a headless Claude exited 0: when a question holds its task, says so, waits (heartbeats
 * on, signals honoured) for a person's answer, takes it (used once) and says what comes next.
 * `none` when nothing holds it: the run ended by itself.
 */
export async function awaitHeldAnswer(
	options: WrapperOptions,
	hold: HoldOptions,
	log: TaskLog,
	relay: SignalRelay,
): Promise<HeldNext> {
	let question = hold.decisions.waiting(log.taskId);
	if (question === null) return {kind: 'none'};
	options.notice(
		`task ${log.taskId} waits for you: ${question.kind === 'budget' ? 'its budget is crossed' : 'a held tool call'}; ` +
			`answer with controlroom decide ${question.decisionId} allow|deny [--reason TEXT]`,
	);
	log.append(EventType.heartbeat, {});
	const answered = await new Promise<HeldQuestion | 'signal' | null>(resolve => {
		const look = (): void => {
			if (relay.received() !== null && relay.received() !== 'SIGINT') return finish('signal');
			const now = hold.decisions.waiting(log.taskId);
			if (now === null || now.isAnswered) finish(now);
		};
		const watch = watchLedger(options.ledger, look);
		const timer = setInterval(look, WAIT_LOOK_MS);
		const beat = setInterval(() => log.append(EventType.heartbeat, {}), options.heartbeatMs);
		function finish(value: HeldQuestion | 'signal' | null): void {
			clearInterval(timer);
			clearInterval(beat);
			watch.close();
			resolve(value);
		}
		look();
	});
	if (answered === 'signal') {
		// Ended while it waited (a signal to the wrapper, `controlroom stop`): stopped, the question left unanswered.
		const signal = relay.received() ?? 'SIGTERM';
		log.end(EventType.stopped, {
			signal,
			reason: `stopped while waiting for a person (${signal})`,
			exitCode: null,
			wrapperExit: signalExitCode(signal),
		});
		return {kind: 'end', exitCode: signalExitCode(signal)};
	}
	// Withdrawn (the call ran elsewhere, or was answered away): the run ended as it ended.
	if (answered === null) return {kind: 'none'};
	question = answered;
	const taken = hold.decisions.take(question.decisionId, question.argsHash);
	if (taken === null) {
		options.notice(`the answer to ${question.decisionId} was carried out by another process; this run ends here`);
		return {kind: 'none'};
	}
	if (question.kind === 'budget' && taken.answer === 'deny') {
		log.end(EventType.stopped, {
			signal: null,
			reason: `over budget, and the person said no${taken.reason ? `: ${taken.reason}` : ''}`,
			exitCode: null,
			wrapperExit: OVER_BUDGET_EXIT,
		});
		return {kind: 'end', exitCode: OVER_BUDGET_EXIT};
	}
	if (question.kind !== 'budget' && taken.answer === 'deny' && hold.onDeny === 'stop') {
		log.end(EventType.stopped, {
			signal: null,
			reason: `the person denied a held call (--on-deny stop)${taken.reason ? `: ${taken.reason}` : ''}`,
			exitCode: null,
			wrapperExit: DENIED_EXIT,
		});
		return {kind: 'end', exitCode: DENIED_EXIT};
	}
	if (question.session === null) {
		options.notice(`cannot resume ${log.taskId}: its question names no session`);
		return {kind: 'none'};
	}
	// A budget approval carries nothing: the headroom is in the ledger, and the call still meets the policy.
	const carried =
		question.kind !== 'budget'
			? JSON.stringify({
					decisionId: question.decisionId,
					toolUseId: question.toolUseId,
					argsHash: question.argsHash,
					answer: taken.answer,
					reason: taken.reason,
				})
			: null;
	// The session id came from the agent's hook: it reaches the terminal only made safe.
	options.notice(`resuming session ${terminalSafe(question.session)} of ${log.taskId} with the answer ${taken.answer}`);
	return {kind: 'resume', session: question.session, carried};
}
