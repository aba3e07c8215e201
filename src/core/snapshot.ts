import type {Stats} from './stats/measures.ts';
import type {SnapshotContract} from './contract/intake.ts';
import {assertNever} from './assert-never.ts';
import type {SnapshotDecision} from './decisions/view.ts';
import {disagreementReason, type DisagreementKind, type DisagreementRecord} from './disagreements.ts';
import type {SnapshotEffect} from './effects/view.ts';
import type {HumanQueue} from './human-queue.ts';
import type {Progress} from './progress.ts';
import type {ReviewOutcome, ReviewRecord, VerdictRecord} from './review/reviews.ts';
import type {VerdictKind} from './review/verdict.ts';
import {
	deriveHealth,
	DEFAULT_STALL_SECONDS,
	isEnded,
	LISTED_STATUSES,
	type Health,
	type ListedStatus,
	type Status,
} from './status.ts';
import {isWaitingForPerson, type Task, type TaskTelemetry, type TaskWorktree} from './task.ts';
import type {Tokens} from './tokens.ts';
import type {Cost} from './cost.ts';
import {helpersRunningLabel, type FamilyFacts} from './family.ts';
import {sessionSpendOf, type SessionSpend} from './session-spend.ts';

/** The board's lanes, in screen order. */
export const BOARD_LANES = ['running', 'stalled', 'lost', 'untracked', 'ended'] as const;
export type BoardLane = (typeof BOARD_LANES)[number];

/** Which lane a task is shown in. */
export function laneOf(status: Status, health: Health | null): BoardLane {
	switch (status) {
		case 'registered':
			return 'running';
		case 'running':
			return health === 'stalled' ? 'stalled' : 'running';
		case 'untracked':
			return health === 'stalled' ? 'stalled' : 'untracked';
		case 'lost':
			return 'lost';
		case 'done':
		case 'failed':
		case 'stopped':
		case 'vanished':
		case 'merged':
			// A merged row is never listed (isListed); were it, it would be an ended one.
			return 'ended';
		default:
			return assertNever(status);
	}
}

/** One task in snapshot JSON v1 (docs/snapshot.md). */
export type SnapshotTask = {
	id: string;
	/** The host the task runs on: the local ledger's host name, or on a fleet ledger each task's own. */
	host: string | null;
	title: string | null;
	source: string;
	role: string | null;
	status: Status;
	health: Health | null;
	pid: number | null;
	exitCode: number | null;
	signal: string | null;
	error: string | null;
	/** Why an ended task ended, as recorded (SessionEnd's reason, a stop's, the reconciler's); null while running. */
	endReason: string | null;
	/**
	 * An ended session whose helpers had not reported their end: how many (docs/tree-and-cost.md,
	 * "Helpers in the background"); absent otherwise. It ended with work outstanding.
	 */
	helpersUnfinished?: number;
	cwd: string | null;
	/** `run --worktree`: the run's own worktree (its `cwd`) and branch (docs/wrapper.md); absent on a task run in place. */
	worktree?: TaskWorktree;
	parentId: string | null;
	sessionId: string | null;
	progress: Progress | null;
	tokens: SnapshotTokens;
	/** What the agent's own OpenTelemetry reported: requests, tokens, exact cost in USD (docs/otel.md); null: none. */
	telemetry: TaskTelemetry | null;
	budget: number | null;
	startedAt: string | null;
	endedAt: string | null;
	/** The last event any producer recorded about the task (a heartbeat, the reconciler's verdict, ...). */
	lastEventAt: string;
	/** The agent's own last sign of life (its output, a hook, its transcript): what "last seen" and health are from. */
	lastSeenAt: string;
	/** Whole seconds since `lastSeenAt`. */
	idleSeconds: number;
	lane: BoardLane;
	/** The tree (docs/tree-and-cost.md); set by `withFamily`, always present in snapshot JSON. */
	children?: string[];
	/** Helpers under it, at any depth, still alive (the 15-minute cutoff applies). */
	helpersActive?: number;
	/** Helpers under it, at any depth, alive or not. */
	helpersTotal?: number;
	/** What it reads: `active (1 helper running)` while helpers work, else its status and health. */
	state?: string;
	/** Own tokens plus every descendant's, each answer counted once. */
	treeTokens?: SnapshotTokens;
	/** Its own answers priced (`priced: table`), or `unknown`. */
	cost?: Cost;
	/** The tree's: the agent's own figure where it reported one (`priced: reported`), else the table's. */
	treeCost?: Cost;
	/**
	 * A run that resumed a Claude session: the session's figures, its earlier runs included (what it
	 * had spent before, and with this run's tree); null for a run that began its session, whose
	 * tokens and cost are the session's (docs/tree-and-cost.md, "Resumed sessions").
	 */
	session?: SessionSpend | null;
	/** The tmux pane the agent runs in (server socket, pane id; docs/tmux.md), or null outside tmux. */
	tmux: {socket: string; pane: string} | null;
	/** Finished work: whether the snapshot's person (`seenBy`) has looked at it since it finished; null otherwise (docs/tmux.md). */
	seen: boolean | null;
};

