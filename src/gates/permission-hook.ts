import {existsSync} from 'node:fs';
import {argsHash} from '../core/decisions/args-hash.ts';
import {decisionState} from '../core/decisions/fold.ts';
import {callIdFromPreToolUse} from '../core/decisions/pre-tool-use.ts';
import {EventType} from '../core/events.ts';
import {foldPaneCall, NO_PANE_CALL, type PaneCallState} from '../core/decisions/pane-answer.ts';
import {readDecisions} from '../ledger/decisions.ts';
import {openLedger, type Ledger} from '../ledger/open-ledger.ts';
import {spoolDir} from '../ledger/paths.ts';
import {sessionTaskOf} from '../ledger/payload-mapping.ts';
import {foldSpool} from '../ledger/spool.ts';
import {processStartTime} from '../producers/proc-table.ts';
import {askDecision, takeAnswer, withdrawDecision} from './decisions.ts';
import {followTranscript} from './transcript-tail.ts';

// Claude Code's PermissionRequest hook (docs/decisions.md, "Interactive Claude"). It runs while
// the permission dialog is on screen, beside it: it records the question, waits for a person's
// answer from the board or `controlroom decide`, and prints it for Claude. With no answer, no
// ledger, or any fault it prints nothing, and the dialog in the agent's pane works as before:
// nothing is ever allowed on a timeout.

/** The default waiting window (seconds): `hooks install --decision-window` sets another. */
export const DEFAULT_DECISION_WINDOW_S = 600;
/** How often the waiting hook looks for an answer, a pane answer and the agent. */
const POLL_MS = 150;
/** How long a write may wait for another writer's lock: the hook has time, the dialog waits anyway. */
const BUSY_TIMEOUT_MS = 2000;

/** What the hook was given and where it runs. */
export type PermissionHookRequest = {
	readonly payload: unknown;
	readonly ledgerFile: string;
	readonly env: NodeJS.ProcessEnv;
	readonly windowMs: number;
	/** Aborted when the hook is told to end (SIGTERM: No or Esc in the pane, or Claude's hook timeout). */
	readonly signal: AbortSignal;
	readonly pollMs?: number;
};

/** Why the hook ended without an answer, for the record and its own stderr. */
export type PermissionHookOutcome =
	| {readonly kind: 'answered'; readonly stdout: string; readonly decisionId: string}
	| {readonly kind: 'nothing'; readonly why: string; readonly decisionId: string | null};

type Question = {
	readonly sessionId: string;
	readonly tool: string;
	readonly args: unknown;
	readonly cwd: string | null;
	readonly transcript: string | null;
};

function text(value: unknown): string | null {
	return typeof value === 'string' && value !== '' ? value : null;
}

/** The payload's question, or null when it is not a PermissionRequest this hook can ask about. */
function questionOf(payload: unknown): Question | null {
	if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return null;
	const record = payload as Record<string, unknown>;
	const sessionId = text(record['session_id']);
	const tool = text(record['tool_name']);
	if (record['hook_event_name'] !== 'PermissionRequest' || sessionId === null || tool === null) return null;
	return {
		sessionId,
		tool,
		args: record['tool_input'] ?? null,
		cwd: text(record['cwd']),
		transcript: text(record['transcript_path']),
	};
}

/** The answer as Claude reads it: allow exactly as asked (never `updatedInput`), or deny with the message (never `interrupt`). */
export function permissionAnswer(answer: 'allow' | 'deny', message: string | null): string {
	const decision = answer === 'allow' ? {behavior: 'allow'} : {behavior: 'deny', message: message ?? 'Denied from controlroom'};
	return JSON.stringify({hookSpecificOutput: {hookEventName: 'PermissionRequest', decision}});
}

/** The agent's process, alive with the start time it had when the question was asked. */
function agentOf(env: NodeJS.ProcessEnv): {readonly pid: number; readonly startTime: number | null} | null {
	const pid = Number(env['CLAUDE_PID']);
	if (!Number.isSafeInteger(pid) || pid <= 0) return null;
	return {pid, startTime: processStartTime(pid)};
}

function isAlive(agent: {readonly pid: number; readonly startTime: number | null}): boolean {
	const now = processStartTime(agent.pid);
	return now !== null && (agent.startTime === null || now === agent.startTime);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
	return new Promise(resolve => {
		const timer = setTimeout(done, ms);
		function done(): void {
			clearTimeout(timer);
			signal.removeEventListener('abort', done);
			resolve();
		}
		signal.addEventListener('abort', done, {once: true});
	});
}

/**
 * The call's id from the session's PreToolUse hook event (src/core/decisions/pre-tool-use.ts),
 * its spool file folded first: the spool hook wrote it an instant before this hook started.
 */
