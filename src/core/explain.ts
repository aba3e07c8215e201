import {EventType, FOREIGN_EVENT, type LedgerEvent} from './events.ts';
import {formatKnown, formatTokens} from './format.ts';
import type {QueueLane} from './human-queue.ts';
import {statusLabel} from './labels.ts';
import type {PidFate, StampFate} from './process-tree.ts';
import {toSnapshotTask, type SnapshotTask} from './snapshot.ts';
import {DEFAULT_STALL_SECONDS, isEnded} from './status.ts';
import {applyEvent, isSessionAtRest, isWaitingForPerson, type Task} from './task.ts';
import {describeEvent} from './timeline.ts';

/** The things the board shows about a task, each explained. */
export const EXPLAINED_FIELDS = ['status', 'health', 'pid', 'progress', 'tokens', 'lane', 'queue', 'reactions'] as const;
export type ExplainedField = (typeof EXPLAINED_FIELDS)[number];

/**
 * How a shown value stands: `reported` (a producer's event set it), `derived` (computed at read
 * time from reported facts), `unknown` (no producer reported it), `disputed` (two signals disagree).
 */
export type Basis = 'reported' | 'derived' | 'unknown' | 'disputed';

/** One signal: a ledger event, or the process table read just now. */
export type Signal = {
	/** The event's sequence number; null for the process table, which is read, not stored. */
	readonly seq: number | null;
	/** The event type, or `process-table`. */
	readonly type: string;
	/** The producer: wrapper, claude, codex, reconciler, ...; `explain` for the process table. */
	readonly source: string;
	readonly at: number;
	/** What it says, in words. */
	readonly says: string;
};

export type Fact = {
	readonly field: ExplainedField;
	/** What the board shows for it. */
	readonly shows: string;
	readonly basis: Basis;
	/** The signal that set it; for a dispute, the signals that disagree, the one shown first. */
	readonly signals: readonly Signal[];
	/** One sentence of why, or null. */
	readonly note: string | null;
};

/** The task's PID as the process table has it now, with the recorded start time compared. */
export type ProcessCheck = {readonly pid: number; readonly fate: PidFate; readonly at: number};

/** A process a producer recorded for the task, as the process table has it now (src/producers/agent-tree.ts). */
export type RecordedCheck = {readonly pid: number; readonly fate: StampFate; readonly from: string};

/** The queue entry the task has, if any. */
export type QueueEntry = {readonly lane: QueueLane; readonly reason: string; readonly at: number; readonly seq: number};

export type ExplainInput = {
	readonly task: Task;
	/** The task's events, oldest first. */
	readonly events: readonly LedgerEvent[];
	readonly now: number;
	readonly stallSeconds?: number;
	readonly queueEntry: QueueEntry | null;
	/** The task's PID now; null when it has none or the process table was not read (the board). */
	readonly process: ProcessCheck | null;
	/** A wrapper task's wrapper process now, when recorded and read. */
	readonly wrapper: ProcessCheck | null;
	/** Every process producers recorded for the task, checked now; empty when the process table was not read. */
	readonly recorded?: readonly RecordedCheck[];
};

export type Explanation = {
	readonly task: SnapshotTask;
	readonly facts: readonly Fact[];
	/** Whether any fact is disputed. */
	readonly isDisputed: boolean;
};

/** The events that last set each fact, found by replaying the projection event by event. */
type Setters = {
	status: LedgerEvent | null;
	pid: LedgerEvent | null;
	progress: LedgerEvent | null;
	error: LedgerEvent | null;
	tokens: LedgerEvent[];
	live: LedgerEvent | null;
	lastSessionStart: LedgerEvent | null;
	lastSessionEnd: LedgerEvent | null;
	/** The last event saying a turn completed (a Stop or its like). */
	lastTurnEnd: LedgerEvent | null;
	lastAgentEvent: LedgerEvent | null;
};

