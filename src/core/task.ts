import {assertNever} from './assert-never.ts';
import {EventType, type EventDataOf, type EventTypeName, type NewEvent} from './events.ts';
import {isEnded, type Status} from './status.ts';
import {addTokens, CLAUDE_OUTPUT, COST_STATE, UNKNOWN_TOKENS, type Tokens} from './tokens.ts';
import {makeProgress, withDeclaredTotal, type Progress} from './progress.ts';
import {addUsageByModel, usageByModelOf, type UsageByModel} from './spend.ts';
import {addBurn, type BurnBucket} from './burn.ts';
import {tmuxPaneFromData, type TmuxPane} from './tmux.ts';
import {foldSeen, type SeenBy} from './seen.ts';
import {openHelpersAfter, outstandingReason} from './open-helpers.ts';

/** One row of the task projection: the fold of a task's events. */
export type Task = {
	readonly id: string;
	readonly title: string | null;
	readonly source: string;
	readonly role: string | null;
	readonly status: Status;
	readonly pid: number | null;
	readonly pgid: number | null;
	readonly exitCode: number | null;
	readonly signal: string | null;
	readonly error: string | null;
	readonly endReason: string | null;
	readonly cwd: string | null;
	readonly parentId: string | null;
	readonly sessionId: string | null;
	readonly progress: Progress | null;
	readonly stepsDeclared: number | null;
	readonly tokens: Tokens;
	readonly budget: number | null;
	readonly createdAt: number;
	readonly startedAt: number | null;
	readonly endedAt: number | null;
	readonly lastEventAt: number;
	/**
	 * The agent's last sign of life: its output (seen by the wrapper), a hook, its transcript, a
	 * claim note; never the wrapper's heartbeat, which proves only that the process lives. Health
	 * and "last seen" come from it. Until the agent says anything, when the task was registered.
	 */
	readonly lastSeenAt: number;
	/** The event that set `lastSeenAt`; null while it is the task's registration. */
	readonly lastSeenSeq: number | null;
	/**
	 * The latest event dated later than when it was recorded (plus FUTURE_SKEW_MS): its time, and
	 * the time it was counted at instead, so a wrong clock never pins a task (docs/ledger.md).
	 */
	readonly futureEvent: {readonly seq: number; readonly at: number; readonly countedAt: number} | null;
	/** The token total misses model calls the transcript does not show (`/compact`) until Claude's own count comes. */
	readonly isTokensPartial: boolean;
	readonly lastSeq: number;
	/** Plan items by id, where the agent plans with items created and completed one by one. */
	readonly planItems: Readonly<Record<string, boolean>> | null;
	/** A prompt was submitted and no Stop has come yet. */
	readonly isTurnOpen: boolean;
	/** At least one turn of this session completed (a Stop or its like was seen). */
	readonly hasCompletedTurn: boolean;
	/** When the agent's session said it ended (SessionEnd), until it starts again; on a wrapper's task too. */
	readonly sessionEndedAt: number | null;
	/** Silence after which this task counts as stalled; null means the default (600 s). */
	readonly stallSeconds: number | null;
	/**
	 * The task's own answers per model and price tier, for its cost (src/core/cost.ts); absent on rows
	 * projected before it existed, and null while no answer named its model.
	 */
	readonly spend?: UsageByModel | null;
	/** Some of the tokens counted came with no model (Codex, a settlement of Claude's own count): a price cannot cover them. */
	readonly hasUnpricedTokens?: boolean;
	/** The agent's own figure for its whole run, sub-agents included (a wrapped `claude -p` result). */
	readonly reportedCost?: ReportedCost | null;
	/**
	 * A run that resumed a Claude session (`claude -p --resume`/`--continue`): what the session had
	 * spent before this run, by Claude's own count (docs/tree-and-cost.md, "Resumed sessions").
	 * Absent or null on a run that began its session.
	 */
	readonly sessionBefore?: SessionBefore | null;
	/** The agent's own figure for its whole session, earlier runs included (a resumed `claude -p` result). */
	readonly sessionReportedCost?: ReportedCost | null;
	/** Some tokens were counted from a transcript: its later reads count only this run's lines. */
	readonly hasTranscriptTokens?: boolean;
	/** The token total is the agent's own output's (a `claude -p` result or stream), because no transcript counted any. */
	readonly isTokensFromOutput?: boolean;
	/** What it spent in each of its last minutes, for its burn rate (src/core/burn.ts). */
	readonly burn?: readonly BurnBucket[];
	/**
	 * The tmux pane the agent last reported from (docs/tmux.md); null outside tmux. Optional: a
	 * task folded by an older build has none.
	 */
	readonly tmux?: TmuxPane | null;
	/**
	 * What the agent's own OpenTelemetry reported (docs/otel.md): its requests, their tokens and
	 * their exact cost. Absent (older ledgers) or null until a telemetry request arrives.
	 */
	readonly telemetry?: TaskTelemetry | null;
	/** The token total is the telemetry's, because no hook, transcript or output reported tokens yet. */
	readonly isTokensFromTelemetry?: boolean;
	/** Who has looked at it since it finished, and when (src/core/seen.ts); absent until someone has. */
	readonly seenBy?: SeenBy;
	/**
	 * Its questions that wait for a person's answer (docs/decisions.md), each until it is answered,
	 * withdrawn, or its window passes: a task waiting for you is not stalled (its silence is yours).
	 */
	readonly waitingOn?: readonly WaitingQuestion[];
	/** The latest stop asked of it (`controlroom stop`, the board's `s`): an end the stop causes is the stop's. */
	readonly stopRequest?: {readonly at: number; readonly signal: string; readonly graceMs: number} | null;
	/**
	 * The agent ids of the helpers its session started and has not seen end, by its own hooks
	 * (src/core/open-helpers.ts): while one is open the session is not at rest, and an end then is
	 * an end with work outstanding, never `done`. Absent until a helper starts.
	 */
	readonly openHelpers?: readonly string[];
	/**
	 * `run --worktree`: the run's own git worktree (its `cwd`), branch, start commit and the main
	 * checkout it branched from (docs/wrapper.md, "A worktree per run"). Absent on a task run in place.
	 */
	readonly worktree?: TaskWorktree | null;
};