/**
 * A task's health and lane with its helpers counted: its helpers working is its own sign of life,
 * so a parent waiting on them is not stalled (docs/tree-and-cost.md).
 */
export function carriedByHelpers(
	task: {readonly status: Status; readonly health: Health | null; readonly lane: BoardLane},
	facts: Pick<FamilyFacts, 'helpersActive'> | undefined,
): {readonly health: Health | null; readonly lane: BoardLane} {
	const isCarried = facts !== undefined && helpersRunningLabel(facts.helpersActive) !== null && task.health === 'stalled';
	return isCarried ? {health: 'active', lane: laneOf(task.status, 'active')} : {health: task.health, lane: task.lane};
}

/**
 * A task as snapshot JSON lists it: its view at `now`, whether `seen`, and its place in the tree.
 * Built as one object, its tree's fields set on it: a snapshot of 100,000 helpers copies no task twice.
 */
export function snapshotTaskOf(
	task: Task & {readonly host?: string},
	now: number,
	stallSeconds: number | undefined,
	host: string | null,
	facts: FamilyFacts | undefined,
	seen: boolean | null,
): SnapshotTask {
	const view = toSnapshotTask(task, now, stallSeconds, host);
	view.seen = seen;
	if (!facts) return view;
	const running = helpersRunningLabel(facts.helpersActive);
	const state = running ?? (view.health === null ? view.status : view.health);
	const carried = carriedByHelpers(view, facts);
	view.health = carried.health;
	view.lane = carried.lane;
	// The tree's fields, listed after `seen` (docs/snapshot.md).
	view.children = [...facts.children];
	view.helpersActive = facts.helpersActive;
	view.helpersTotal = facts.helpersTotal;
	view.state = state;
	view.treeTokens = {...facts.treeTokens};
	view.cost = facts.cost;
	view.treeCost = facts.treeCost;
	view.session = sessionSpendOf(task, facts.treeTokens, facts.treeCost);
	return view;
}

/** Token counts, and whether the total misses model calls the transcript does not show (docs/snapshot.md). */
export type SnapshotTokens = Tokens & {isPartial: boolean};

/** Per listed status (a merged row is counted as the task it became), plus `stalled`. */
export type SnapshotCounts = Record<ListedStatus | 'stalled', number>;

/** One reviewer's verdict in snapshot JSON (docs/snapshot.md). */
export type SnapshotVerdict = {
	taskId: string;
	reviewId: string;
	round: number;
	reviewer: number;
	command: string | null;
	reviewerTaskId: string | null;
	verdict: VerdictKind;
	fixes: string[];
	reason: string | null;
	signal: string | null;
	at: string;
	isDisagreement: boolean;
	/** Where the whole review stands. */
	outcome: ReviewOutcome;
};

/** The verdicts of each task's latest review, newest first, as snapshot JSON lists them. */
export function toSnapshotVerdicts(verdicts: readonly VerdictRecord[], reviews: readonly ReviewRecord[]): SnapshotVerdict[] {
	const outcomes = new Map(reviews.map(review => [review.reviewId, review.outcome]));
	return verdicts.map(entry => ({
		taskId: entry.taskId,
		reviewId: entry.reviewId,
		round: entry.round,
		reviewer: entry.reviewer,
		command: entry.command,
		reviewerTaskId: entry.reviewerTaskId,
		verdict: entry.verdict,
		fixes: [...entry.fixes],
		reason: entry.reason,
		signal: entry.signal,
		at: new Date(entry.at).toISOString(),
		isDisagreement: entry.isDisagreement,
		outcome: outcomes.get(entry.reviewId) ?? 'running',
	}));
}

