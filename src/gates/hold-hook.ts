import {withoutTelemetry} from '../core/task.ts';
import {argsHash as hashOf} from '../core/decisions/args-hash.ts';
import {decisionState, type DecisionRecord} from '../core/decisions/fold.ts';
import {holdAction, preToolUseOutput, type CarriedAnswer, type HoldAction} from '../core/decisions/hold-action.ts';
import {EventType} from '../core/events.ts';
import {addTokens} from '../core/tokens.ts';
import {readDecisions} from '../ledger/decisions.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {spoolDir} from '../ledger/paths.ts';
import {foldSpool} from '../ledger/spool.ts';
import {catchUpTranscripts} from '../ledger/transcript-catch-up.ts';
import {askDecision} from './decisions.ts';
import {isHeadlessHook, policyReasonOf, realFolder, type HoldHookConfig} from './hold-quick.ts';

export type {HoldHookConfig} from './hold-quick.ts';

/** The PreToolUse payload fields the hook reads. */
type Payload = {
	readonly session_id?: unknown;
	readonly tool_use_id?: unknown;
	readonly tool_name?: unknown;
	readonly tool_input?: unknown;
	readonly cwd?: unknown;
	readonly hook_event_name?: unknown;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/** The carried answer in the resume's environment, only as far as the ledger confirms it (a person's answer, taken by the wrapper). */
function confirmedCarried(
	text: string | undefined,
	decisions: Map<string, DecisionRecord>,
	taskId: string,
): CarriedAnswer | null {
	if (!text) return null;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return null;
	}
	if (!isRecord(value) || typeof value['decisionId'] !== 'string') return null;
	const decision = decisions.get(value['decisionId']);
	// Only what the ledger holds counts: the answer a person gave, taken once, for this task.
	if (
		!decision ||
		decision.taskId !== taskId ||
		(decision.kind !== 'deferred' && decision.kind !== 'collision') ||
		decision.usedAt === null ||
		!decision.answer
	)
		return null;
	return {
		decisionId: decision.id,
		toolUseId: decision.toolUseId,
		argsHash: decision.argsHash,
		answer: decision.answer.answer,
		reason: decision.answer.reason,
	};
}

/** The task's budget with every headroom a person approved, what it spent, and its open budget question. */
function budgetFacts(ledger: Ledger, taskId: string, decisions: Map<string, DecisionRecord>, now: number) {
	const task = ledger.reader.task(taskId);
	if (!task || task.budget === null) return null;
	let headroom = 0;
	let asked: string | null = null;
	for (const decision of decisions.values()) {
		if (decision.taskId !== taskId || decision.kind !== 'budget') continue;
		if (decision.answer?.answer === 'allow') headroom += decision.answer.headroom ?? 0;
		if (decisionState(decision, now) === 'open') asked ??= decision.id;
	}
	// A budget covers the run's whole tree: its helpers' tokens count (docs/tree-and-cost.md).
	// What only the telemetry told is not counted: telemetry pauses no call (docs/otel.md).
	const spent = ledger.reader
		.helpersOf(taskId)
		.reduce((sum, helper) => addTokens(sum, withoutTelemetry(helper).tokens), withoutTelemetry(task).tokens);
	return {spent: spent.total, budget: task.budget + headroom, asked};
}

/** Tokens per model answer so far: what a budget question shows beside the spend. */
function perTurnOf(ledger: Ledger, taskId: string): number | null {
	const reports = ledger.reader.latestEventsOf(taskId, [EventType.tokensReported], 1000);
	const task = ledger.reader.task(taskId);
	if (!task || task.tokens.total === null || reports.length === 0) return null;
	return Math.round(task.tokens.total / reports.length);
}

/**
 * One PreToolUse call of a wrapped run (docs/headless-holds.md): the answer a resume
 * carries, a pause on the budget, a hold by the policy, or nothing. Never waits: a PreToolUse hook
 * that waits and dies lets the call run. Returns the hook's stdout.
 */
