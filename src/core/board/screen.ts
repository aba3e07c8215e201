import {selectHeldEffects, trackRecordTable, type HeldEffectRef, type HeldEffectsLine} from './effects-view.ts';
import {fitBar, helpBar, helpLines, BoardCommand, type BarItem, type BoardMode, type HelpLine} from './keymap.ts';
import {windowLog, type LogWindow, type TaskLog} from './log-view.ts';
import {
	ledgerHeaderLabel,
	selectHeader,
	selectLanes,
	selectQueue,
	stopBlockedReason,
	toRowView,
	windowLines,
	type BoardOptions,
	type LanesWindow,
	type QueueLaneView,
	type TaskRowView,
} from './selectors.ts';
import {idColumnCap, layoutColumns, layoutHeadings, type RowColumns} from './row-layout.ts';
import {SORT_LABELS} from './sort.ts';
import {layoutTable, type TableColumn, type TableView} from './table-layout.ts';
import {spendTables, type SpendTables} from './spend-view.ts';
import {shippedPriceTable} from '../price-table.ts';
import {selectReviews, type ReviewsView} from './reviews-view.ts';
import {terminalSafe} from '../terminal-text.ts';
import {cutCells} from '../cell-width.ts';
import type {BoardState, Notice} from './state.ts';
import {approvalLines, windowApproval, type ApprovalView} from './approval-view.ts';
import {whyLine} from './explain-view.ts';
import {decisionState} from '../decisions/fold.ts';
import {
	budgetWords,
	defaultHeadroom,
	questionLines,
	selectDecisionsPanel,
	windowQuestion,
	type DecisionsPanelView,
} from './decisions-view.ts';
import {selectTimeline, windowTimeline, type TimelineLineView, type TimelineView} from './timeline-view.ts';

/** Below this width a row shows id, title, status, idle (and progress from 100); the rest moves to a detail line. */
export const WIDE_ROW_COLUMNS = 140;
/** From this width the three panels sit side by side. */
export const SIDE_BY_SIDE_COLUMNS = 100;

/** The log view as drawn. */
export type LogScreen = LogWindow & {
	readonly row: TaskRowView | null;
	/** Where the lines come from, or why there are none; null until the first read. */
	readonly origin: string | null;
	readonly note: string | null;
	readonly source: TaskLog['source'] | null;
};

/** Everything the screen draws, preformatted and sized to the terminal. */
export type ScreenView = {
	readonly width: number;
	readonly height: number;
	readonly mode: BoardMode;
	/** The header: counts per lane and Needs you, and the sort order (always shown, at the right). */
	readonly header: {readonly counts: string; readonly sort: string; readonly burn?: string | null};
	/** Lines under the header that stay until the board is closed: the ledger file was replaced or failed its integrity check, hook events were dropped. */
	readonly alerts: readonly string[];
	/** The ledger the board shows, cut to fit, or null when the caller did not name one. */
	readonly ledger: string | null;
	readonly isWideRows: boolean;
	/** More than one host among the tasks (a fleet ledger): rows carry a host column. */
	readonly showHost: boolean;
	readonly lanes: LanesWindow & {
		readonly height: number;
		/** The columns every row is drawn in, sized to the terminal and to the rows (row-layout.ts). */
		readonly columns: RowColumns;
		/** The column headings line over the rows. */
		readonly headings: string;
	};
	readonly selectedId: string | null;
	/** Where the cursor is in `order`. */
	readonly selectedIndex: number;
	/** The selected task, for the detail line on narrow screens and for the stop key. */
	readonly selected: TaskRowView | null;
	readonly queue: {
		readonly lanes: readonly QueueLaneView[];
		readonly total: number;
		readonly selectedTaskId: string | null;
		readonly isFocused: boolean;
		readonly height: number;
	};
	readonly isSideBySide: boolean;
	/** Side by side: the widths of Needs you, Reviews and Held effects (which widens while it holds calls). */
	readonly panelWidths: {readonly queue: number; readonly reviews: number; readonly effects: number};
	/** The Reviews panel: the latest verdicts. */
	readonly reviews: ReviewsView;
	/** HELD EFFECTS: held calls by order, then recent outcomes. */
	readonly effects: {
		readonly lines: readonly HeldEffectsLine[];
		readonly heldCount: number;
		readonly markedCount: number;
		readonly isFocused: boolean;
		readonly height: number;
	};
	/** Held effects in cursor order (space and x act on the one under the cursor). */
	readonly effectOrder: readonly HeldEffectRef[];
	/** An approval waiting for y: every call it would run, whole, wrapped, and scrolled to what fits. */
	readonly approval: (ApprovalView & {readonly count: number}) | null;
	/** DECISIONS: every question a person can answer, oldest first; null while none is open (the panel is not drawn). */
	readonly decisions: DecisionsPanelView | null;
	/** The open questions' ids in cursor order. */
	readonly decisionOrder: readonly string[];
	/** A question shown whole: its drill-in, or the allow confirmation (`isConfirm`) `y` waits on. */
	readonly question: (ApprovalView & {readonly id: string; readonly isConfirm: boolean}) | null;
	readonly timeline:
		| (Omit<TimelineView, 'lines'> & {
				readonly lines: readonly TimelineLineView[];
				readonly start: number;
				readonly total: number;
				/** The worker's track record, when the open id is an order or a task an order ran under. */
				readonly record: TableView | null;
				/** What the task's tree spent by model and by helper (tables drawn by ink-table). */
				readonly spend: SpendTables;
				/** `order o-42 for worker-1` when the open id is a work order (not a task). */
				readonly order: string | null;
				/** Why the task shows its status, or the two signals that disagree (controlroom explain says more). */
				readonly why: string | null;
		  })
		| null;
	readonly log: LogScreen | null;
	readonly help: HelpScreen | null;
	readonly bar: readonly BarItem[];
	readonly notice: Notice | null;
	/** The filter in force, shown on the status line whatever the width; null when none. */
	readonly filter: string | null;
	readonly prompt: {readonly label: string; readonly text: string} | null;
	readonly confirm: string | null;
	/** Row order for `j`/`k`, and queue order for the Needs you cursor. */
	readonly order: readonly string[];
	readonly queueOrder: readonly {readonly taskId: string; readonly at: number; readonly lane: string; readonly about?: string}[];
	/** Rows a PgUp/PgDn moves in the current view. */
	readonly pageSize: number;
	/** How far the open timeline or log can scroll. */
	readonly scrollMax: number;
};