/** One disagreement handed to a person, in snapshot JSON (docs/snapshot.md). */
export type SnapshotDisagreement = {
	/** The plan review's or mediation's task: `controlroom timeline` shows its rounds or offers. */
	taskId: string;
	kind: DisagreementKind;
	/** What could not be settled: a mediation's items, a plan review's open points. */
	items: string[];
	vetoes: {agent: string; item: string; option: string}[];
	agents: string[];
	/** The queue's line for it. */
	reason: string;
	at: string;
	/** Still in the queue: nobody acknowledged it since. */
	isOpen: boolean;
};

/** Disagreements opened since `since` (all with null), newest first. */
export function toSnapshotDisagreements(
	records: readonly DisagreementRecord[],
	openTaskIds: ReadonlySet<string>,
	since: number | null,
): SnapshotDisagreement[] {
	return records
		.filter(record => since === null || record.at >= since)
		.toReversed()
		.map(record => ({
			taskId: record.taskId,
			kind: record.kind,
			items: [...record.items],
			vetoes: record.vetoes.map(veto => ({...veto})),
			agents: [...record.agents],
			reason: disagreementReason(record),
			at: new Date(record.at).toISOString(),
			isOpen: openTaskIds.has(record.taskId),
		}));
}

/** Snapshot JSON version 1: names and meanings fixed, fields may be added. */
export type Snapshot = {
	version: 1;
	generatedAt: string;
	counts: SnapshotCounts;
	tasks: SnapshotTask[];
	queue: {
		lanes: {
			name: string;
			total: number;
			items: {taskId: string; host: string | null; reason: string; at: string; waitingSeconds: number}[];
		}[];
		total: number;
	};
	verdicts: SnapshotVerdict[];
	/** Staged effects: open ones, and those settled within the window (docs/snapshot.md). */
	effects: SnapshotEffect[];
	disagreements: SnapshotDisagreement[];
	/** The agents' questions: open ones, and those settled within the window (docs/decisions.md). */
	decisions: SnapshotDecision[];
	/** Contracts written through serve or an agent's mcp: drafts, ready, taken, handed in (docs/serve.md). */
	contracts: SnapshotContract[];
	/** On a fleet ledger only: every host that has synced, and how far (docs/fleet.md). */
	hosts?: SnapshotHost[];
	/** Whose looks the tasks' `seen` is about (docs/tmux.md, "Seen and unseen"); null when nobody's. */
	seenBy: string | null;
	/** Listed tasks that are finished work `seenBy` has not looked at. */
	unseen: number;
	/** The measures of docs/stats.md over the whole ledger (what `controlroom stats --json` prints); in JSON only. */
	stats?: Stats;
};

/** A host of a fleet snapshot. */
export type SnapshotHost = {name: string; id: string; lastSyncedAt: string; lastSeq: number};

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** `helpersUnfinished` of an ended task that still had helpers open, else nothing. */
function unfinishedOf(task: Pick<Task, 'status' | 'openHelpers'>): {helpersUnfinished?: number} {
	const open = task.openHelpers?.length ?? 0;
	return isEnded(task.status) && open > 0 ? {helpersUnfinished: open} : {};
}

/** A task's health and lane at `now`, its helpers not counted (see `carriedByHelpers`). */
export function healthAndLane(
	task: Pick<Task, 'status' | 'lastSeenAt' | 'stallSeconds' | 'waitingOn'>,
	now: number,
	stallSeconds = DEFAULT_STALL_SECONDS,
): {readonly health: Health | null; readonly lane: BoardLane} {
	// A run waiting for a person is not stalled: it waits for you (docs/headless-holds.md).
	const health = deriveHealth(
		task.status,
		task.lastSeenAt,
		now,
		task.stallSeconds ?? stallSeconds,
		isWaitingForPerson(task, now),
	);
	return {health, lane: laneOf(task.status, health)};
}

/** What time changes of a task: its health, its lane and how long it has been silent, at `now`. */
export function taskStateAt(
	task: Task,
	now: number,
	stallSeconds = DEFAULT_STALL_SECONDS,
): Pick<SnapshotTask, 'status' | 'health' | 'exitCode' | 'signal' | 'idleSeconds' | 'lane' | 'helpersUnfinished'> {
	const {health, lane} = healthAndLane(task, now, stallSeconds);
	return {
		status: task.status,
		health,
		exitCode: task.exitCode,
		signal: task.signal,
		idleSeconds: Math.max(0, Math.floor((now - task.lastSeenAt) / 1000)),
		lane,
		// The status cell says a session cut short with its helpers' work outstanding (labels.ts).
		...unfinishedOf(task),
	};
}

