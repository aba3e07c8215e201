import {formatDuration, formatKnown, formatProgress, formatTokens, UNKNOWN} from '../format.ts';
import type {HumanQueue} from '../human-queue.ts';
import {LANE_TITLES, LANE_WORDS, statusLabel} from '../labels.ts';
import {BOARD_LANES, taskStateAt, type BoardLane} from '../snapshot.ts';
import {builtInOf} from '../settings.ts';
import {DEFAULT_STALL_SECONDS, isEnded, isListed} from '../status.ts';
import {taskKey} from '../fleet.ts';
import type {Task, TaskWorktree} from '../task.ts';
import {changeSize} from '../timeline.ts';
import type {BoardTask} from './state.ts';
import type {KeyBinding} from './keymap.ts';
import {layoutIds} from './ids.ts';
import {compareTasks, type SortOrder} from './sort.ts';
import {claimEnding} from '../claim-state.ts';
import {terminalSafe} from '../terminal-text.ts';
import {statusTone, type Tone} from './tone.ts';
import {formatCost, type Cost} from '../cost.ts';
import {familyAt, familyTree, helpersRunningLabel, helpersSummary, type FamilyFacts, type FamilyTree} from '../family.ts';
import {shippedPriceTable, type PriceTable} from '../price-table.ts';
import {BURN_WINDOW_MINUTES, burnOf, formatBurn} from '../burn.ts';
import {isUnseen} from '../seen.ts';
import type {PastView} from './past-moment.ts';

/** One task row, every cell preformatted. */
export type TaskRowView = {
	/** The task's key on the board (its id; host and id on a fleet ledger). */
	readonly id: string;
	/** The id as the id column writes it: whole, or cut to a unique prefix with `…`. */
	readonly shownId: string;
	/** The host, on a fleet ledger; null on a local one. */
	readonly host: string | null;
	/** Fleet requests for this task not answered yet, e.g. `stop pending`; null when none. */
	readonly pending: string | null;
	readonly title: string;
	/** `run --worktree`: its branch and the change on it (`fix/export 1 file +12`), kept at the title's end; absent otherwise. */
	readonly worktree?: string | null;
	readonly source: string;
	readonly status: string;
	readonly tone: Tone;
	readonly age: string;
	/** `last seen 2m ago`, for the lines that name it. */
	readonly idle: string;
	/** `2m ago`, under the LAST SEEN heading. */
	readonly seen: string;
	readonly progress: string;
	readonly tokens: string;
	/** Its own cost beside its tokens: `$0.0063`, `unknown`; a reported figure ends in `*` (docs/tree-and-cost.md). */
	readonly cost: string;
	readonly pid: string;
	readonly lane: BoardLane;
	/** Its place in the tree: helpers under it, whether they are shown, its depth, its parent's key; null for a lone task. */
	readonly tree?: TreeCell | null;
	/** Its tree's burn rate over the last ten minutes (`burn 1.4k tok/min · $0.057/min`), or null. */
	readonly burn?: string | null;
	/** Why `s` cannot stop this task, or null when it can. */
	readonly stopBlocked: string | null;
	/** Finished since the board's person last looked at it: drawn bold with `●` (docs/tmux.md). */
	readonly isUnseen?: boolean;
};

/** A row's place in the tree of helpers. */
export type TreeCell = {
	readonly helpers: number;
	readonly isOpen: boolean;
	/** 0 for a task in its lane, 1 for its helper, and so on. */
	readonly depth: number;
	readonly parentKey: string | null;
};

/** A line of the lanes area: a lane heading (an empty lane says `none` on it), or a task. */
export type LaneLine =
	| {readonly kind: 'lane'; readonly lane: BoardLane; readonly title: string; readonly count: number}
	| {readonly kind: 'row'; readonly row: TaskRowView};

