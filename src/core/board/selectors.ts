import {formatDuration, formatKnown, formatProgress, formatTokens} from '../format.ts';
import type {HumanQueue} from '../human-queue.ts';
import {LANE_TITLES, statusLabel} from '../labels.ts';
import {BOARD_LANES, toSnapshotTask, type BoardLane} from '../snapshot.ts';
import {DEFAULT_STALL_SECONDS, isEnded} from '../status.ts';
import {taskKey} from '../fleet.ts';
import type {Task} from '../task.ts';
import type {BoardTask} from './state.ts';
import {statusTone, type Tone} from './tone.ts';

/** One task row, every cell preformatted. */
export type TaskRowView = {
	/** The task's key on the board (its id; host and id on a fleet ledger). */
	readonly id: string;
	/** The task id as shown. */
	readonly shownId: string;
	/** The host, on a fleet ledger; null on a local one. */
	readonly host: string | null;
	/** Fleet requests for this task not answered yet, e.g. `stop pending`; null when none. */
	readonly pending: string | null;
	readonly title: string;
	readonly source: string;
	readonly status: string;
	readonly tone: Tone;
	readonly age: string;
	readonly idle: string;
	readonly progress: string;
	readonly tokens: string;
	readonly pid: string;
	readonly lane: BoardLane;
	/** Why `s` cannot stop this task, or null when it can. */
	readonly stopBlocked: string | null;
};

/** A line of the lanes area: a lane heading, a task, or the words for an empty lane. */
export type LaneLine =
	| {readonly kind: 'lane'; readonly lane: BoardLane; readonly title: string; readonly count: number}
	| {readonly kind: 'row'; readonly row: TaskRowView}
	| {readonly kind: 'empty'; readonly lane: BoardLane};

/** How the board reads tasks into lanes. */
export type BoardOptions = {
	/** Silence after which a running task is stalled, unless the task carries its own. */
	readonly stallSeconds?: number;
	/** Ended tasks stay in `recently ended` this long. */
	readonly endedWindowMs?: number;
	/** The ledger shown, as the header names it (`~` for the home folder). */
	readonly ledgerLabel?: string;
};

/** Ended tasks stay on the board for a day, as in `controlroom snapshot`. */
export const DEFAULT_ENDED_WINDOW_MS = 24 * 3_600_000;

/** Why a task cannot be stopped from the board, or null. */
export function stopBlockedReason(task: Pick<Task, 'status' | 'pid'>): string | null {
	if (isEnded(task.status)) return `it has already ended (${task.status})`;
	if (task.pid === null) return 'its PID is unknown';
	return null;
}

/** Preformats one task for its row. */
export function toRowView(
	task: BoardTask,
	now: number,
	stallSeconds = DEFAULT_STALL_SECONDS,
	pending: readonly string[] = [],
): TaskRowView {
	const view = toSnapshotTask(task, now, stallSeconds);
	const started = task.startedAt ?? task.createdAt;
	return {
		id: taskKey(task),
		shownId: task.id,
		host: task.host ?? null,
		pending: pending.length > 0 ? `${pending.join(', ')} pending` : null,
		title: task.title ?? '—',
		source: task.source,
		status: statusLabel(view),
		tone: statusTone(view.status, view.health),
		age: formatDuration(now - started),
		idle: `last seen ${formatDuration(view.idleSeconds * 1000)} ago`,
		progress: formatProgress(task.progress),
		tokens: formatTokens(task.tokens, task.budget),
		pid: formatKnown(task.pid),
		lane: view.lane,
		stopBlocked: stopBlockedReason(task),
	};
}

function matchesFilter(row: TaskRowView, filter: string): boolean {
	if (filter === '') return true;
	const needle = filter.toLowerCase();
	return [row.shownId, row.title, row.source, row.status, row.host ?? ''].some(cell => cell.toLowerCase().includes(needle));
}

/** The lanes, in screen order, with their rows; also the row order `j`/`k` move through. */
export type LanesView = {
	readonly lines: readonly LaneLine[];
	readonly order: readonly string[];
	readonly counts: Readonly<Record<BoardLane, number>>;
	/** Hosts among the tasks shown; the board adds a host column when there is more than one. */
	readonly hosts: number;
};