/** A task's own git worktree, as its registration recorded it. */
export type TaskWorktree = {
	readonly path: string;
	readonly branch: string;
	readonly base: string | null;
	readonly repository: string | null;
	/** The branch it started from (what its work is to be merged into); null when that was a detached HEAD. */
	readonly from?: string | null;
	/** The change on its branch against `base`, as its wrapper last measured it (`task.worktree_changed`); absent until then. */
	readonly change?: WorktreeChangeSummary;
};

/** A worktree's change: files, lines added and removed, and per file (the first 50; `more` beyond). */
export type WorktreeChangeSummary = {
	readonly files: number;
	readonly added: number;
	readonly removed: number;
	readonly stat: readonly {readonly path: string; readonly added: number | null; readonly removed: number | null}[];
	readonly more: number;
	readonly at: number;
};

function worktreeOf(data: {
	readonly worktree?: {
		path?: string | null;
		branch?: string | null;
		base?: string | null;
		repository?: string | null;
		from?: string | null;
	} | null;
}): TaskWorktree | null {
	const given = data.worktree;
	if (!given || typeof given.path !== 'string' || typeof given.branch !== 'string') return null;
	return {
		path: given.path,
		branch: given.branch,
		base: given.base ?? null,
		repository: given.repository ?? null,
		from: given.from ?? null,
	};
}

/** How long after a stop request (beyond its grace) the session's own end is taken as the stop's doing. */
const STOP_ENDS_WITHIN_MS = 10_000;

/** The stop under way when this event came, or null: its processes' goodbye (SessionEnd, a failure) is the stop's end. */
function stopUnderWay(task: Task, at: number): {readonly signal: string} | null {
	const request = task.stopRequest ?? null;
	if (request === null || at < request.at || at > request.at + request.graceMs + STOP_ENDS_WITHIN_MS) return null;
	return request;
}

/** A question of the task that waits for a person: its id, and when it stops waiting (null: until answered). */
export type WaitingQuestion = {readonly id: string; readonly expiresAt: number | null};

/** Whether a person has a question of the task to answer at `now`. */
export function isWaitingForPerson(task: Pick<Task, 'waitingOn'>, now: number): boolean {
	return (task.waitingOn ?? []).some(question => question.expiresAt === null || question.expiresAt > now);
}

/** The agent's own telemetry on a task: requests counted, their tokens, the sum of their `cost_usd`. */
export type TaskTelemetry = {
	readonly requests: number;
	readonly input: number;
	readonly output: number;
	/** The sum of the requests' exact cost in USD; null when none carried one (Codex sends none). */
	readonly costUsd: number | null;
	/** When the newest request came (ms): the date its cost is as of. Absent on rows of an older build. */
	readonly at?: number;
	/** The session its first request named: a later record naming this task must name it too (docs/otel.md). */
	readonly sessionId?: string | null;
	/** Requests whose reported cost their tokens could not back: kept as claims, not in `costUsd`. */
	readonly claims?: number;
};

/**
 * A task as a budget counts it (docs/tree-and-cost.md): its tokens and cost as its hooks,
 * transcripts and output told them, never its own telemetry's (a token count only the telemetry
 * gave, the telemetry's cost), so a telemetry record can never stop a task or pause its calls:
 * telemetry moves no task's status (docs/otel.md).
 */
export function withoutTelemetry<T extends Task>(task: T): T {
	if (!task.isTokensFromTelemetry && (task.telemetry ?? null) === null) return task;
	return {
		...task,
		tokens: task.isTokensFromTelemetry ? UNKNOWN_TOKENS : task.tokens,
		isTokensFromTelemetry: false,
		telemetry: null,
	};
}
/** What a resumed session had spent before this run: Claude's last count of it (null: none was read). */
export type SessionBefore = {
	readonly transcript: string | null;
	readonly input: number | null;
	readonly output: number | null;
	readonly costUsd: number | null;
	/** The run's own lines were reached: later reads of the transcript count every line. */
	readonly isInRun: boolean;
};

/** What an agent said its run cost. */
export type ReportedCost = {readonly amount: number; readonly currency: string; readonly at: number};

/** A task being built: its own copy, whose fields are set one by one before it is returned. */
type Mutable<T> = {-readonly [K in keyof T]: T[K]};