/** How the board reads tasks into lanes. */
export type BoardOptions = {
	/** Silence after which a running task is stalled, unless the task carries its own. */
	readonly stallSeconds?: number;
	/** Ended tasks stay in `recently ended` this long. */
	readonly endedWindowMs?: number;
	/** The ledger shown, as the header names it (`~` for the home folder). */
	readonly ledgerLabel?: string;
	/** Prices for the cost column; the shipped table when absent. */
	readonly prices?: PriceTable;
	/** Whose looks count for seen and unseen (docs/tmux.md); without a person nothing is marked unseen. */
	readonly person?: string;
	/** The moment a board at a past moment shows (`board --at`, past-moment.ts); absent on the live board. */
	readonly past?: PastView;
	/** The key table in force: the config file's `keys` applied (key-config.ts); the built-in one when absent. */
	readonly keyTable?: readonly KeyBinding[];
	/** A board for a shared screen (`board --read-only`): help and the bar show no action key. */
	readonly isReadOnly?: boolean;
};

/** Ended tasks stay on the board for a day, as in `controlroom snapshot`, unless configured (docs/config.md). */
export const DEFAULT_ENDED_WINDOW_MS = builtInOf('endedWindow');

/** Why a task cannot be stopped from the board, or null: the checks `controlroom stop` makes before it signals. */
export function stopBlockedReason(task: Pick<Task, 'status' | 'pid'> & Partial<Pick<Task, 'endReason'>>): string | null {
	if (task.status === 'lost') return `it is lost (${task.endReason ?? 'its process is gone'}): nothing is left to stop`;
	if (isEnded(task.status)) return `it has already ended (${task.status})`;
	if (task.pid === null) return 'its PID is unknown';
	return null;
}

/** The status cell: a claim handed in, accepted, passed back or rejected says so, rather than a bare done/stopped. */
function rowStatus(task: Task, label: string): string {
	return claimEnding(task) ?? label;
}

/**
 * Preformats one task for its row; text from the ledger is made safe for the terminal here. The
 * row's id is the task's board key (host and id on a fleet); `pending` lists its fleet requests
 * not answered yet.
 */
export function toRowView(
	task: BoardTask,
	now: number,
	stallSeconds = DEFAULT_STALL_SECONDS,
	pending: readonly string[] = [],
	shownId = task.id,
	family?: FamilyFacts,
): TaskRowView {
	// Only what time changes: the whole snapshot view (dates as ISO text, the session's spend) cost
	// most of a refresh, for every listed task, every second.
	const view = taskStateAt(task, now, stallSeconds);
	const running = family ? helpersRunningLabel(family.helpersActive) : null;
	// A task whose helpers work is active, whatever its own silence says (docs/tree-and-cost.md).
	const isCarried = running !== null && view.health === 'stalled';
	const started = task.startedAt ?? task.createdAt;
	return {
		id: terminalSafe(taskKey(task)),
		shownId: terminalSafe(shownId),
		host: task.host === undefined ? null : terminalSafe(task.host),
		pending: pending.length > 0 ? `${pending.join(', ')} pending` : null,
		title: task.title === null ? '—' : terminalSafe(task.title),
		...(task.worktree ? {worktree: worktreeCell(task.worktree)} : {}),
		source: terminalSafe(task.source),
		status: running ?? rowStatus(task, statusLabel(view)),
		tone: statusTone(view.status, isCarried || running !== null ? 'active' : view.health),
		age: formatDuration(now - started),
		idle: `last seen ${formatDuration(view.idleSeconds * 1000)} ago`,
		seen: `${formatDuration(view.idleSeconds * 1000)} ago`,
		progress: formatProgress(task.progress),
		// The tree's spend: a budget counts the whole tree (docs/tree-and-cost.md); for a task with no helpers it is its own.
		tokens: family
			? formatTokens(family.treeTokens, task.budget, family.treeTokens.isPartial)
			: formatTokens(task.tokens, task.budget, task.isTokensPartial),
		cost: family ? costCell(family.treeCost) : UNKNOWN,
		pid: formatKnown(task.pid),
		lane: isCarried ? 'running' : view.lane,
		stopBlocked: stopBlockedReason(task),
	};
}

/** A worktree task's branch and the size of its change, as the row ends its title with them. */
export function worktreeCell(worktree: TaskWorktree): string {
	const change = worktree.change;
	return terminalSafe(`${worktree.branch}${change ? ` ${changeSize(change.files, change.added, change.removed)}` : ''}`);
}