/** The JSON view of one task at time `now`. */
export function toSnapshotTask(
	task: Task & {readonly host?: string},
	now: number,
	stallSeconds = DEFAULT_STALL_SECONDS,
	host: string | null = null,
): SnapshotTask {
	const {health, idleSeconds, lane} = taskStateAt(task, now, stallSeconds);
	return {
		id: task.id,
		host: task.host ?? host,
		title: task.title,
		source: task.source,
		role: task.role,
		status: task.status,
		health,
		pid: task.pid,
		exitCode: task.exitCode,
		signal: task.signal,
		error: task.error,
		endReason: task.endReason,
		...unfinishedOf(task),
		cwd: task.cwd,
		...(task.worktree ? {worktree: task.worktree} : {}),
		parentId: task.parentId,
		sessionId: task.sessionId,
		progress: task.progress,
		tokens: {...task.tokens, isPartial: task.isTokensPartial},
		telemetry: task.telemetry ?? null,
		budget: task.budget,
		startedAt: iso(task.startedAt),
		endedAt: iso(task.endedAt),
		lastEventAt: new Date(task.lastEventAt).toISOString(),
		lastSeenAt: new Date(task.lastSeenAt).toISOString(),
		idleSeconds,
		lane,
		session: sessionSpendOf(task, task.tokens, null),
		tmux: task.tmux ? {socket: task.tmux.socket, pane: task.tmux.pane} : null,
		seen: null,
	};
}

export type SnapshotInput = {
	/** Tasks to list (toSnapshotTask): all not ended, plus those that ended within the window; on a fleet, each with its host. */
	readonly tasks: readonly SnapshotTask[];
	/** The host of a local ledger's queue entries. */
	readonly host?: string | null;
	readonly hosts?: readonly SnapshotHost[];
	/** Status counts over the whole ledger. */
	readonly statusCounts: Readonly<Record<Status, number>>;
	readonly queue: HumanQueue;
	readonly now: number;
	readonly verdicts?: readonly SnapshotVerdict[];
	readonly effects?: readonly SnapshotEffect[];
	readonly disagreements?: readonly SnapshotDisagreement[];
	readonly decisions?: readonly SnapshotDecision[];
	/** Tasks listed only in their parent's `children` (a folded helper), for `counts.stalled` and `unseen`. */
	readonly folded?: readonly {readonly health: Health | null; readonly seen: boolean | null}[];
	readonly contracts?: readonly SnapshotContract[];
	/** Whose looks the tasks' `seen` is about. */
	readonly seenBy?: string | null;
};

/** Builds snapshot JSON v1. `counts.stalled` counts running or untracked tasks whose health is stalled. */
export function buildSnapshot(input: SnapshotInput): Snapshot {
	const host = input.host ?? null;
	const tasks = [...input.tasks];
	const counts = Object.fromEntries(LISTED_STATUSES.map(status => [status, input.statusCounts[status] ?? 0])) as SnapshotCounts;
	const folded = input.folded ?? [];
	counts.stalled = [...tasks, ...folded].filter(task => task.health === 'stalled').length;
	return {
		version: 1,
		generatedAt: new Date(input.now).toISOString(),
		counts,
		tasks,
		queue: {
			lanes: input.queue.lanes.map(lane => ({
				name: lane.name,
				total: lane.total,
				items: lane.items.map(item => ({
					taskId: item.taskId,
					host: item.host ?? host,
					reason: item.reason,
					at: new Date(item.at).toISOString(),
					waitingSeconds: Math.max(0, Math.floor((input.now - item.at) / 1000)),
				})),
			})),
			total: input.queue.total,
		},
		verdicts: [...(input.verdicts ?? [])],
		effects: [...(input.effects ?? [])],
		disagreements: [...(input.disagreements ?? [])],
		decisions: [...(input.decisions ?? [])],
		contracts: [...(input.contracts ?? [])],
		...(input.hosts ? {hosts: [...input.hosts]} : {}),
		seenBy: input.seenBy ?? null,
		unseen: [...tasks, ...folded].filter(task => task.seen === false).length,
	};
}