/** Sorts tasks into lanes: ended ones newest first, the rest newest started first. */
export function selectLanes(
	tasks: Iterable<BoardTask>,
	now: number,
	filter: string,
	options: BoardOptions = {},
	pending: ReadonlyMap<string, readonly string[]> = new Map(),
): LanesView {
	const hosts = new Set<string>();
	const endedSince = now - (options.endedWindowMs ?? DEFAULT_ENDED_WINDOW_MS);
	const byLane = new Map<BoardLane, {task: Task; row: TaskRowView}[]>(BOARD_LANES.map(lane => [lane, []]));
	for (const task of tasks) {
		if (task.endedAt !== null && task.endedAt < endedSince) continue;
		const row = toRowView(task, now, options.stallSeconds, pending.get(taskKey(task)));
		if (task.host !== undefined) hosts.add(task.host);
		if (!matchesFilter(row, filter)) continue;
		byLane.get(row.lane)?.push({task, row});
	}
	const lines: LaneLine[] = [];
	const order: string[] = [];
	const counts = {} as Record<BoardLane, number>;
	for (const lane of BOARD_LANES) {
		const entries = byLane.get(lane) ?? [];
		entries.sort((a, b) =>
			lane === 'ended'
				? (b.task.endedAt ?? 0) - (a.task.endedAt ?? 0)
				: b.task.createdAt - a.task.createdAt || a.task.id.localeCompare(b.task.id),
		);
		counts[lane] = entries.length;
		lines.push({kind: 'lane', lane, title: LANE_TITLES[lane], count: entries.length});
		if (entries.length === 0) lines.push({kind: 'empty', lane});
		for (const {row} of entries) {
			lines.push({kind: 'row', row});
			order.push(row.id);
		}
	}
	return {lines, order, counts, hosts: hosts.size};
}

/**
 * The slice of lines that fits `height`, keeping the selected row in view (a window sized to the
 * screen, STYLE.md R18), with how many lines are hidden above and below.
 */
export function windowLines(
	lines: readonly LaneLine[],
	selectedId: string | null,
	height: number,
): {lines: readonly LaneLine[]; above: number; below: number} {
	if (lines.length <= height) return {lines, above: 0, below: 0};
	const index = Math.max(
		0,
		lines.findIndex(line => line.kind === 'row' && line.row.id === selectedId),
	);
	const start = Math.max(0, Math.min(index - Math.floor(height / 3), lines.length - height));
	return {lines: lines.slice(start, start + height), above: start, below: lines.length - start - height};
}

/** A Needs you entry, preformatted. */
export type QueueItemView = {
	/** The task's key on the board (its id; host and id on a fleet ledger). */
	readonly taskId: string;
	readonly title: string;
	readonly reason: string;
	readonly age: string;
	readonly at: number;
	/** The whole entry as one line: id, reason, title, age. */
	readonly text: string;
};
/** A Needs you lane: at most five entries and the count of the rest. */
export type QueueLaneView = {readonly name: string; readonly items: readonly QueueItemView[]; readonly more: number};

/** The Needs you panel: non-empty lanes only, and the entries in the order the cursor moves. */
export function selectQueue(
	queue: HumanQueue,
	tasks: ReadonlyMap<string, Task>,
	now: number,
	pending: ReadonlyMap<string, readonly string[]> = new Map(),
): {lanes: QueueLaneView[]; order: QueueItemView[]; total: number} {
	const lanes = queue.lanes
		.filter(lane => lane.total > 0)
		.map(lane => ({
			name: lane.name,
			more: lane.total - lane.items.length,
			items: lane.items.map(item => {
				const key = taskKey({id: item.taskId, host: item.host});
				const title = tasks.get(key)?.title ?? '';
				const age = `${formatDuration(now - item.at)} ago`;
				const where = item.host === undefined ? '' : ` on ${item.host}`;
				const isAckPending = pending.get(key)?.includes('acknowledge') === true;
				return {
					taskId: key,
					title,
					reason: item.reason,
					age,
					at: item.at,
					text: `${item.taskId}${where}  ${item.reason}${title ? ` — ${title}` : ''}  ${age}${isAckPending ? '  (acknowledgement pending)' : ''}`,
				};
			}),
		}));
	return {lanes, order: lanes.flatMap(lane => lane.items), total: queue.total};
}

/** The header counts line. */
export function selectHeader(counts: Readonly<Record<BoardLane, number>>, queueTotal: number, filter: string, hosts = 0): string {
	const parts = BOARD_LANES.map(lane => `${lane === 'ended' ? 'ended' : lane} ${counts[lane]}`);
	parts.push(`needs you ${queueTotal}`);
	if (hosts > 1) parts.push(`${hosts} hosts`);
	if (filter !== '') parts.push(`filter “${filter}”`);
	return parts.join(' · ');
}

/** The ledger's name for the header, cut in the middle to `max` characters so its file name stays whole. */
export function ledgerHeaderLabel(label: string, max: number): string {
	if (label.length <= max) return label;
	const keep = Math.max(4, max - 1);
	const tail = Math.ceil(keep / 2) + Math.floor(keep / 4);
	return `${label.slice(0, keep - tail)}…${label.slice(-tail)}`;
}