/** The cost cell: the amount, `*` after a figure the agent reported itself. */
export function costCell(cost: Cost): string {
	return `${formatCost(cost)}${cost.priced === 'reported' ? '*' : ''}`;
}

function matchesFilter(row: TaskRowView, filter: string): boolean {
	const needle = filter.trim().toLowerCase();
	if (needle === '') return true;
	return [row.id, row.title, row.source, row.status, row.host ?? ''].some(cell => cell.toLowerCase().includes(needle));
}

/** The lanes, in screen order, with their rows; also the row order `j`/`k` move through. */
export type LanesView = {
	readonly lines: readonly LaneLine[];
	readonly order: readonly string[];
	readonly counts: Readonly<Record<BoardLane, number>>;
	/** Hosts among the tasks shown; the board adds a host column when there is more than one. */
	readonly hosts: number;
	/** The id column's width for these rows. */
	readonly idWidth: number;
	/** Every task's row, helpers folded away included: the drill-down shows the same cells (cost, burn). */
	readonly rows?: RowLookup;
	/** The whole board's burn rate over the last ten minutes, or null while nothing was spent. */
	readonly burn?: string | null;
	/** Finished tasks shown that the board's person has not looked at yet. */
	readonly unseen?: number;
};

/** What the lanes are drawn with besides the tasks. */
export type LanesQuery = {
	readonly filter: string;
	readonly sort?: SortOrder;
	/** The widest the id column may grow (see `idColumnCap`). */
	readonly idCap?: number;
	/** Tasks whose helpers are shown beneath them. */
	readonly openTrees?: ReadonlySet<string>;
};

/** Rows looked up by task id, each made when it is first asked for; iterating makes every row. */
export type RowLookup = {
	get(id: string): TaskRowView | undefined;
	[Symbol.iterator](): IterableIterator<[string, TaskRowView]>;
};

/** A task with spend in its burn buckets, and the newest minute it spent in. */
type Burning = {readonly task: BoardTask; readonly lastMinute: number};

/**
 * What the lanes are made of that the clock does not change: which tasks are shown, the tree and
 * its spend, who is unseen. Made once for a set of tasks (and again when an ended task leaves the
 * window), so a board of 100,000 helpers folded under their parent pays for the rows it draws each
 * second, not for every helper.
 */
type LanesBase = {
	readonly shownTasks: readonly BoardTask[];
	readonly byId: ReadonlyMap<string, BoardTask>;
	readonly tree: FamilyTree;
	/** The tasks of the lanes: every shown task but a helper whose parent is shown (drawn beneath it). */
	readonly roots: readonly BoardTask[];
	readonly allIds: readonly string[];
	/** For each task with helpers, its tree's tasks with spend, newest minute first; and the whole board's. */
	readonly burningUnder: ReadonlyMap<string, readonly Burning[]>;
	readonly burningAll: readonly Burning[];
	readonly unseen: ReadonlySet<string>;
	readonly hosts: number;
	/** The base is made again from this time on: the oldest ended task then leaves the window. */
	readonly validUntil: number;
};

/** The base last made for a set of tasks (a board's tasks map), by what else it depends on. */
const lanesBases = new WeakMap<object, {readonly key: string; readonly prices: PriceTable; readonly base: LanesBase}>();

function lastMinuteOf(task: BoardTask): number {
	let last = -Infinity;
	for (const bucket of task.burn ?? []) if (bucket.minute > last) last = bucket.minute;
	return last;
}