function blankTask(event: NewEvent): Task {
	return {
		id: event.taskId,
		title: null,
		source: event.source,
		role: null,
		status: 'running',
		pid: null,
		pgid: null,
		exitCode: null,
		signal: null,
		error: null,
		endReason: null,
		cwd: null,
		parentId: null,
		sessionId: null,
		progress: null,
		stepsDeclared: null,
		tokens: UNKNOWN_TOKENS,
		budget: null,
		createdAt: event.at,
		startedAt: event.at,
		endedAt: null,
		lastEventAt: event.at,
		lastSeenAt: event.at,
		lastSeenSeq: null,
		futureEvent: null,
		isTokensPartial: false,
		lastSeq: 0,
		planItems: null,
		isTurnOpen: false,
		hasCompletedTurn: false,
		sessionEndedAt: null,
		stallSeconds: null,
		tmux: null,
		telemetry: null,
		isTokensFromTelemetry: false,
	};
}

/**
 * A session at rest: a turn of it completed and none is open, so its agent exiting without a
 * SessionEnd ended it (Codex sends none unless asked). A session that never completed a turn, or
 * is mid-turn, and whose process is gone died: that is lost, not done. A wrapper's task is at rest
 * only through the session its agent's hooks (or output) reported: a plain command has none.
 */
export function isSessionAtRest(
	task: Pick<Task, 'source' | 'isTurnOpen' | 'hasCompletedTurn' | 'sessionId' | 'openHelpers'>,
): boolean {
	if (task.source === 'wrapper' && task.sessionId === null) return false;
	// A helper still works in the background: its Stop came, but the session has work in flight.
	if ((task.openHelpers?.length ?? 0) > 0) return false;
	return !task.isTurnOpen && task.hasCompletedTurn;
}

/** How far ahead of the time it is recorded an event may be dated before its time is not believed. */
export const FUTURE_SKEW_MS = 5000;

function end(task: Task, status: Status, at: number, patch: Partial<Task>): Task {
	return {...task, ...patch, status, endedAt: at};
}

/** A hand-in whose contract names no acceptor, before a person names one (docs/contracts.md, "Acceptors"). */
export const HANDED_IN_UNNAMED = 'handed in, waiting until a person names its acceptor';

/**
 * What people and gates say about a task (the queue, reviews, send-backs) and a fleet request's
 * bookkeeping (a request may name a task this host does not have): never the task itself.
 */
const ABOUT_A_TASK: ReadonlySet<EventTypeName> = new Set([
	EventType.needRaised,
	EventType.acknowledged,
	EventType.seen,
	EventType.fleetRequestReceived,
	EventType.fleetRequestHandled,
	EventType.reviewStarted,
	EventType.reviewPacketBuilt,
	EventType.reviewVerdict,
	EventType.reviewFixRound,
	EventType.reviewConcluded,
	EventType.workSentBack,
	EventType.workAccepted,
	EventType.workLineVerdict,
	EventType.evidenceLooked,
	EventType.handoffWritten,
	EventType.handoffTaken,
	EventType.handoffSkipped,
	EventType.messageSent,
	EventType.messageDelivered,
	EventType.contractReady,
	EventType.mediationOffer,
	EventType.mediationConcluded,
	EventType.planReviewRound,
	EventType.planReviewConcluded,
	EventType.disagreementOpened,
	// A CI report and a reaction to it are what CI and a rule say about the task (docs/reactions.md).
	EventType.ciReported,
	EventType.reactionFired,
	EventType.reactionDelivery,
	// A question and its answer are about the agent's task, and no sign of its own life.
	EventType.decisionAsked,
	EventType.decisionAnswered,
	EventType.decisionUsed,
	EventType.decisionWithdrawn,
]);

/** Events about a work order and its effects are the order's, not a task's (docs/effects.md). */
function isOrderEvent(type: EventTypeName): boolean {
	return type.startsWith('order.') || type.startsWith('effect.');
}

/** Events about a task (a need raised by hand, an acknowledgement, a review) or an order never invent a task. */
function createsTask(type: EventTypeName): boolean {
	return !ABOUT_A_TASK.has(type) && !isOrderEvent(type);
}

/**
 * What people and gates say about a task, or a PID noted with its start time (only the
 * reconciler writes those), is bookkeeping, not a sign of life: it must not flip a stalled task
 * back to active, nor make an agent's need look answered.
 */
const BOOKKEEPING_EVENTS: ReadonlySet<EventTypeName> = new Set([...ABOUT_A_TASK, EventType.pidReported]);

/**
 * Events that are the agent's own sign of life: what it said through a hook, its output or its
 * transcript (progress, plan, tokens), a claim it took or noted. A heartbeat counts only for the
 * output it reports (`outputAt`); registering, starting and every other producer's event do not.
 */
const AGENT_SIGNS: ReadonlySet<EventTypeName> = new Set([
	EventType.agentEvent,
	EventType.progressed,
	EventType.planItem,
	EventType.tokensReported,
	EventType.claimTaken,
	EventType.claimProgressed,
	EventType.telemetryRequest,
	EventType.telemetryTool,
]);

/** When the event says the agent was last heard from, or null when it is no sign of the agent. */
function agentSignAt(event: NewEvent): number | null {
	if (event.type === EventType.heartbeat) return event.data.outputAt ?? null;
	return AGENT_SIGNS.has(event.type) ? event.at : null;
}