function replay(events: readonly LedgerEvent[]): Setters {
	const setters: Setters = {
		status: null,
		pid: null,
		progress: null,
		error: null,
		tokens: [],
		live: null,
		lastSessionStart: null,
		lastSessionEnd: null,
		lastTurnEnd: null,
		lastAgentEvent: null,
	};
	let task: Task | undefined;
	for (const event of events) {
		if (event.type === FOREIGN_EVENT) continue;
		const next = applyEvent(task, event, event.seq);
		if (!next) continue;
		if (!task || next.status !== task.status) setters.status = event;
		if (next.pid !== (task?.pid ?? null)) setters.pid = event;
		if (next.progress !== (task?.progress ?? null)) setters.progress = event;
		if (next.error !== null && next.error !== (task?.error ?? null)) setters.error = event;
		if (event.type === EventType.tokensReported) setters.tokens.push(event);
		if (next.lastEventAt !== (task?.lastEventAt ?? -1) && event.at === next.lastEventAt) setters.live = event;
		if (event.type === EventType.agentEvent) {
			setters.lastAgentEvent = event;
			if (event.data.event === 'SessionStart') setters.lastSessionStart = event;
			if (event.data.event === 'SessionEnd') setters.lastSessionEnd = event;
			if (event.data.event === 'Stop' || event.data.event === 'turn.completed') setters.lastTurnEnd = event;
		}
		task = next;
	}
	return setters;
}

function signalOf(event: LedgerEvent): Signal {
	return {
		seq: event.seq,
		type: event.type === FOREIGN_EVENT ? event.storedType : event.type,
		source: event.source,
		at: event.at,
		says: describeEvent(event),
	};
}

function processSignal(check: ProcessCheck, role: string): Signal {
	const says =
		check.fate === 'alive'
			? `${role} ${check.pid} is running`
			: check.fate === 'gone'
				? `${role} ${check.pid} is gone`
				: `PID ${check.pid} now belongs to another process (start time differs)`;
	return {seq: null, type: 'process-table', source: 'explain', at: check.at, says};
}

const fact = (
	field: ExplainedField,
	shows: string,
	basis: Basis,
	signals: readonly Signal[],
	note: string | null = null,
): Fact => ({
	field,
	shows,
	basis,
	signals,
	note,
});

/** A live status whose process is gone, with nobody left to say so (a wrapper alive will record the exit). */
function goneWhileLive(input: ExplainInput): boolean {
	const {task, process, wrapper} = input;
	if (isEnded(task.status) || !process || process.fate === 'alive') return false;
	return !(task.source === 'wrapper' && wrapper?.fate === 'alive');
}

function explainStatus(input: ExplainInput, setters: Setters, view: SnapshotTask): Fact {
	const {task, process} = input;
	const shows = statusLabel(view);
	const set = setters.status ? [signalOf(setters.status)] : [];
	if (goneWhileLive(input) && process) {
		const outcome = isSessionAtRest(task) ? 'ended (its last turn had completed)' : 'lost';
		return fact(
			'status',
			shows,
			'disputed',
			[...set, processSignal(process, 'process')],
			`the ledger says ${task.status}, but its process is gone: the next reconciler pass records it ${outcome}`,
		);
	}
	if (task.status === 'lost' && process?.fate === 'alive') {
		return fact(
			'status',
			shows,
			'disputed',
			[...set, processSignal(process, 'process')],
			'the reconciler found it gone, but a process with its PID and start time runs now',
		);
	}
	if (task.status === 'failed' && task.exitCode === 0 && setters.error && setters.status) {
		return fact(
			'status',
			shows,
			'disputed',
			[signalOf(setters.error), signalOf(setters.status)],
			'the process exited 0, but its session failed and no later turn completed: failed',
		);
	}
	const late = task.status === 'stopped' ? agentEventAfterEnd(input.events, setters.status) : null;
	if (late && setters.status) {
		return fact(
			'status',
			shows,
			'disputed',
			[signalOf(setters.status), signalOf(late)],
			`the stop confirmed every process of the task gone, but its agent sent ${describeEvent(late)} after that`,
		);
	}
	const running = isEnded(task.status) ? (input.recorded ?? []).find(check => check.fate === 'matches') : undefined;
	if (running && setters.status && task.status !== 'lost') {
		return fact(
			'status',
			shows,
			'disputed',
			[signalOf(setters.status), recordedSignal(running, input.now)],
			`the task ${task.status === 'stopped' ? 'was stopped' : 'ended'}, but process ${running.pid} it recorded (${running.from}) still runs`,
		);
	}
	const sessionEnd = setters.lastSessionEnd ?? setters.lastTurnEnd;
	const isWrapperGone =
		task.source === 'wrapper' && setters.status?.type === EventType.ended && setters.status.source === 'reconciler';
	if (isWrapperGone && setters.status && sessionEnd) {
		return fact(
			'status',
			shows,
			'disputed',
			[signalOf(sessionEnd), signalOf(setters.status)],
			`its session ended cleanly (${describeEvent(sessionEnd)}), but its wrapper died without recording how the run ended: ${task.status}, exit code unknown`,
		);
	}
	const sessionNeverEnded =
		task.source === 'wrapper' &&
		task.status === 'done' &&
		setters.lastSessionStart !== null &&
		(setters.lastSessionEnd === null || setters.lastSessionEnd.seq < setters.lastSessionStart.seq);
	if (sessionNeverEnded && setters.status && setters.lastAgentEvent) {
		return fact(
			'status',
			shows,
			'disputed',
			[signalOf(setters.status), signalOf(setters.lastAgentEvent)],
			`the wrapper says the run is done, but session ${task.sessionId ?? ''} never sent SessionEnd (its last event is shown)`.replace(
				'  ',
				' ',
			),
		);
	}
	if (task.source !== 'wrapper' && isEnded(task.status) && task.status !== 'lost' && process?.fate === 'alive') {
		return fact(
			'status',
			shows,
			'disputed',
			[...set, processSignal(process, 'process')],
			`the session says it ended, but its process ${process.pid} still runs`,
		);
	}
	const why = task.endReason ?? (task.error && task.status === 'failed' ? task.error : null);
	return fact('status', shows, setters.status ? 'reported' : 'unknown', set, why);
}