function lanesBase(all: readonly BoardTask[], now: number, options: BoardOptions): LanesBase {
	const windowMs = options.endedWindowMs ?? DEFAULT_ENDED_WINDOW_MS;
	const endedSince = now - windowMs;
	const prices = options.prices ?? shippedPriceTable();
	let validUntil = Infinity;
	const shownTasks = all.filter(task => {
		if (!isListed(task)) return false;
		if (task.endedAt === null) return true;
		if (task.endedAt < endedSince) return false;
		validUntil = Math.min(validUntil, task.endedAt + windowMs);
		return true;
	});
	const byId = new Map(shownTasks.map(task => [task.id, task]));
	// A helper whose parent is shown sits beneath it (docs/tree-and-cost.md); one whose parent is not is a task of its lane.
	const roots = shownTasks.filter(task => task.parentId === null || task.parentId === task.id || !byId.has(task.parentId));
	const burningAll: Burning[] = [];
	const burningUnder = new Map<string, Burning[]>();
	for (const task of shownTasks) {
		const lastMinute = lastMinuteOf(task);
		if (lastMinute === -Infinity) continue;
		const burning = {task, lastMinute};
		burningAll.push(burning);
		// Its own tree and every tree above it (a cycle in the ids is cut where it closes).
		const seen = new Set<string>();
		for (
			let at: BoardTask | undefined = task;
			at && !seen.has(at.id);
			at = at.parentId === null ? undefined : byId.get(at.parentId)
		) {
			seen.add(at.id);
			const list = burningUnder.get(at.id);
			if (list) list.push(burning);
			else burningUnder.set(at.id, [burning]);
		}
	}
	const newestFirst = (a: Burning, b: Burning): number => b.lastMinute - a.lastMinute;
	burningAll.sort(newestFirst);
	for (const list of burningUnder.values()) list.sort(newestFirst);
	const person = options.person ?? null;
	const hosts = new Set(shownTasks.flatMap(task => (task.host === undefined ? [] : [task.host])));
	return {
		shownTasks,
		byId,
		tree: familyTree(shownTasks, {now, prices}),
		roots,
		allIds: all.map(task => task.id),
		burningUnder,
		burningAll,
		unseen: new Set(shownTasks.filter(task => isUnseen(task, person)).map(task => task.id)),
		hosts: hosts.size,
		validUntil,
	};
}

/** The base for these tasks, made again only when they, the options or the window's edge changed. */
function baseOf(tasks: Iterable<BoardTask> | ReadonlyMap<string, BoardTask>, now: number, options: BoardOptions): LanesBase {
	if (!(tasks instanceof Map)) return lanesBase([...(tasks as Iterable<BoardTask>)], now, options);
	const key = `${options.endedWindowMs ?? ''}\u0000${options.person ?? ''}`;
	const prices = options.prices ?? shippedPriceTable();
	const kept = lanesBases.get(tasks);
	if (kept && kept.key === key && kept.prices === prices && now < kept.base.validUntil) return kept.base;
	const base = lanesBase([...(tasks as ReadonlyMap<string, BoardTask>).values()], now, options);
	lanesBases.set(tasks, {key, prices, base});
	return base;
}

/** The burn of the tasks among `burning` that spent within the window at `now`. */
function recentBurn(burning: readonly Burning[], now: number, prices: PriceTable): string | null {
	const from = Math.floor(now / 60_000) - BURN_WINDOW_MINUTES + 1;
	const recent: BoardTask[] = [];
	for (const entry of burning) {
		if (entry.lastMinute < from) break;
		recent.push(entry.task);
	}
	return recent.length === 0 ? null : formatBurn(burnOf(recent, now, prices));
}

/**
 * Sorts tasks into lanes, each lane in the chosen order (newest first unless told). Given the
 * board's tasks map (rather than a list), what does not change with the clock is kept between calls
 * for as long as the map is the same one.
 */