export function holdHookAnswer(
	ledger: Ledger,
	config: HoldHookConfig,
	payloadText: string,
	env: NodeJS.ProcessEnv,
	now = Date.now(),
): string {
	const taskId = env['CONTROLROOM_TASK_ID']?.trim();
	let payload: unknown;
	try {
		payload = JSON.parse(payloadText);
	} catch {
		throw new Error('the PreToolUse payload is not JSON');
	}
	if (!taskId || !isRecord(payload) || (payload as Payload).hook_event_name !== 'PreToolUse') return '';
	const toolName = typeof payload['tool_name'] === 'string' ? payload['tool_name'] : '';
	const toolInput = isRecord(payload['tool_input']) ? payload['tool_input'] : {};
	const toolUseId = typeof payload['tool_use_id'] === 'string' ? payload['tool_use_id'] : null;
	const session = typeof payload['session_id'] === 'string' ? payload['session_id'] : null;
	// `defer` is honoured only by `claude -p` (docs/headless-holds.md): its hooks see the SDK entrypoint.
	const isHeadless = isHeadlessHook(env);
	if (config.onBudget === 'ask') {
		// A budget decides on a fresh count: the hooks' spool and the run's transcripts read first.
		foldSpool(ledger, spoolDir(ledger.path), now);
		catchUpTranscripts(ledger, {now, taskIds: [taskId]});
	}
	const decisions = readDecisions(ledger.reader);
	const hash = hashOf(toolInput);
	const pending = [...decisions.values()].find(
		decision =>
			decision.taskId === taskId &&
			decision.kind === 'deferred' &&
			toolUseId !== null &&
			decision.toolUseId === toolUseId &&
			(decisionState(decision, now) === 'open' || decisionState(decision, now) === 'answered'),
	);
	const cwd = realFolder(config.cwd);
	const action = holdAction({
		isHeadless,
		toolUseId,
		argsHash: hash,
		carried: confirmedCarried(env['CONTROLROOM_CARRIED_ANSWER'], decisions, taskId),
		pending: pending ? {decisionId: pending.id, argsHash: pending.argsHash} : null,
		budget: config.onBudget === 'ask' ? budgetFacts(ledger, taskId, decisions, now) : null,
		policyReason: policyReasonOf(config, toolName, toolInput),
	});
	return preToolUseOutput(carryOut(ledger, action, {taskId, toolName, toolInput, toolUseId, session, cwd, now}));
}

/** Records what the action needs: a new question, or the one use of a carried allow (a second use is held again). */
function carryOut(
	ledger: Ledger,
	action: HoldAction,
	call: {
		taskId: string;
		toolName: string;
		toolInput: Record<string, unknown>;
		toolUseId: string | null;
		session: string | null;
		cwd: string;
		now: number;
	},
): HoldAction {
	if (action.kind === 'allow') {
		// Once: the hook's own mark, keyed by the question, so two processes carrying the same answer never both run the call.
		const {appended} = ledger.writer.append([
			{
				taskId: call.taskId,
				type: EventType.decisionUsed,
				at: call.now,
				source: 'claude',
				data: {decisionId: action.decisionId, argsHash: hashOf(call.toolInput)},
				dedupKey: `hold-applied:${action.decisionId}`,
			},
		]);
		return appended > 0
			? action
			: {kind: 'defer', reason: 'this answer was already carried out', ask: null, decisionId: action.decisionId};
	}
	const ask = action.kind === 'defer' || action.kind === 'deny' ? (action.ask ?? null) : null;
	if (ask === null) return action;
	const budget = ask === 'budget' ? budgetFacts(ledger, call.taskId, readDecisions(ledger.reader), call.now) : null;
	askDecision(ledger, {
		taskId: call.taskId,
		kind: ask,
		agent: 'claude',
		tool: call.toolName,
		args: call.toolInput,
		cwd: call.cwd,
		expiresAt: null,
		toolUseId: call.toolUseId,
		session: call.session,
		waiter: null,
		budget: budget === null ? null : {spent: budget.spent, budget: budget.budget, perTurn: perTurnOf(ledger, call.taskId)},
		source: 'claude',
		at: call.now,
	});
	return action;
}
