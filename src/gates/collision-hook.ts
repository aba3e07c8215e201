import {spawnSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {basename, dirname, join} from 'node:path';
import {argsHash} from '../core/decisions/args-hash.ts';
import {
	collisionAction,
	collisionPolicyFor,
	collisionReason,
	editedFileOf,
	EDIT_TOOLS,
	findCollision,
	type Collision,
	type CollisionAction,
	type CollisionPolicy,
	type EarlierQuestion,
	type PastEdit,
} from '../core/decisions/collision.ts';
import {decisionState, type DecisionRecord} from '../core/decisions/fold.ts';
import {EventType} from '../core/events.ts';
import {terminalSafe} from '../core/terminal-text.ts';
import {readDecisions} from '../ledger/decisions.ts';
import {openLedger, type Ledger} from '../ledger/open-ledger.ts';
import {spoolDir} from '../ledger/paths.ts';
import {sessionTaskOf} from '../ledger/payload-mapping.ts';
import {foldSpool} from '../ledger/spool.ts';
import {askDecision, takeAnswer} from './decisions.ts';
import {isHeadlessHook, realFolder, realTarget} from './hold-quick.ts';

// The second writer held (docs/decisions.md, "Collisions"): Claude Code's PreToolUse hook for
// Edit, Write, MultiEdit and NotebookEdit. When another live task edited the same file (the same
// real path: a separate worktree is another path) and has not committed it, the call becomes a
// `collision` question: an interactive session is denied with the reason while it waits, a wrapped
// `claude -p` is deferred and resumed with the answer (docs/headless-holds.md). Never waits: a
// PreToolUse hook that dies lets the call run.

/** How many recent edits of live tasks are read: far more than live sessions write between commits. */
const EDITS_READ = 2000;
/** How long an interactive session's question stays in the queue: it holds no process, and the decision window is the house's. */
const INTERACTIVE_WINDOW_MS = 600_000;
const BUSY_TIMEOUT_MS = 2000;

export type CollisionHookRequest = {
	readonly payload: unknown;
	readonly ledgerFile: string;
	readonly env: NodeJS.ProcessEnv;
	/** `collisions` from the config file: checkout root → policy. */
	readonly policies: Readonly<Record<string, CollisionPolicy>>;
	readonly now?: number;
};

export type CollisionHookOutcome = {readonly stdout: string; readonly why: string};

const isRecord = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/** The checkout a file is in: the nearest folder above it holding `.git` (a folder, or a worktree's file), or null. */
export function checkoutRootOf(file: string): string | null {
	for (let folder = dirname(file); ; folder = dirname(folder)) {
		if (existsSync(join(folder, '.git'))) return folder;
		if (dirname(folder) === folder) return null;
	}
}

/** Whether the file differs from its last commit (or is not committed at all); outside git, or when git cannot say, it does. */
function isUncommitted(root: string | null, file: string): boolean {
	if (root === null) return true;
	const status = spawnSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=all', '--', file], {
		encoding: 'utf8',
		timeout: 3000,
	});
	return status.status !== 0 || status.stdout.trim() !== '';
}

/** The edits of other live tasks, their paths resolved as this call's is; only those named like the file are resolved. */
function pastEditsOf(ledger: Ledger, file: string): PastEdit[] {
	const name = basename(file);
	const edits: PastEdit[] = [];
	for (const event of ledger.reader.editsOfLiveTasks(Object.keys(EDIT_TOOLS), EDITS_READ)) {
		const payload = event.data.payload;
		if (!isRecord(payload)) continue;
		const written = editedFileOf(event.data.toolName ?? '', payload['tool_input']);
		if (written === null || basename(written) !== name) continue;
		const cwd = typeof payload['cwd'] === 'string' ? payload['cwd'] : (event.data.cwd ?? '/');
		edits.push({taskId: event.taskId, file: realTarget(written, realFolder(cwd)), at: event.at});
	}
	return edits;
}

/** This task's collision question for this call (by id) or for the same arguments, newest first; used ones only for this call. */
function earlierQuestionOf(
	decisions: Map<string, DecisionRecord>,
	taskId: string,
	toolUseId: string | null,
	hash: string,
	now: number,
): EarlierQuestion | null {
	let found: EarlierQuestion | null = null;
	for (const decision of decisions.values()) {
		if (decision.taskId !== taskId || decision.kind !== 'collision') continue;
		const isThisCall = toolUseId !== null && decision.toolUseId === toolUseId;
		if (!isThisCall && decision.argsHash !== hash) continue;
		const state = decisionState(decision, now);
		if (state !== 'open' && state !== 'answered' && !(state === 'used' && isThisCall)) continue;
		const question: EarlierQuestion = {
			decisionId: decision.id,
			state,
			answer: decision.answer?.answer ?? null,
			reason: decision.answer?.reason ?? null,
			isThisCall,
		};
		if (found === null || isThisCall) found = question;
		if (isThisCall) break;
	}
	return found;
}

function preToolUse(decision: 'deny' | 'defer', reason: string): string {
	return JSON.stringify({
		hookSpecificOutput: {hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: reason},
	});
}

type Call = {
	readonly taskId: string;
	readonly tool: string;
	readonly input: Record<string, unknown>;
	readonly toolUseId: string | null;
	readonly session: string | null;
	readonly cwd: string;
	readonly isHeadless: boolean;
	readonly now: number;
};