export function selectLanes(
	tasks: Iterable<BoardTask> | ReadonlyMap<string, BoardTask>,
	now: number,
	query: LanesQuery,
	options: BoardOptions = {},
	pending: ReadonlyMap<string, readonly string[]> = new Map(),
): LanesView {
	const base = baseOf(tasks, now, options);
	const prices = options.prices ?? shippedPriceTable();
	const family = familyAt(base.tree, now);
	const rowFor = rowMaker(base, family, now, options, pending);
	const byLane = new Map<BoardLane, {task: Task; row: TaskRowView}[]>(BOARD_LANES.map(lane => [lane, []]));
	for (const task of base.roots) {
		const row = rowFor(task);
		if (!matchesFilter(row, query.filter)) continue;
		byLane.get(row.lane)?.push({task, row});
	}
	const ids = layoutIds(
		[...byLane.values()].flatMap(entries => entries.map(entry => entry.task.id)),
		base.allIds,
		query.idCap ?? Number.MAX_SAFE_INTEGER,
	);
	const {lines, order, counts} = laneLines(byLane, rowFor, base.byId, family, ids, query);
	const rows: RowLookup = {
		get: id => {
			const task = base.byId.get(id);
			return task === undefined ? undefined : rowFor(task);
		},
		*[Symbol.iterator]() {
			for (const task of base.shownTasks) yield [task.id, rowFor(task)] as [string, TaskRowView];
		},
	};
	return {
		lines,
		order,
		counts,
		hosts: base.hosts,
		idWidth: ids.width,
		rows,
		burn: recentBurn(base.burningAll, now, prices),
		unseen: base.unseen.size,
	};
}

/** Each task's row (burn, unseen and pending marks on), made the first time it is asked for and kept for this frame. */
function rowMaker(
	base: LanesBase,
	family: ReturnType<typeof familyAt>,
	now: number,
	options: BoardOptions,
	pending: ReadonlyMap<string, readonly string[]>,
): (task: BoardTask) => TaskRowView {
	const prices = options.prices ?? shippedPriceTable();
	const made = new Map<string, TaskRowView>();
	return task => {
		const known = made.get(task.id);
		if (known) return known;
		const facts = family.get(task.id);
		// Its tree's spend (its own, with no helpers) in the window; most of a history has none to work out.
		const burning = base.burningUnder.get(task.id);
		const burn = burning === undefined ? null : recentBurn(burning, now, prices);
		const view = toRowView(task, now, options.stallSeconds, pending.get(taskKey(task)), task.id, facts);
		const marked = base.unseen.has(task.id) ? {...view, isUnseen: true} : view;
		const row = burn === null ? marked : {...marked, burn};
		made.set(task.id, row);
		return row;
	};
}

/** The lanes' lines in screen order (each lane's heading, then its rows, open trees' helpers beneath), and the cursor's order. */
function laneLines(
	byLane: ReadonlyMap<BoardLane, {task: Task; row: TaskRowView}[]>,
	rowFor: (task: BoardTask) => TaskRowView,
	byId: ReadonlyMap<string, BoardTask>,
	family: ReturnType<typeof familyAt>,
	ids: ReturnType<typeof layoutIds>,
	query: LanesQuery,
): {lines: LaneLine[]; order: string[]; counts: Record<BoardLane, number>} {
	const lines: LaneLine[] = [];
	const order: string[] = [];
	const counts = {} as Record<BoardLane, number>;
	const openTrees = query.openTrees ?? new Set<string>();
	// Helpers in the order they started, as the parent started them.
	const compareHelpers = (a: Task, b: Task): number => a.createdAt - b.createdAt || a.id.localeCompare(b.id);
	const pushRow = (task: BoardTask, depth: number, lane: BoardLane, parentKey: string | null): void => {
		const base = rowFor(task);
		const facts = family.get(task.id);
		const helpers = facts?.children.length ?? 0;
		const isOpen = helpers > 0 && openTrees.has(base.id);
		const shown = ids.shown.get(task.id);
		const shownId = shown === undefined ? base.shownId : terminalSafe(shown);
		const summary = facts && helpers > 0 ? helpersSummary(facts) : null;
		if (helpers === 0 && depth === 0) {
			// A task with no helpers is drawn as it always was: no copy of its row unless its id is cut.
			lines.push({kind: 'row', row: shownId === base.shownId ? base : {...base, shownId}});
		} else {
			const title = treeTitle(base.title, depth, helpers > 0 ? isOpen : null, summary);
			lines.push({kind: 'row', row: {...base, shownId, title, lane, tree: {helpers, isOpen, depth, parentKey}}});
		}
		order.push(base.id);
		if (!isOpen || !facts) return;
		const kids = facts.children.flatMap(id => byId.get(id) ?? []).sort(compareHelpers);
		for (const kid of kids) pushRow(kid, depth + 1, lane, base.id);
	};
	for (const lane of BOARD_LANES) {
		const entries = byLane.get(lane) ?? [];
		const compare = compareTasks(query.sort ?? 'newest', lane === 'ended');
		entries.sort((a, b) => compare(a.task, b.task));
		counts[lane] = entries.length;
		lines.push({kind: 'lane', lane, title: LANE_TITLES[lane], count: entries.length});
		for (const {task} of entries) pushRow(task, 0, lane, null);
	}
	return {lines, order, counts};
}