function preToolUseIdOf(ledger: Ledger, taskId: string, tool: string, hash: string): string | null {
	try {
		foldSpool(ledger, spoolDir(ledger.path));
	} catch {
		// a fold the board retries later; what is already in the ledger still answers
	}
	const taken = new Set<string>();
	for (const decision of readDecisions(ledger.reader).values()) {
		if (decision.taskId === taskId && decision.toolUseId !== null) taken.add(decision.toolUseId);
	}
	return callIdFromPreToolUse(ledger.reader.latestEventsOf(taskId, [EventType.agentEvent], 50), tool, hash, taken);
}

/** Closes the question unanswered; a fault here changes nothing for the agent. */
function withdraw(ledger: Ledger, decisionId: string, why: string): void {
	try {
		withdrawDecision(ledger, decisionId, why, 'claude');
	} catch {
		// the ledger is gone or locked: the board shows the waiter gone (docs/decisions.md)
	}
}

/** Waits for the answer; see the file's opening comment. Never throws. */
export async function runPermissionHook(request: PermissionHookRequest): Promise<PermissionHookOutcome> {
	const question = questionOf(request.payload);
	if (question === null) return {kind: 'nothing', why: 'not a PermissionRequest payload', decisionId: null};
	if (!existsSync(request.ledgerFile)) return {kind: 'nothing', why: `no ledger at ${request.ledgerFile}`, decisionId: null};
	let ledger: Ledger | null = null;
	let decisionId: string | null = null;
	try {
		ledger = openLedger(request.ledgerFile, {busyTimeoutMs: BUSY_TIMEOUT_MS, mustExist: true});
		const agent = agentOf(request.env);
		const hash = argsHash(question.args);
		const wrapperTaskId = request.env['CONTROLROOM_TASK_ID']?.trim() || null;
		const transcript = followTranscript(question.transcript, request.env['CLAUDE_CONFIG_DIR'] ?? null);
		// The baseline: calls settled before this question are never the one asked about.
		let pane: PaneCallState = foldPaneCall(NO_PANE_CALL, transcript.next(), question.tool, hash);
		const taskId = sessionTaskOf('claude', question.sessionId, {wrapperTaskId});
		// Claude writes the call's tool_use to the transcript around the dialog, often after this
		// hook started; the PreToolUse recorded just before names it at once.
		pane = {...pane, toolUseId: pane.toolUseId ?? preToolUseIdOf(ledger, taskId, question.tool, hash)};
		// The window starts when the question is asked: what the queue shows is the whole window.
		const askedAt = Date.now();
		const expiresAt = askedAt + request.windowMs;
		decisionId = askDecision(ledger, {
			taskId,
			kind: 'permission',
			agent: 'claude',
			tool: question.tool,
			args: question.args,
			cwd: question.cwd,
			expiresAt,
			toolUseId: pane.toolUseId,
			session: question.sessionId,
			waiter: {pid: process.pid, startTime: processStartTime(process.pid)},
			budget: null,
			source: 'claude',
			at: askedAt,
		}).decisionId;
		for (;;) {
			if (request.signal.aborted) {
				withdraw(ledger, decisionId, 'the agent ended the wait (answered No in its pane, or its hook timeout came)');
				return {kind: 'nothing', why: 'told to end', decisionId};
			}
			const answer = takeAnswer(ledger, decisionId, hash, 'claude');
			if (answer !== null) {
				return {kind: 'answered', stdout: permissionAnswer(answer.answer, answer.reason), decisionId};
			}
			const record = readDecisions(ledger.reader).get(decisionId);
			const state = record ? decisionState(record, Date.now()) : 'withdrawn';
			if (state === 'withdrawn' || state === 'used') return {kind: 'nothing', why: `the question is ${state}`, decisionId};
			pane = foldPaneCall(pane, transcript.next(), question.tool, hash);
			if (pane.isAnswered) {
				withdraw(ledger, decisionId, 'answered in the agent pane');
				return {kind: 'nothing', why: 'answered in the pane', decisionId};
			}
			if (agent !== null && !isAlive(agent)) {
				withdraw(ledger, decisionId, 'the agent is gone');
				return {kind: 'nothing', why: 'the agent is gone', decisionId};
			}
			if (Date.now() >= expiresAt) {
				withdraw(ledger, decisionId, 'its window passed unanswered; the agent asks in its own pane');
				return {kind: 'nothing', why: 'the window passed', decisionId};
			}
			await sleep(request.pollMs ?? POLL_MS, request.signal);
		}
	} catch (error) {
		if (ledger !== null && decisionId !== null) withdraw(ledger, decisionId, 'the hook failed; the agent asks in its own pane');
		return {kind: 'nothing', why: `fault: ${(error as Error).message.split('\n')[0] ?? ''}`, decisionId};
	} finally {
		try {
			ledger?.close();
		} catch {
			// nothing left to lose
		}
	}
}