/** Agent events that prove a session is alive again after it ended, failed or was found lost. */
const REOPENING_AGENT_EVENTS = new Set(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse']);

/**
 * Agent events that say a turn completed: a hook's Stop, Codex's notify, and `codex exec --json`'s
 * turn.completed (read by the wrapper). A completed turn answers an earlier failure of the session.
 */
const TURN_COMPLETED_EVENTS = new Set(['Stop', 'agent-turn-complete', 'turn.completed']);

/** Codex's `exec --json` says a turn failed; its message becomes the task's error. */
const TURN_FAILED_EVENT = 'turn.failed';

/**
 * A wrapper task's lifecycle is the wrapper's: it spawned the process, holds its group, and records
 * how it exited. Events its agent's hooks send onto it (one run is one task) add the session, the
 * tokens, the progress and any failure, but never replace the PID or end the task.
 */
function isHookOnWrapperTask(task: Task, event: NewEvent): boolean {
	return task.source === 'wrapper' && event.source !== 'wrapper';
}

function messageOf(data: EventDataOf<'agent.event'>): string | null {
	const payload = data.payload;
	if (!payload || typeof payload !== 'object') return null;
	const message = (payload as Record<string, unknown>)['message'];
	return typeof message === 'string' && message.length > 0 ? message : null;
}

/** Folds an agent event; `stamps` are the task's new last event time and sequence, set in the same copy. */
function applyAgentEvent(current: Task, event: NewEvent & {readonly type: 'agent.event'}, stamps: Stamps): Task {
	const {data} = event;
	const name = data.event ?? null;
	const isWrapperOwned = isHookOnWrapperTask(current, event);
	const isTurnCompleted = name !== null && TURN_COMPLETED_EVENTS.has(name);
	// One plain copy, then the fields set on it: in V8 a spread with overrides costs several times
	// a plain copy, and a bulk import folds one of these per hook event.
	const next: Mutable<Task> = {...current};
	setStamps(next, stamps);
	next.cwd = isWrapperOwned ? (current.cwd ?? data.cwd ?? null) : (data.cwd ?? current.cwd);
	next.pid = isWrapperOwned ? current.pid : (data.pid ?? current.pid);
	next.sessionId = current.sessionId ?? data.sessionId ?? null;
	next.parentId = current.parentId ?? data.parentId ?? null;
	next.title = current.title ?? data.titleHint ?? null;
	// The latest pane wins: a session resumed in another pane is there now.
	next.tmux = tmuxPaneFromData(data.tmux) ?? current.tmux ?? null;
	next.isTurnOpen = name === 'UserPromptSubmit' ? true : isTurnCompleted || name === 'StopFailure' ? false : current.isTurnOpen;
	next.hasCompletedTurn = current.hasCompletedTurn || isTurnCompleted;
	if (name === 'SessionStart') next.sessionEndedAt = null;
	// An ended task's helpers are its process's: a helper's start after its end (forged, or a stray) opens nothing.
	const openHelpers =
		isEnded(current.status) && name === 'SubagentStart'
			? current.openHelpers
			: openHelpersAfter(current.openHelpers, name, data.payload);
	if (openHelpers !== current.openHelpers) next.openHelpers = openHelpers;
	let task: Task = next;
	if (name === TURN_FAILED_EVENT) task = {...task, isTurnOpen: false, error: messageOf(data) ?? task.error ?? 'turn failed'};
	// A failure stays a failure until a later turn of the same session completes.
	if (isTurnCompleted && task.error !== null && !isEnded(task.status)) return {...task, error: null};
	if (task.source === 'wrapper') return task;
	if (isTurnCompleted && task.status === 'failed') {
		return {...task, status: 'running', endedAt: null, exitCode: null, endReason: null, error: null};
	}
	const isReopenable = task.status === 'done' || task.status === 'lost' || task.status === 'failed';
	if (isReopenable && name !== null && REOPENING_AGENT_EVENTS.has(name)) {
		// Working again after a failure: running, the unanswered failure kept until a turn completes.
		const error = task.status === 'failed' ? task.error : null;
		return {...task, status: 'running', endedAt: null, exitCode: null, endReason: null, error};
	}
	return task;
}

function applyPlanItem(task: Task, itemId: string | null, isDone: boolean): Task {
	if (itemId === null) return task;
	const planItems = {...task.planItems, [itemId]: isDone};
	const values = Object.values(planItems);
	const reported = makeProgress(values.filter(Boolean).length, values.length);
	return {...task, planItems, progress: reported ? withDeclaredTotal(reported, task.stepsDeclared) : task.progress};
}

/** Why a session that ended mid-turn failed: in `-p` mode that is how an API error looks. */
export const ENDED_MID_TURN = 'session ended during a turn without Stop (API error or interruption)';

/**
 * A session ended. It failed if a turn was open (it never said Stop) or a failure is still
 * unanswered (no later turn completed); else it is done, its exit code unknown. On a wrapper's
 * task the session's end only notes a failure: the wrapper records how the run ended.
 */
function endSession(task: Task, event: NewEvent, reason: string | null): Task {
	const error = task.isTurnOpen ? (task.error ?? ENDED_MID_TURN) : task.error;
	// The reconciler ends a session whose agent is gone; the agent's own SessionEnd says when it ended.
	const isAgentsOwn = event.source !== 'reconciler';
	const sessionEndedAt = isAgentsOwn ? event.at : task.sessionEndedAt;
	// The reconciler speaks for a wrapper's task whose wrapper died: its session's end is the run's.
	if (isHookOnWrapperTask(task, event) && isAgentsOwn) return {...task, isTurnOpen: false, error, sessionEndedAt};
	// A stop is what ended it; the session's own goodbye that follows does not make it done.
	if (task.status === 'stopped') return {...task, sessionEndedAt};
	// Its goodbye while a stop ends it (folded before the stop records itself): stopped, not done or failed.
	const stop = isAgentsOwn ? stopUnderWay(task, event.at) : null;
	if (stop !== null)
		return end(task, 'stopped', event.at, {
			signal: stop.signal,
			endReason: 'stopped (controlroom stop)',
			isTurnOpen: false,
			sessionEndedAt,
		});
	if (error !== null)
		return end(task, 'failed', event.at, {exitCode: task.exitCode, endReason: reason, isTurnOpen: false, error, sessionEndedAt});
	// Its helpers still worked: the session did not finish its work (docs/tree-and-cost.md).
	const open = task.openHelpers?.length ?? 0;
	if (open > 0)
		return end(task, 'stopped', event.at, {
			exitCode: null,
			endReason: outstandingReason(open, `SessionEnd: ${reason ?? 'no reason given'}`),
			sessionEndedAt,
		});
	return end(task, 'done', event.at, {exitCode: null, endReason: reason, sessionEndedAt});
}

/** A wrapped process exited: its code decides, but an unanswered failure of its session keeps it failed. */
function exitTask(task: Task, data: EventDataOf<'task.exited'>, at: number): Task {
	const exitCode = data.exitCode ?? null;
	const signal = data.signal ?? null;
	// Exit code unknown (the agent ran on outside the wrapper's child): its session's own end decides.
	const isCleanUnknown = exitCode === null && task.sessionEndedAt !== null;
	const status: Status =
		signal !== null ? 'stopped' : (exitCode === 0 || isCleanUnknown) && task.error === null ? 'done' : 'failed';
	// A clean exit while its helpers still worked (Claude ends 0 on SIGINT) left work outstanding: not done.
	const open = task.openHelpers?.length ?? 0;
	if (status === 'done' && open > 0) {
		const how = exitCode === null ? 'exit code unknown' : `exit ${exitCode}`;
		return end(task, 'stopped', at, {exitCode, signal, endReason: outstandingReason(open, how), isTurnOpen: false});
	}
	return end(task, status, at, {exitCode, signal, endReason: data.reason ?? task.endReason, isTurnOpen: false});
}

/** A failure: ends a session `failed`; on a wrapper's task a hook's failure is noted for the wrapper's exit. */
function failTask(task: Task, event: NewEvent & {readonly type: 'task.failed'}): Task {
	const error = event.data.error ?? task.error;
	if (isHookOnWrapperTask(task, event)) return {...task, isTurnOpen: false, error: error ?? 'failed'};
	if (task.status === 'stopped') return task;
	// A failure the stop itself caused (an open turn or a dialog cut short): the stop's end.
	const stop = stopUnderWay(task, event.at);
	if (stop !== null)
		return end(task, 'stopped', event.at, {signal: stop.signal, endReason: 'stopped (controlroom stop)', isTurnOpen: false});
	return end(task, 'failed', event.at, {isTurnOpen: false, exitCode: event.data.exitCode ?? null, error});
}

function registerTask(current: Task | undefined, task: Task, event: NewEvent & {readonly type: 'task.registered'}): Task {
	const {data, at} = event;
	// A wrapped session's SessionStart notes its session on the wrapper's task and changes nothing the wrapper set.
	const isWrapperOwned = isHookOnWrapperTask(task, event);
	return {
		...task,
		status: current && current.status !== 'registered' ? current.status : 'registered',
		title: data.title ?? task.title,
		source: isWrapperOwned ? task.source : (data.source ?? task.source),
		role: data.role ?? task.role,
		cwd: isWrapperOwned ? (task.cwd ?? data.cwd ?? null) : (data.cwd ?? task.cwd),
		parentId: data.parentId ?? task.parentId,
		sessionId: data.sessionId ?? task.sessionId,
		budget: data.budget ?? task.budget,
		stepsDeclared: data.steps ?? task.stepsDeclared,
		stallSeconds: data.stallSeconds ?? task.stallSeconds,
		tmux: tmuxPaneFromData(data.tmux) ?? task.tmux ?? null,
		...worktreeField(worktreeOf(data) ?? task.worktree ?? null),
		progress: task.progress ?? declaredStart(data.steps ?? null),
		startedAt: current ? task.startedAt : null,
		createdAt: current ? task.createdAt : at,
	};
}

/** Only a task run in its own worktree carries the field, so every other task's row is as before. */
function worktreeField(worktree: TaskWorktree | null): {worktree?: TaskWorktree} {
	return worktree ? {worktree} : {};
}

/**
 * Folds one event into a task. Pure: the ledger calls it inside the transaction that appends
 * the event, so the projection never drifts from the events. Who has seen it is folded last, from
 * the task before and after (src/core/seen.ts).
 */
export function applyEvent(current: Task | undefined, given: NewEvent, seq = 0, recordedAt?: number): Task | undefined {
	const next = foldEvent(current, given, seq, recordedAt);
	if (next === undefined || next === current) return next;
	const look = given.type === EventType.seen ? {by: given.data.by ?? '', at: given.at} : null;
	const seenBy = foldSeen(current, next, look);
	if (seenBy === next.seenBy) return next;
	if (seenBy !== undefined) return {...next, seenBy};
	const {seenBy: _forgotten, ...rest} = next;
	return rest;
}

/** The fold of one event into a task, but for who has seen it. The switch names every event type. */
function foldEvent(current: Task | undefined, given: NewEvent, seq: number, recordedAt: number | undefined): Task | undefined {
	if (current === undefined && !createsTask(given.type)) return undefined;
	const isFuture = recordedAt !== undefined && given.at > recordedAt + FUTURE_SKEW_MS;
	// Dated later than it was recorded: folded at the time it was recorded, so a wrong clock cannot pin the task.
	const event: NewEvent = isFuture ? {...given, at: recordedAt} : given;
	const base = current ?? blankTask(event);
	const stamps = stampsOf(base, event, seq, isFuture ? {seq, at: given.at, countedAt: recordedAt} : null);
	// A hook's event (most of a bulk import) is folded in one copy of the task, not two.
	if (event.type === EventType.agentEvent) return applyAgentEvent(base, event, stamps);
	const stamped: Mutable<Task> = {...base};
	setStamps(stamped, stamps);
	const task: Task = stamped;
	switch (event.type) {
		case EventType.registered:
			return registerTask(current, task, event);
		case EventType.started: {
			const isWrapperOwned = isHookOnWrapperTask(task, event);
			return {
				...task,
				status: isEnded(task.status) ? task.status : 'running',
				pid: isWrapperOwned ? task.pid : (event.data.pid ?? task.pid),
				pgid: isWrapperOwned ? task.pgid : (event.data.pgid ?? task.pgid),
				startedAt: task.startedAt ?? event.at,
			};
		}
		case EventType.pidReported:
			return {...task, pid: event.data.pid ?? task.pid};
		case EventType.progressed: {
			const reported = makeProgress(event.data.done ?? -1, event.data.total ?? 0);
			return reported ? {...task, progress: withDeclaredTotal(reported, task.stepsDeclared)} : task;
		}
		case EventType.tokensReported: {
			const byModel = usageByModelOf(event.data.byModel);
			const hasTokens = (event.data.input ?? 0) > 0 || (event.data.output ?? 0) > 0;
			const isFromOutput = event.data.from === CLAUDE_OUTPUT;
			// The agent's own output counts only while nothing else has: its answers are in the transcript too.
			if (isFromOutput && task.tokens.total !== null && !task.isTokensFromOutput && !task.isTokensFromTelemetry) return task;
			// A transcript's count replaces the output's (and the telemetry's, docs/otel.md): the same answers, read exactly.
			const isReplacing = !isFromOutput && task.isTokensFromOutput === true;
			return {
				...task,
				tokens: addTokens(task.isTokensFromTelemetry || isReplacing ? UNKNOWN_TOKENS : task.tokens, {
					input: event.data.input ?? null,
					output: event.data.output ?? null,
				}),
				isTokensFromTelemetry: false,
				isTokensFromOutput: isFromOutput,
				hasTranscriptTokens: (task.hasTranscriptTokens ?? false) || typeof event.data.transcript === 'string',
				isTokensPartial: tokensPartialAfter(isReplacing ? false : task.isTokensPartial, event.data),
				spend: addUsageByModel(isReplacing ? null : (task.spend ?? null), byModel),
				hasUnpricedTokens: (task.hasUnpricedTokens ?? false) || (byModel === null && hasTokens),
				burn: addBurn(task.burn, event.at, (event.data.input ?? 0) + (event.data.output ?? 0), byModel),
			};
		}
		case EventType.costReported: {
			const {amount, currency} = event.data;
			if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) return task;
			const reported = {amount, currency: currency ?? 'USD', at: event.at};
			// A resumed session's own figure covers its earlier runs too: kept apart, never the run's cost.
			return event.data.scope === 'session' ? {...task, sessionReportedCost: reported} : {...task, reportedCost: reported};
		}
		case EventType.sessionBefore:
			return {...task, sessionBefore: sessionBeforeAfter(task.sessionBefore ?? null, event.data)};
		case EventType.telemetryRequest:
			return withTelemetryRequest(task, event.data, event.at);
		case EventType.telemetryTool:
		case EventType.telemetryMetric:
			return task;
		case EventType.exited:
			return exitTask(task, event.data, event.at);
		case EventType.failed:
			return failTask(task, event);
		case EventType.stopped:
			return end(task, 'stopped', event.at, {
				signal: event.data.signal ?? task.signal,
				exitCode: event.data.exitCode ?? task.exitCode,
				endReason: event.data.reason ?? task.endReason,
			});
		case EventType.lost:
			return isEnded(task.status) ? task : end(task, 'lost', event.at, {endReason: event.data.reason ?? null});
		case EventType.ended:
			// Before task.vanished and task.merged, the reconciler ended untracked rows with task.ended.
			if (task.status === 'untracked') return endUntracked(task, event.at, event.data.reason ?? null);
			return endSession(task, event, event.data.reason ?? null);
		case EventType.vanished:
			return isEnded(task.status) ? task : end(task, 'vanished', event.at, {endReason: event.data.reason ?? null});
		case EventType.merged:
			return isEnded(task.status) ? task : end(task, 'merged', event.at, {endReason: event.data.reason ?? null});
		case EventType.planItem:
			return applyPlanItem(task, event.data.itemId ?? null, event.data.isDone === true);
		case EventType.discovered:
			return {
				...task,
				status: current ? task.status : 'untracked',
				pid: event.data.pid ?? task.pid,
				title: task.title ?? event.data.command ?? null,
				cwd: task.cwd ?? event.data.cwd ?? null,
			};
		case EventType.claimTaken:
			return isEnded(task.status) ? task : {...task, status: 'running', startedAt: task.startedAt ?? event.at};
		case EventType.claimHandedIn:
			return end(task, 'done', event.at, {
				endReason: event.data.acceptor ? `handed in, waiting for ${event.data.acceptor}` : HANDED_IN_UNNAMED,
			});
		case EventType.claimPassedBack:
			return end(task, 'stopped', event.at, {endReason: `passed back: ${event.data.reason ?? 'no reason'}`});
		// An acceptor named after a hand-in: the hand-in now waits for that person.
		case EventType.claimAcceptorNamed:
			return task.status === 'done' && task.endReason === HANDED_IN_UNNAMED
				? {...task, endReason: `handed in, waiting for ${event.data.acceptor ?? 'its acceptor'}`}
				: task;
		// Accepting a hand-in closes it: the claim then reads accepted everywhere (src/core/claim-state.ts).
		case EventType.workAccepted:
			return task.status === 'done' ? {...task, endReason: `accepted by ${event.data.by ?? 'a person'}`} : task;
		// A verdict on one line leaves the hand-in open, saying who still owes which lines.
		case EventType.workLineVerdict:
			return task.status === 'done' && event.data.waiting ? {...task, endReason: `handed in, ${event.data.waiting}`} : task;
		case EventType.stopRequested:
			return {...task, stopRequest: {at: event.at, signal: event.data.signal ?? 'SIGTERM', graceMs: event.data.graceMs ?? 0}};
		// Events that only mark the task alive (or record a note) change nothing else in its row.
		case EventType.worktreeChanged: {
			if (!task.worktree) return task;
			const {files, insertions: added, deletions: removed, stat, more} = event.data;
			const change: WorktreeChangeSummary = {
				files: files ?? 0,
				added: added ?? 0,
				removed: removed ?? 0,
				stat: (stat ?? []).map(file => ({path: file.path ?? '', added: file.added ?? null, removed: file.removed ?? null})),
				more: more ?? 0,
				at: event.at,
			};
			return {...task, worktree: {...task.worktree, change}};
		}
		case EventType.heartbeat:
		case EventType.needRaised:
		case EventType.acknowledged:
		case EventType.seen:
		case EventType.claimProgressed:
		case EventType.evidenceLooked:
		case EventType.handoffWritten:
		case EventType.handoffTaken:
		case EventType.handoffSkipped:
		case EventType.messageSent:
		case EventType.messageDelivered:
		case EventType.contractReady:
		case EventType.fleetRequestReceived:
		case EventType.fleetRequestHandled:
		case EventType.outputKept:
		case EventType.reviewStarted:
		case EventType.reviewPacketBuilt:
		case EventType.reviewVerdict:
		case EventType.reviewFixRound:
		case EventType.reviewConcluded:
		case EventType.workSentBack:
		case EventType.mediationOffer:
		case EventType.mediationConcluded:
		case EventType.planReviewRound:
		case EventType.planReviewConcluded:
		case EventType.disagreementOpened:
		case EventType.ciReported:
		case EventType.reactionFired:
		case EventType.reactionDelivery:
		// A question is folded by src/core/decisions (docs/decisions.md); the task keeps only which wait for a person.
		// falls through
		case EventType.decisionAsked:
		case EventType.decisionAnswered:
		case EventType.decisionUsed:
		case EventType.decisionWithdrawn:
			return withQuestion(task, event);
		// An order's events are folded by src/core/effects (an order id is not a task's); a refused
		// attempt at a yes is about its target and is no sign of the target's own life.
		// A stored contract and an access grant are folded elsewhere too (src/core/contract/intake.ts, docs/serve.md).
		case EventType.gateRefused:
		// Passkeys and the approvals policy are folded by src/core/passkey (docs/passkeys.md).
		// falls through
		case EventType.passkeyEnrolled:
		case EventType.passkeyAsserted:
		case EventType.approvalsSet:
		case EventType.contractDrafted:
		case EventType.contractText:
		case EventType.contractReadied:
		case EventType.accessGranted:
		case EventType.accessRevoked:
		case EventType.orderOpened:
		case EventType.orderDerived:
		case EventType.orderApproved:
		case EventType.orderApprovalRefused:
		case EventType.orderSentBack:
		case EventType.effectRead:
		case EventType.effectHeld:
		case EventType.effectRefused:
		case EventType.effectStarted:
		case EventType.effectFinished:
		case EventType.effectOutcomeUnknown:
		case EventType.effectExpired:
			return current;
		default:
			return assertNever(event);
	}
}