/** What the note says about an event dated later than it was recorded, when the task holds one. */
function futureNote(task: Task): string {
	const future = task.futureEvent;
	if (!future) return '';
	return (
		`; event #${future.seq} is dated ${new Date(future.at).toISOString()}, later than when it was recorded, ` +
		`so it counts as ${new Date(future.countedAt).toISOString()}`
	);
}

function explainHealth(input: ExplainInput, view: SnapshotTask): Fact {
	const {task} = input;
	const seen = task.lastSeenSeq === null ? undefined : input.events.find(event => event.seq === task.lastSeenSeq);
	const signals = seen ? [signalOf(seen)] : [];
	const last =
		task.lastSeenSeq === null
			? `the agent has given no sign of life since the task was registered, ${view.idleSeconds}s ago`
			: `from the agent's last sign of life, ${view.idleSeconds}s ago (heartbeats do not count)`;
	if (view.health === null) {
		return fact(
			'health',
			'—',
			'derived',
			signals,
			`only running and untracked tasks have a health; this one is ${view.status}; ${last}${futureNote(task)}`,
		);
	}
	const threshold = task.stallSeconds ?? input.stallSeconds ?? DEFAULT_STALL_SECONDS;
	if (isWaitingForPerson(task, input.now))
		return fact(
			'health',
			view.health,
			'derived',
			signals,
			`${last}; it waits for a person's answer, so its silence is never a stall${futureNote(task)}`,
		);
	return fact('health', view.health, 'derived', signals, `${last}; stalled after ${threshold}s of silence${futureNote(task)}`);
}

/**
 * The first event from the agent dated after the stop confirmed its processes gone. Its goodbye
 * while it shut down (a SessionEnd hook run on SIGTERM) is dated before that and says nothing.
 */
function agentEventAfterEnd(events: readonly LedgerEvent[], ending: LedgerEvent | null): LedgerEvent | null {
	if (!ending) return null;
	return (
		events.find(
			event =>
				event.seq > ending.seq &&
				event.at > ending.at &&
				event.type === EventType.agentEvent &&
				// A resumed session starts again: that is a new run of it, not a dispute.
				event.data.event !== 'SessionStart',
		) ?? null
	);
}

function recordedSignal(check: RecordedCheck, at: number): Signal {
	return {seq: null, type: 'process-table', source: 'explain', at, says: `process ${check.pid} (${check.from}) is running`};
}

function explainPid(input: ExplainInput, setters: Setters): Fact {
	const {task, process, wrapper} = input;
	if (task.pid === null) {
		return fact(
			'pid',
			'unknown',
			'unknown',
			[],
			'no producer reported a PID: the task cannot be stopped, nor found lost when its process dies',
		);
	}
	const set = setters.pid ? [signalOf(setters.pid)] : [];
	const pidFrom = setters.pid && 'data' in setters.pid ? (setters.pid.data as Record<string, unknown>)['pidFrom'] : undefined;
	const checks = [process ? processSignal(process, 'process') : null, wrapper ? processSignal(wrapper, 'wrapper') : null].filter(
		(signal): signal is Signal => signal !== null,
	);
	const how = typeof pidFrom === 'string' ? `found by the hook from ${pidFrom}` : null;
	return fact('pid', String(task.pid), 'reported', [...set, ...checks], how);
}