/** Records what the action needs and returns the hook's stdout. */
function carryOut(ledger: Ledger, action: CollisionAction, call: Call): CollisionHookOutcome {
	switch (action.kind) {
		case 'pass':
			return {stdout: '', why: 'no collision'};
		case 'allowed': {
			// Once: takeAnswer's transaction gives a person's allow to one call only.
			const taken = takeAnswer(ledger, action.decisionId, argsHash(call.input), 'claude');
			return {stdout: '', why: taken === null ? 'the allow was used by another call' : `allowed by ${action.decisionId}`};
		}
		case 'deny':
			return {stdout: preToolUse('deny', terminalSafe(action.reason)), why: 'denied'};
		case 'defer':
			return {stdout: preToolUse('defer', terminalSafe(action.reason)), why: 'deferred'};
		case 'warn':
			warn(ledger, action.collision, call);
			return {stdout: '', why: 'warned'};
		case 'ask':
			return ask(ledger, action.collision, call);
	}
}

function ask(ledger: Ledger, collision: Collision, call: Call): CollisionHookOutcome {
	const {decisionId} = askDecision(ledger, {
		taskId: call.taskId,
		kind: 'collision',
		agent: 'claude',
		tool: call.tool,
		args: call.input,
		cwd: call.cwd,
		// A headless question holds its run until answered; an interactive one holds nothing and leaves the queue after the window.
		expiresAt: call.isHeadless ? null : call.now + INTERACTIVE_WINDOW_MS,
		toolUseId: call.toolUseId,
		session: call.session,
		waiter: null,
		budget: null,
		collision: {...collision, isHeadless: call.isHeadless},
		source: 'claude',
		at: call.now,
	});
	const reason = collisionReason(call.taskId, collision, decisionId);
	return {stdout: preToolUse(call.isHeadless ? 'defer' : 'deny', reason), why: `asked ${decisionId}`};
}

/** `warn`: a Needs-you entry on the writing task, once per file and other task; the call runs. */
function warn(ledger: Ledger, collision: Collision, call: Call): void {
	ledger.writer.append([
		{
			taskId: call.taskId,
			type: EventType.needRaised,
			at: call.now,
			source: 'claude',
			data: {lane: 'needs', kind: 'collision', message: collisionReason(call.taskId, collision, null), actor: null},
			dedupKey: `collision-warn:${call.taskId}:${collision.otherTask}:${collision.otherEditAt}:${collision.file}`,
		},
	]);
}

/** One PreToolUse call; see the file's opening comment. Never throws: a fault prints nothing (the call goes on as without the hook). */
export function runCollisionHook(request: CollisionHookRequest): CollisionHookOutcome {
	const payload = request.payload;
	if (!isRecord(payload) || payload['hook_event_name'] !== 'PreToolUse') return {stdout: '', why: 'not a PreToolUse payload'};
	const tool = typeof payload['tool_name'] === 'string' ? payload['tool_name'] : '';
	const input = isRecord(payload['tool_input']) ? payload['tool_input'] : null;
	const session = typeof payload['session_id'] === 'string' && payload['session_id'] !== '' ? payload['session_id'] : null;
	const written = input === null ? null : editedFileOf(tool, input);
	if (written === null || input === null || session === null) return {stdout: '', why: 'not a file write'};
	if (!existsSync(request.ledgerFile)) return {stdout: '', why: `no ledger at ${request.ledgerFile}`};
	const now = request.now ?? Date.now();
	const cwd = realFolder(typeof payload['cwd'] === 'string' ? payload['cwd'] : process.cwd());
	const file = realTarget(written, cwd);
	const root = checkoutRootOf(file);
	const policy = collisionPolicyFor(request.policies, root ?? dirname(file));
	if (policy === 'off') return {stdout: '', why: 'policy off'};
	let ledger: Ledger | null = null;
	try {
		ledger = openLedger(request.ledgerFile, {busyTimeoutMs: BUSY_TIMEOUT_MS, mustExist: true});
		const wrapperTaskId = request.env['CONTROLROOM_TASK_ID']?.trim() || null;
		const taskId = sessionTaskOf('claude', session, {wrapperTaskId});
		// Only a wrapped `claude -p` is deferred: its wrapper waits and resumes; any other session is denied.
		const isHeadless = wrapperTaskId !== null && isHeadlessHook(request.env);
		// Edits whose hook files still sit in the spool count: fold them first.
		try {
			foldSpool(ledger, spoolDir(ledger.path), now);
		} catch {
			// a fold the board retries; what is in the ledger still answers
		}
		const toolUseId = typeof payload['tool_use_id'] === 'string' ? payload['tool_use_id'] : null;
		const hash = argsHash(input);
		const earlier = earlierQuestionOf(readDecisions(ledger.reader), taskId, toolUseId, hash, now);
		const collision =
			earlier === null ? findCollision(taskId, file, pastEditsOf(ledger, file), () => isUncommitted(root, file)) : null;
		const action = collisionAction({policy, isHeadless, earlier, collision});
		return carryOut(ledger, action, {taskId, tool, input, toolUseId, session, cwd, isHeadless, now});
	} catch (error) {
		return {stdout: '', why: `fault: ${(error as Error).message.split('\n')[0] ?? ''}`};
	} finally {
		try {
			ledger?.close();
		} catch {
			// nothing left to lose
		}
	}
}