/** The times an event stamps on its task: when anything was last heard, when the agent was. */
type Stamps = Pick<Task, 'lastEventAt' | 'lastSeq' | 'lastSeenAt' | 'lastSeenSeq' | 'futureEvent'>;

function stampsOf(base: Task, event: NewEvent, seq: number, future: Task['futureEvent']): Stamps {
	const isLiveness = !BOOKKEEPING_EVENTS.has(event.type) && !isOrderEvent(event.type);
	const signAt = agentSignAt(event);
	// A heartbeat's output time is never later than the heartbeat itself (as folded).
	const seenAt = signAt === null ? null : Math.min(signAt, event.at);
	const isSeen = seenAt !== null && seenAt >= base.lastSeenAt;
	return {
		lastEventAt: isLiveness ? Math.max(base.lastEventAt, event.at) : base.lastEventAt,
		lastSeq: Math.max(base.lastSeq, seq),
		lastSeenAt: isSeen ? seenAt : base.lastSeenAt,
		lastSeenSeq: isSeen && seq > 0 ? seq : base.lastSeenSeq,
		futureEvent: future ?? base.futureEvent,
	};
}

function setStamps(task: Mutable<Task>, stamps: Stamps): void {
	task.lastEventAt = stamps.lastEventAt;
	task.lastSeq = stamps.lastSeq;
	task.lastSeenAt = stamps.lastSeenAt;
	task.lastSeenSeq = stamps.lastSeenSeq;
	task.futureEvent = stamps.futureEvent;
}