/** `?` help fitted to the rows under the header: in columns side by side, and cut when even that does not fit. */
export type HelpScreen = {
	readonly hasTitle: boolean;
	readonly columns: readonly (readonly HelpLine[])[];
	/** Each column as a table of keys and what they do, in terminal cells (drawn by ink-table). */
	readonly tables: readonly TableView[];
	/** Keys left out for want of rows (said on the last line); 0 when all are listed. */
	readonly more: number;
};

/** The narrowest a help column is drawn in: the key (10) and enough words to read. */
const HELP_COLUMN_MIN = 60;

/**
 * Help never draws more lines than there are rows (Ink squeezes an overfull frame into overlapping
 * lines): the title goes first, then the keys go into two columns where the width allows, and only
 * then are the last keys left out, with a line saying how many.
 */
export function fitHelp(lines: readonly HelpLine[], rows: number, width: number): HelpScreen {
	const fitted = fitHelpColumns(lines, rows, width);
	// Side by side the columns share the width, two cells apart (HelpPanel's gap).
	const columnWidth = fitted.columns.length > 1 ? Math.floor((width - 2) / 2) : width;
	const tables = fitted.columns.map(column =>
		layoutTable(
			HELP_TABLE,
			column.map(line => [line.keys, line.description]),
			columnWidth,
		),
	);
	return {...fitted, tables};
}

/** The help's table: the keys (as wide as the widest), then what they do, cut at the column's edge. */
const HELP_TABLE: readonly TableColumn[] = [
	{heading: 'KEYS', cap: 12},
	{heading: 'WHAT IT DOES', grows: true},
];

function fitHelpColumns(lines: readonly HelpLine[], rows: number, width: number): Omit<HelpScreen, 'tables'> {
	if (lines.length + 1 <= rows) return {hasTitle: true, columns: [lines], more: 0};
	if (width >= 2 * HELP_COLUMN_MIN && Math.ceil(lines.length / 2) <= rows) {
		const half = Math.ceil(lines.length / 2);
		return {hasTitle: half + 1 <= rows, columns: [lines.slice(0, half), lines.slice(half)], more: 0};
	}
	if (lines.length <= rows) return {hasTitle: false, columns: [lines], more: 0};
	const shown = Math.max(0, rows - 1);
	return {hasTitle: false, columns: [lines.slice(0, shown)], more: lines.length - shown};
}