function explainProgress(input: ExplainInput, setters: Setters): Fact {
	const {progress} = input.task;
	if (progress === null)
		return fact(
			'progress',
			'progress not reported',
			'unknown',
			[],
			'no total was declared (--steps, a todo list, a plan): no percent is made up',
		);
	return fact('progress', `${progress.done}/${progress.total}`, 'reported', setters.progress ? [signalOf(setters.progress)] : []);
}

function explainTokens(input: ExplainInput, setters: Setters): Fact {
	const {tokens, budget, source, isTokensPartial} = input.task;
	const shows = formatTokens(tokens, budget, isTokensPartial);
	if (tokens.total === null) {
		const why =
			source === 'codex'
				? "Codex's hooks carry no usage; `controlroom run` reads it from `codex exec --json`"
				: 'no producer reported usage';
		return fact('tokens', shows, 'unknown', [], why);
	}
	const latest = setters.tokens.at(-1);
	const producers = [...new Set(setters.tokens.map(event => event.source))].join(', ');
	return fact(
		'tokens',
		`${shows} (${formatKnown(tokens.input)} in / ${formatKnown(tokens.output)} out)`,
		'reported',
		latest ? [signalOf(latest)] : [],
		`the sum of ${setters.tokens.length} report${setters.tokens.length === 1 ? '' : 's'} by ${producers || 'no one'}; the newest is shown` +
			(isTokensPartial
				? "; partial: a /compact made model calls the transcript does not show, counted when Claude's own count (cost-state) comes"
				: ''),
	);
}

function explainLane(view: SnapshotTask, status: Fact): Fact {
	const note =
		view.status === 'untracked'
			? 'an agent process no wrapper or hook registered'
			: `from status ${view.status}${view.health ? ` and health ${view.health}` : ''}`;
	return fact(
		'lane',
		view.lane,
		status.basis === 'disputed' ? 'disputed' : 'derived',
		status.basis === 'disputed' ? status.signals : [],
		note,
	);
}

function explainQueue(input: ExplainInput, setters: Setters): Fact {
	const entry = input.queueEntry;
	if (!entry)
		return fact(
			'queue',
			'none',
			'derived',
			[],
			'no failure in the last two hours, no current need, nothing waiting for a person',
		);
	const event = input.events.find(candidate => candidate.seq === entry.seq);
	const source = event ?? (entry.lane === 'failed' ? (setters.error ?? setters.status) : null);
	return fact(
		'queue',
		`${entry.lane}: ${entry.reason}`,
		'derived',
		source ? [signalOf(source)] : [],
		'the newest signal of this task, not acknowledged since',
	);
}

/** The reaction rules that fired on the task and their deliveries (docs/reactions.md); null when none did. */
function explainReactions(input: ExplainInput): Fact | null {
	const events = input.events.filter(
		event => event.type === EventType.reactionFired || event.type === EventType.reactionDelivery,
	);
	const fired = events.filter(event => event.type === EventType.reactionFired).length;
	if (events.length === 0) return null;
	return fact(
		'reactions',
		`${fired} firing${fired === 1 ? '' : 's'}`,
		'reported',
		events.slice(-10).map(signalOf),
		'each firing of a reaction rule and each delivery attempt, the newest ten; a rule never approves anything',
	);
}

/**
 * Explains a task (docs/snapshot.md, "`controlroom explain`"): for each thing shown about it, the signal that set it, which
 * producer sent it and when; where two signals disagree (a hook says running and the process is
 * gone; the wrapper says done and the session never ended) the fact is `disputed` and names both.
 * Pure: the CLI reads the events, the queue entry and the process table, the board passes what it holds.
 */
export function explainTask(input: ExplainInput): Explanation {
	const setters = replay(input.events);
	const view = toSnapshotTask(input.task, input.now, input.stallSeconds);
	const status = explainStatus(input, setters, view);
	const facts = [
		status,
		explainHealth(input, view),
		explainPid(input, setters),
		explainProgress(input, setters),
		explainTokens(input, setters),
		explainLane(view, status),
		explainQueue(input, setters),
		// Only for a task a rule fired on: the other tasks' explanations stay as they were.
		...[explainReactions(input)].filter(item => item !== null),
	];
	return {task: view, facts, isDisputed: facts.some(item => item.basis === 'disputed')};
}

/** A signal in one line: `task.exited by wrapper, 3m ago: exited 0`. */
export function signalLine(signal: Signal, now: number, formatAge: (ms: number) => string): string {
	const name = signal.seq === null ? signal.type : `${signal.type} #${signal.seq}`;
	return `${name} by ${signal.source}, ${formatAge(now - signal.at)} ago: ${signal.says}`;
}