/**
 * A title in the tree: a parent's opens with `▸` (folded) or `▾` (open) and its helpers summed up
 * (`3 helpers: 1 active, 2 ended · `); a helper's is indented under it with `└ `.
 */
function treeTitle(title: string, depth: number, isOpen: boolean | null, summary: string | null): string {
	const indent = depth > 0 ? `${'  '.repeat(depth - 1)}└ ` : '';
	if (isOpen === null) return `${indent}${title}`;
	// The summary leads: a long title is cut at the right, and the helpers must still show.
	return `${indent}${isOpen ? '▾' : '▸'} ${summary === null ? '' : `${summary} · `}${title}`;
}

/** A window of the lanes: the lines shown, and what the lines above and below it hold. */
export type LanesWindow = {
	readonly lines: readonly LaneLine[];
	/** The line drawn above the window (`↑ 2 more: RUNNING 2`), or null when nothing is hidden there. */
	readonly above: string | null;
	readonly below: string | null;
};

/** Says what hidden lines hold: rows per lane, or which lanes are empty. */
function hiddenSummary(hidden: readonly LaneLine[], arrow: '↑' | '↓' | '↕'): string | null {
	if (hidden.length === 0) return null;
	const rows = new Map<BoardLane, number>();
	const emptyLanes: string[] = [];
	for (const line of hidden) {
		if (line.kind === 'row') rows.set(line.row.lane, (rows.get(line.row.lane) ?? 0) + 1);
		else if (line.count === 0) emptyLanes.push(line.title);
	}
	const total = [...rows.values()].reduce((sum, count) => sum + count, 0);
	if (total === 0) return `${arrow} ${emptyLanes.join(', ')}: none`;
	const perLane = [...rows].map(([lane, count]) => `${LANE_TITLES[lane]} ${count}`).join(' · ');
	return `${arrow} ${total} more: ${perLane}`;
}

/**
 * The slice of lines that fits `height` lines, the `↑`/`↓` lines included, keeping the selected row
 * in view (a window sized to the screen, docs/board.md, "What it shows"). A window never ends on a lane heading whose
 * rows are all below it, and shows at least one row whenever there are rows.
 */
export function windowLines(lines: readonly LaneLine[], selectedId: string | null, height: number): LanesWindow {
	if (lines.length <= height) return {lines, above: null, below: null};
	const selected = lines.findIndex(line => line.kind === 'row' && line.row.id === selectedId);
	const firstRow = lines.findIndex(line => line.kind === 'row');
	const anchor = Math.max(0, selected >= 0 ? selected : firstRow);
	for (let inner = height; inner >= 1; inner -= 1) {
		const start = Math.max(0, Math.min(anchor - Math.floor(inner / 3), lines.length - inner));
		let end = start + inner;
		// A heading at the bottom edge with its rows hidden below says nothing: leave it to the ↓ line.
		while (end - 1 > anchor && end < lines.length && lines[end - 1]?.kind === 'lane') end -= 1;
		const indicators = (start > 0 ? 1 : 0) + (end < lines.length ? 1 : 0);
		if (end - start + indicators > height) continue;
		return {
			lines: lines.slice(start, end),
			above: hiddenSummary(lines.slice(0, start), '↑'),
			below: hiddenSummary(lines.slice(end), '↓'),
		};
	}
	// Too low for a line above and one below (40×12): the selected line, and one line saying what is
	// hidden on both sides, so a small screen still says what it left out.
	if (height >= 2)
		return {
			lines: lines.slice(anchor, anchor + 1),
			above: null,
			below: hiddenSummary([...lines.slice(0, anchor), ...lines.slice(anchor + 1)], '↕'),
		};
	return {lines: lines.slice(anchor, anchor + 1), above: null, below: null};
}