/** Keeps which of the task's questions wait for a person: asked adds one, an answer, its use or its withdrawal ends it. */
function withQuestion(task: Task, event: NewEvent): Task {
	const id = typeof event.data['decisionId'] === 'string' ? event.data['decisionId'] : null;
	if (id === null) return task;
	const others = (task.waitingOn ?? []).filter(question => question.id !== id);
	if (event.type !== EventType.decisionAsked)
		return others.length === (task.waitingOn ?? []).length ? task : {...task, waitingOn: others};
	const expiresAt = typeof event.data['expiresAt'] === 'number' ? event.data['expiresAt'] : null;
	// The newest ten are plenty: a task asks one question at a time.
	return {...task, waitingOn: [...others, {id, expiresAt}].slice(-10)};
}

/** A later read's count of the session before the run replaces an earlier one; a read that found none keeps it. */
function sessionBeforeAfter(before: SessionBefore | null, data: EventDataOf<'task.session_before'>): SessionBefore {
	const hasCount = typeof data.input === 'number' || typeof data.output === 'number';
	return {
		transcript: data.transcript ?? before?.transcript ?? null,
		input: hasCount ? (data.input ?? null) : (before?.input ?? null),
		output: hasCount ? (data.output ?? null) : (before?.output ?? null),
		costUsd: hasCount ? (data.costUsd ?? null) : (before?.costUsd ?? null),
		isInRun: (before?.isInRun ?? false) || data.reachedRun === true,
	};
}