const HEADER_LINES = 1;
const FOOTER_LINES = 2;
const HEADINGS_LINES = 1;
/** The log view's own lines: its title, where the lines come from, and the position line. */
const LOG_CHROME_LINES = 3;

function queueHeight(lanes: readonly QueueLaneView[], available: number): number {
	const needed =
		1 +
		Math.max(
			1,
			lanes.reduce((sum, lane) => sum + 1 + lane.items.length + (lane.more > 0 ? 1 : 0), 0),
		);
	return Math.min(needed, Math.max(3, Math.floor(available * 0.35)));
}

/** Cuts `text` to `width` characters, marking the cut with `…`. */
function cut(text: string, width: number): string {
	const chars = [...text];
	return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/**
 * The stop question, fitted to the status line: the title gives way first, then the words, so the
 * id, the PID and the keys are always on screen.
 */
export function confirmStopText(
	task: {readonly id: string; readonly host?: string; readonly title: string | null; readonly pid: number | null},
	width: number,
): string {
	const room = Math.max(20, width - 1);
	const pid = `(pid ${task.pid ?? 'unknown'})`;
	// On a fleet board the host is named: the stop is carried out there.
	const id = task.host === undefined ? task.id : `${task.id} on ${task.host}`;
	for (const keys of ['y to stop, n to cancel', 'y stop · n no', 'y/n']) {
		const bare = `Stop ${id} ${pid}? ${keys}`;
		const titleRoom = room - bare.length - 3;
		if (task.title && titleRoom >= 6) return `Stop ${id} “${cut(task.title, titleRoom)}” ${pid}? ${keys}`;
		if (bare.length <= room) return bare;
	}
	return cut(`Stop ${id}? y/n`, room);
}

function orderHeading(state: BoardState, id: string): string | null {
	const order = state.orders.records.find(record => record.id === id);
	return order
		? terminalSafe(`order ${order.id} for ${order.worker ?? 'unknown'}${order.parent ? `, derived from ${order.parent}` : ''}`)
		: null;
}

const clockOf = (at: number): string => new Date(at).toISOString().slice(11, 19);

/** The alert lines: what the board must not let anyone miss. */
export function selectAlerts(state: Pick<BoardState, 'ledgerAlert' | 'dropped' | 'integrityProblems'>): string[] {
	const alerts: string[] = [];
	if (state.ledgerAlert) {
		const {kind, at, path, movedTo, nowIn} = state.ledgerAlert;
		const when = `at ${clockOf(at)} UTC`;
		alerts.push(
			terminalSafe(
				movedTo === undefined
					? `ledger ${path} was ${kind} ${when}; now reading and writing the new file there (earlier events are not in it)`
					: nowIn === movedTo
						? `ledger ${path} was moved to ${movedTo} ${when}, with every event it held; reading it there until a new ledger is made at ${path}`
						: `ledger ${path} was moved to ${movedTo} ${when}, with every event it held; now reading the new ledger at ${path} (what ran before is in ${movedTo}: controlroom --ledger ${movedTo})`,
			),
		);
	}
	const [problem, ...more] = state.integrityProblems;
	if (problem !== undefined) {
		alerts.push(
			terminalSafe(
				`the ledger failed its integrity check (PRAGMA quick_check): ${problem}${more.length > 0 ? ` (and ${more.length} more)` : ''}; controlroom doctor says more; keep a copy before anything writes to it`,
			),
		);
	}
	if (state.dropped > 0) {
		alerts.push(
			`${state.dropped} hook event${state.dropped === 1 ? ' was' : 's were'} dropped: neither ledger nor spool could be written (controlroom hooks status says why)`,
		);
	}
	return alerts;
}

/**
 * Side by side, Needs you takes half and Reviews and Held effects a quarter each; while calls are
 * held, Held effects takes two fifths (Reviews one fifth), so a call's arguments can be read at
 * 160 columns (64 cells for `path="CHANGELOG.md" content="## 0.2.0…"`). One column between panels.
 */
function panelWidths(width: number, isHolding: boolean): ScreenView['panelWidths'] {
	const effects = Math.floor((width - 2) * (isHolding ? 0.4 : 0.25));
	const reviews = Math.floor((width - 2) * (isHolding ? 0.2 : 0.25));
	return {queue: width - effects - reviews - 2, reviews, effects};
}

/** The narrowest the ledger's name is shown in the header: below it, the name gives way to the counts. */
const MIN_HEADER_LEDGER = 16;

/** The ledger's name in the header, in what the counts and the sort order leave (they always show whole). */
function headerLedger(label: string, width: number, header: ScreenView['header']): string | null {
	const room = width - 'controlroom '.length - header.counts.length - header.sort.length - 4;
	if (room < MIN_HEADER_LEDGER) return null;
	return ledgerHeaderLabel(label, Math.min(Math.floor(width / 3), room));
}

/** Builds the whole screen from the state at `now` for a `width`×`height` terminal. */
export function selectScreen(
	state: BoardState,
	now: number,
	size: {readonly width: number; readonly height: number},
	options: BoardOptions = {},
): ScreenView {
	const {width, height} = size;
	const pending = state.pending ?? new Map<string, readonly string[]>();
	const lanesView = selectLanes(
		// The map itself: what does not change with the clock is kept while it is the same map.
		state.tasks,
		now,
		{
			filter: state.filter,
			sort: state.sort,
			idCap: idColumnCap(width, width >= WIDE_ROW_COLUMNS),
			...(state.openTrees ? {openTrees: state.openTrees} : {}),
		},
		options,
		pending,
	);
	const queue = selectQueue(state.queue, state.tasks, now, pending);
	const isWideRows = width >= WIDE_ROW_COLUMNS;
	const isSideBySide = width >= SIDE_BY_SIDE_COLUMNS;
	const alerts = selectAlerts(state);
	const available = Math.max(4, height - HEADER_LINES - alerts.length - FOOTER_LINES);
	const queueLines = queueHeight(queue.lanes, available);
	const isEffectsFocused = state.mode === 'effects';
	const held = selectHeldEffects(state.orders, now, state.marked, state.effectIndex, isEffectsFocused);
	const effectsNeeded = 1 + Math.max(1, held.lines.length);
	const panelCap = Math.max(3, Math.floor(available * 0.35));
	// Side by side, Reviews and Held effects sit beside Needs you; stacked, one line each below it,
	// Held effects opening up while it has the focus.
	const effectsLines = isSideBySide
		? Math.min(effectsNeeded, panelCap)
		: isEffectsFocused
			? Math.min(effectsNeeded, panelCap)
			: 1;
	const panelsHeight = isSideBySide ? Math.max(3, queueLines, effectsLines) : queueLines + 1 + effectsLines;
	const detailLines = isWideRows ? 0 : 1;
	// The Decisions panel, full width under the others while a question is open: its title and a line a question.
	const openQuestions = state.decisions.filter(decision => decisionState(decision, now) === 'open');
	const decisionRows = Math.min(openQuestions.length, Math.max(1, Math.floor(available * 0.25)));
	const decisionsPanel =
		openQuestions.length === 0
			? null
			: selectDecisionsPanel(openQuestions, now, state.decisionIndex, state.mode === 'decisions', width, decisionRows);
	// One line for the column headings over the lanes.
	const lanesHeight = Math.max(2, available - panelsHeight - detailLines - HEADINGS_LINES - (decisionsPanel?.height ?? 0));
	// The cursor stays on its task; when that task has left the list, it stays at the same place.
	const order = lanesView.order;
	const listed = state.selectedId === null ? -1 : order.indexOf(state.selectedId);
	const selectedIndex = listed >= 0 ? listed : Math.max(0, Math.min(state.selectedIndex, order.length - 1));
	const selectedId = order[selectedIndex] ?? null;
	const rows = lanesView.lines.flatMap(line => (line.kind === 'row' ? [line.row] : []));
	const selected = rows.find(row => row.id === selectedId) ?? null;
	const columns = layoutColumns(rows, width, isWideRows, lanesView.idWidth, lanesView.hosts > 1);
	const queueItem = state.mode === 'queue' ? queue.order[state.queueIndex] : undefined;
	const disabled = new Set<BoardCommand>();
	const hidden = new Set<BoardCommand>();
	if (!selected || selected.stopBlocked) disabled.add(BoardCommand.stop);
	if (queue.order.length === 0) disabled.add(BoardCommand.acknowledge);
	if (state.mode === 'list' && state.filter === '') hidden.add(BoardCommand.back);
	// A stop's question has nothing to scroll.
	if (state.mode === 'confirm' && !state.approval) hidden.add(BoardCommand.up);
	if (held.held.length === 0) {
		disabled.add(BoardCommand.approve);
		disabled.add(BoardCommand.mark);
		if (isEffectsFocused) disabled.add(BoardCommand.sendBack);
	}
	let timeline: ScreenView['timeline'] = null;
	let scrollMax = 0;
	let approval: ScreenView['approval'] = null;
	if (state.mode === 'confirm' && state.approval) {
		// The title and, when it does not fit, a line saying where it is: the rest shows the calls.
		const lines = approvalLines(state.orders.records, state.approval, now, width);
		approval = {...windowApproval(lines, state.approvalScroll, available - 2), count: state.approval.length};
		scrollMax = approval.scrollMax;
	}
	let question: ScreenView['question'] = null;
	const isQuestionShown = state.mode === 'question' || (state.mode === 'confirm' && state.question?.isConfirm === true);
	if (isQuestionShown && state.question) {
		const {id, scroll, isConfirm} = state.question;
		const decision = state.decisions.find(candidate => candidate.id === id);
		const lines = decision
			? questionLines(decision, now, width)
			: [`${id} no longer waits for an answer: answered, withdrawn, or its hook is gone (controlroom snapshot --all says which)`];
		// The title and the position line; the rest shows the question.
		question = {...windowQuestion(lines, scroll, available - 2), id, isConfirm};
		scrollMax = question.scrollMax;
	}
	if (state.mode === 'decisions' || isQuestionShown) {
		disabled.delete(BoardCommand.approve);
		disabled.delete(BoardCommand.sendBack);
	}
	let pageSize = Math.max(1, isQuestionShown ? available - 3 : lanesHeight - 2);
	if (state.mode === 'timeline' && state.timeline) {
		const task = state.tasks.get(state.timeline.taskId);
		const selected = selectTimeline(task, state.timeline.events, now, options.stallSeconds, width);
		// The row as the lanes show it: the tree's tokens and cost, its burn rate.
		const view = {...selected, row: lanesView.rows?.get(state.timeline.taskId) ?? selected.row};
		const record = trackRecordTable(state.orders, state.timeline.taskId, state.tasks, now, width);
		// Each table a title line, its heading and its rows (at 80×24 three each, so events still show).
		const tableRows = Math.max(2, Math.floor((height - 12) / 4));
		const spend = spendTables(
			state.timeline.taskId,
			state.tasks,
			task => lanesView.rows?.get(task.id)?.status ?? toRowView(task, now, options.stallSeconds).status,
			options.prices ?? shippedPriceTable(),
			now,
			width,
			tableRows,
		);
		const tableLines = [record, spend.byModel, spend.byHelper].reduce(
			(sum, table) => sum + (table ? 2 + table.rows.length + (table.more > 0 ? 1 : 0) : 0),
			0,
		);
		const fixed = 5 + Math.max(1, view.contract.length) + Math.max(1, view.evidence.length) + tableLines;
		const visible = Math.max(3, height - HEADER_LINES - FOOTER_LINES - fixed);
		const windowed = windowTimeline(view.lines, state.timeline.scroll, visible);
		timeline = {
			...view,
			lines: windowed.lines,
			start: windowed.start,
			total: view.lines.length,
			record,
			spend,
			order: orderHeading(state, state.timeline.taskId),
			// Cut in cells here: Ink's own cut let a wide character at the edge wrap `…` onto a line of its own.
			why: task
				? cutCells(
						terminalSafe(whyLine(task, state.timeline.events, state.queue, now, options.stallSeconds)),
						width - 'why: '.length,
					)
				: null,
		};
		scrollMax = Math.max(0, view.lines.length - visible);
		pageSize = Math.max(1, visible - 1);
		if (!task || stopBlockedReason(task)) disabled.add(BoardCommand.stop);
		else disabled.delete(BoardCommand.stop);
	}
	let log: LogScreen | null = null;
	if (state.mode === 'log' && state.log) {
		const task = state.tasks.get(state.log.taskId);
		const row = task ? toRowView(task, now, options.stallSeconds) : null;
		const visible = Math.max(1, height - HEADER_LINES - FOOTER_LINES - LOG_CHROME_LINES);
		const view = state.log.view;
		log = {
			...windowLog(view?.lines ?? [], state.log.fromEnd, visible),
			row,
			origin: view?.origin ?? null,
			note: view?.note ?? null,
			source: view?.source ?? null,
		};
		scrollMax = Math.max(0, (view?.lines.length ?? 0) - visible);
		pageSize = Math.max(1, visible - 1);
		if (!row || row.stopBlocked) disabled.add(BoardCommand.stop);
		else disabled.delete(BoardCommand.stop);
	}
	const counted = selectHeader(lanesView.counts, queue.total, SORT_LABELS[state.sort], width, lanesView.hosts, lanesView.unseen);
	// The board's burn rate beside the counts, where the width leaves it room (docs/tree-and-cost.md).
	const header = {...counted, burn: width >= 120 ? (lanesView.burn ?? null) : null};
	const confirmTask = state.confirmTaskId === null ? undefined : state.tasks.get(state.confirmTaskId);
	const headroomFor =
		state.prompt?.kind === 'headroom' ? state.decisions.find(d => d.id === state.prompt?.decisionId) : undefined;
	const promptLabel =
		state.prompt?.kind === 'filter'
			? '/'
			: state.prompt?.kind === 'headroom'
				? `allow ${state.prompt.decisionId ?? ''} — ${headroomFor ? terminalSafe(budgetWords(headroomFor)) : 'budget'}; tokens to add (enter alone: +${headroomFor ? defaultHeadroom(headroomFor) : '?'}, esc cancels): `
				: state.prompt?.decisionId !== undefined
					? `deny ${state.prompt.decisionId} — reason the agent reads (enter denies, esc cancels): `
					: `send ${state.promptTaskId ?? 'it'} back — reason (enter sends, esc cancels): `;
	return {
		width,
		height,
		mode: state.mode,
		header,
		showHost: lanesView.hosts > 1,
		alerts,
		// The counts and the sort order always show whole; the ledger's name takes what they leave.
		ledger: options.ledgerLabel === undefined ? null : headerLedger(options.ledgerLabel, width, header),
		isWideRows,
		lanes: {
			...windowLines(lanesView.lines, selectedId, lanesHeight),
			height: lanesHeight,
			columns,
			headings: layoutHeadings(columns),
		},
		selectedId,
		selectedIndex,
		selected,
		queue: {
			lanes: queue.lanes,
			total: queue.total,
			selectedTaskId: queueItem?.taskId ?? null,
			isFocused: state.mode === 'queue',
			height: isSideBySide ? panelsHeight : queueLines,
		},
		isSideBySide,
		panelWidths: panelWidths(width, held.held.length > 0),
		reviews: selectReviews(state.verdicts, now),
		effects: {
			lines: held.lines,
			heldCount: held.held.length,
			markedCount: held.markedCount,
			isFocused: isEffectsFocused,
			height: isSideBySide ? panelsHeight : effectsLines,
		},
		effectOrder: held.held,
		approval,
		decisions: decisionsPanel,
		decisionOrder: openQuestions.map(decision => decision.id),
		question,
		timeline,
		log,
		help: state.mode === 'help' ? fitHelp(helpLines(), available, width) : null,
		bar: fitBar(
			// While a question is open, tab from Held effects goes on to Decisions, not back to the lanes.
			helpBar(state.mode, disabled, undefined, hidden).map(item =>
				item.command === BoardCommand.focus && state.mode === 'effects' && openQuestions.length > 0
					? {...item, label: 'decisions'}
					: item,
			),
			width,
			state.mode,
		),
		// A notice can quote a task title or a file name: it is ledger text too.
		notice: state.notice ? {...state.notice, text: terminalSafe(state.notice.text)} : null,
		filter: state.filter.trim() === '' || state.prompt?.kind === 'filter' ? null : terminalSafe(state.filter.trim()),
		prompt: state.prompt ? {label: promptLabel, text: terminalSafe(state.prompt.text)} : null,
		confirm: question?.isConfirm
			? state.question !== null && state.question.seen < question.scrollMax
				? `Allow ${question.id}? Read it whole first: j or PgDn shows the rest (${question.total - (state.question.seen + question.lines.length)} more lines); n cancels`
				: `Allow ${question.id} exactly as shown above? y allows this call once, n cancels`
			: state.approval
				? approval !== null && state.approvalSeen < approval.scrollMax
					? `Approve ${state.approval.length} held effect${state.approval.length === 1 ? '' : 's'}? Read them whole first: j or PgDn shows the rest (${approval.total - (state.approvalSeen + approval.lines.length)} more lines); n cancels`
					: `Approve ${state.approval.length} held effect${state.approval.length === 1 ? '' : 's'} listed above? y runs each once, n cancels`
				: confirmTask
					? terminalSafe(confirmStopText(confirmTask, width))
					: null,
		order,
		queueOrder: queue.order.map(item => ({
			taskId: item.taskId,
			at: item.at,
			lane: item.lane,
			...(item.about === undefined ? {} : {about: item.about}),
		})),
		pageSize,
		scrollMax,
	};
}