/** A Needs you entry, preformatted. */
export type QueueItemView = {
	/** The task's key on the board (its id; host and id on a fleet ledger); a question's id in the decisions lane. */
	readonly taskId: string;
	/** The lane it is in (decisions entries take a and x: docs/decisions.md). */
	readonly lane: string;
	/** The task a question is about (its board key): what Enter opens for a decisions entry. */
	readonly about?: string;
	readonly title: string;
	readonly reason: string;
	/** How long it has waited: `waiting 12m`. */
	readonly age: string;
	readonly at: number;
	/** The whole entry as one line: id, reason, title, how long it has waited. */
	readonly text: string;
};
/** A Needs you lane: at most five entries and the count of the rest. */
export type QueueLaneView = {readonly name: string; readonly items: readonly QueueItemView[]; readonly more: number};

/** The Needs you panel: non-empty lanes only, oldest-waiting first, and the entries in the order the cursor moves. */
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
				const title = terminalSafe(tasks.get(key)?.title ?? '');
				const reason = terminalSafe(item.reason);
				const shownId = terminalSafe(item.taskId);
				const age = `waiting ${formatDuration(now - item.at)}`;
				const where = item.host === undefined ? '' : ` on ${terminalSafe(item.host)}`;
				const isAckPending = pending.get(key)?.includes('acknowledge') === true;
				return {
					taskId: key,
					lane: lane.name,
					...(item.about === undefined ? {} : {about: taskKey({id: item.about, host: item.host})}),
					title,
					reason,
					age,
					at: item.at,
					text: `${shownId}${where}  ${age}  ${reason}${title ? ` — ${title}` : ''}${isAckPending ? '  (acknowledgement pending)' : ''}`,
				};
			}),
		}));
	return {lanes, order: lanes.flatMap(lane => lane.items), total: queue.total};
}

const SHORT_LANE_NAMES: Readonly<Record<BoardLane, string>> = {
	running: 'run',
	stalled: 'stall',
	lost: 'lost',
	untracked: 'untr',
	ended: 'ended',
};

/** The header: counts per lane and the Needs you total, then the sort order; shorter words on a narrow screen. */
export function selectHeader(
	counts: Readonly<Record<BoardLane, number>>,
	queueTotal: number,
	sort: string,
	width: number,
	hosts = 0,
	unseen = 0,
): {readonly counts: string; readonly sort: string} {
	const sortText = `sort: ${sort}`;
	const countsIn = (isNarrow: boolean, separator: string): string => {
		const names = isNarrow ? SHORT_LANE_NAMES : LANE_WORDS;
		const parts = BOARD_LANES.map(lane => `${names[lane]} ${counts[lane]}`);
		parts.push(`${isNarrow ? 'needs' : 'needs you'} ${queueTotal}`);
		// Finished work not looked at yet: said only when there is some, as a count to clear.
		if (unseen > 0) parts.push(`unseen ${unseen}`);
		if (hosts > 1) parts.push(`${hosts} hosts`);
		return parts.join(separator);
	};
	const fits = (text: string): boolean => HEADER_TITLE.length + text.length + 2 + sortText.length <= width;
	// The long words where they fit whole beside the sort order (never below 100 columns), else the
	// short ones, else the short ones packed tighter (80 columns with an unseen count), else cut.
	const long = countsIn(false, ' · ');
	if (width >= 100 && fits(long)) return {counts: long, sort: sortText};
	const short = countsIn(true, ' · ');
	const tight = countsIn(true, '·');
	return {counts: fits(short) || !fits(tight) ? short : tight, sort: sortText};
}

/** The header's first word. */
const HEADER_TITLE = 'controlroom ';

/** The ledger's name for the header, cut in the middle to `max` characters so its file name stays whole. */
export function ledgerHeaderLabel(label: string, max: number): string {
	if (label.length <= max) return label;
	const keep = Math.max(4, max - 1);
	const tail = Math.ceil(keep / 2) + Math.floor(keep / 4);
	return `${label.slice(0, keep - tail)}…${label.slice(-tail)}`;
}