/**
 * Whether the token total still misses model calls after this report: a `/compact` in the
 * transcript makes calls its lines do not show; Claude's own count (`cost-state`) settles them.
 */
function tokensPartialAfter(isPartial: boolean, data: EventDataOf<'task.tokens_reported'>): boolean {
	if (data.from === COST_STATE) return (data.pendingCompactions ?? 0) > 0;
	return isPartial || (data.compactions ?? 0) > 0;
}

/**
 * A telemetry request adds to the task's telemetry; its tokens count on the task only while no
 * other producer has counted any (the same requests are in the transcript: docs/otel.md, "Dedupe").
 */
function withTelemetryRequest(task: Task, data: EventDataOf<'telemetry.request'>, at: number): Task {
	const before = task.telemetry ?? {requests: 0, input: 0, output: 0, costUsd: null};
	const cost = data.costUsd ?? null;
	const isClaim = data.claimedCostUsd !== undefined && data.claimedCostUsd !== null;
	const telemetry: TaskTelemetry = {
		requests: before.requests + 1,
		input: before.input + (data.input ?? 0),
		output: before.output + (data.output ?? 0),
		// Rounded to the nano-dollar, so 2 × 0.006286 is 0.012572 and not 0.012572000000000001.
		costUsd: cost === null ? before.costUsd : Math.round(((before.costUsd ?? 0) + cost) * 1e9) / 1e9,
		at,
		sessionId: before.sessionId ?? data.sessionId ?? null,
		...(isClaim || (before.claims ?? 0) > 0 ? {claims: (before.claims ?? 0) + (isClaim ? 1 : 0)} : {}),
	};
	const countsTokens = task.isTokensFromTelemetry === true || task.tokens.total === null;
	return {
		...task,
		telemetry,
		...(countsTokens
			? {tokens: addTokens(task.tokens, {input: data.input ?? null, output: data.output ?? null}), isTokensFromTelemetry: true}
			: {}),
	};
}

/** The reason the reconciler gave, before task.merged, to an untracked row whose process became tracked. */
const LEGACY_ADOPTED_REASON = 'now tracked by a wrapper or hook';

/** An untracked row ended by a `task.ended` of an older build: merged when it was adopted, else vanished. */
function endUntracked(task: Task, at: number, reason: string | null): Task {
	return end(task, reason === LEGACY_ADOPTED_REASON ? 'merged' : 'vanished', at, {endReason: reason});
}

function declaredStart(steps: number | null): Progress | null {
	return steps === null ? null : makeProgress(0, steps);
}
