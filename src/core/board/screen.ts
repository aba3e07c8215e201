import {helpBar, helpLines, BoardCommand, type BarItem, type BoardMode, type HelpLine} from './keymap.ts';
import {
	ledgerHeaderLabel,
	selectHeader,
	selectLanes,
	selectQueue,
	windowLines,
	type BoardOptions,
	type LaneLine,
	type QueueLaneView,
	type TaskRowView,
} from './selectors.ts';
import type {BoardState, Notice} from './state.ts';
import {selectTimeline, windowTimeline, type TimelineLineView, type TimelineView} from './timeline-view.ts';

/** Below this width a row shows id, title, status, idle (and progress from 100); the rest moves to a detail line. */
export const WIDE_ROW_COLUMNS = 140;
/** From this width the three panels sit side by side. */
export const SIDE_BY_SIDE_COLUMNS = 100;

/** Everything the screen draws, preformatted and sized to the terminal. */
export type ScreenView = {
	readonly width: number;
	readonly height: number;
	readonly mode: BoardMode;
	readonly header: string;
	/** The ledger the board shows, cut to fit, or null when the caller did not name one. */
	readonly ledger: string | null;
	readonly isWideRows: boolean;
	/** More than one host among the tasks (a fleet ledger): rows carry a host column. */
	readonly showHost: boolean;
	readonly lanes: {readonly lines: readonly LaneLine[]; readonly above: number; readonly below: number; readonly height: number};
	readonly selectedId: string | null;
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
	readonly timeline:
		| (Omit<TimelineView, 'lines'> & {
				readonly lines: readonly TimelineLineView[];
				readonly start: number;
				readonly total: number;
		  })
		| null;
	readonly help: readonly HelpLine[] | null;
	readonly bar: readonly BarItem[];
	readonly notice: Notice | null;
	readonly prompt: {readonly label: string; readonly text: string} | null;
	readonly confirm: string | null;
	/** Row order for `j`/`k`, and queue order for the Needs you cursor. */
	readonly order: readonly string[];
	readonly queueOrder: readonly {readonly taskId: string; readonly at: number}[];
};

const HEADER_LINES = 1;
const FOOTER_LINES = 2;

function queueHeight(lanes: readonly QueueLaneView[], available: number): number {
	const needed =
		1 +
		Math.max(
			1,
			lanes.reduce((sum, lane) => sum + 1 + lane.items.length + (lane.more > 0 ? 1 : 0), 0),
		);
	return Math.min(needed, Math.max(3, Math.floor(available * 0.35)));
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
	const lanesView = selectLanes(state.tasks.values(), now, state.filter, options, pending);
	const queue = selectQueue(state.queue, state.tasks, now, pending);
	const isWideRows = width >= WIDE_ROW_COLUMNS;
	const isSideBySide = width >= SIDE_BY_SIDE_COLUMNS;
	const available = Math.max(4, height - HEADER_LINES - FOOTER_LINES);
	const queueLines = queueHeight(queue.lanes, available);
	// Side by side, Reviews and Held effects sit beside Needs you (3 lines); stacked, one line each below it.
	const panelsHeight = isSideBySide ? Math.max(3, queueLines) : queueLines + 2;
	const detailLines = isWideRows ? 0 : 1;
	const lanesHeight = Math.max(2, available - panelsHeight - detailLines);
	const selectedId =
		state.selectedId !== null && lanesView.order.includes(state.selectedId) ? state.selectedId : (lanesView.order[0] ?? null);
	const rows = lanesView.lines.flatMap(line => (line.kind === 'row' ? [line.row] : []));
	const selected = rows.find(row => row.id === selectedId) ?? null;
	const queueItem = state.mode === 'queue' ? queue.order[state.queueIndex] : undefined;
	const disabled = new Set<BoardCommand>();
	if (!selected || selected.stopBlocked) disabled.add(BoardCommand.stop);
	if (queue.order.length === 0) disabled.add(BoardCommand.acknowledge);
	let timeline: ScreenView['timeline'] = null;
	if (state.mode === 'timeline' && state.timeline) {
		const view = selectTimeline(state.tasks.get(state.timeline.taskId), state.timeline.events, now, options.stallSeconds);
		const fixed = 4 + Math.max(1, view.contract.length) + Math.max(1, view.evidence.length);
		const windowed = windowTimeline(view.lines, state.timeline.scroll, Math.max(3, height - HEADER_LINES - FOOTER_LINES - fixed));
		timeline = {...view, lines: windowed.lines, start: windowed.start, total: view.lines.length};
	}
	const confirmTask = state.confirmTaskId === null ? undefined : state.tasks.get(state.confirmTaskId);
	const promptLabel = state.prompt?.kind === 'filter' ? 'filter: ' : 'reason: ';
	return {
		width,
		height,
		mode: state.mode,
		header: selectHeader(lanesView.counts, queue.total, state.filter, lanesView.hosts),
		showHost: lanesView.hosts > 1,
		ledger:
			options.ledgerLabel === undefined ? null : ledgerHeaderLabel(options.ledgerLabel, Math.max(20, Math.floor(width / 3))),
		isWideRows,
		lanes: {...windowLines(lanesView.lines, selectedId, lanesHeight), height: lanesHeight},
		selectedId,
		selected,
		queue: {
			lanes: queue.lanes,
			total: queue.total,
			selectedTaskId: queueItem?.taskId ?? null,
			isFocused: state.mode === 'queue',
			height: isSideBySide ? panelsHeight : queueLines,
		},
		isSideBySide,
		timeline,
		help: state.mode === 'help' ? helpLines() : null,
		bar: helpBar(state.mode, disabled).filter(item => isSideBySide || !item.isNotBuilt),
		notice: state.notice,
		prompt: state.prompt ? {label: promptLabel, text: state.prompt.text} : null,
		confirm: confirmTask
			? `Stop ${confirmTask.id}${confirmTask.host === undefined ? '' : ` on ${confirmTask.host}`} “${confirmTask.title ?? '—'}” (pid ${confirmTask.pid ?? 'unknown'})? y to stop, n to cancel`
			: null,
		order: lanesView.order,
		queueOrder: queue.order.map(item => ({taskId: item.taskId, at: item.at})),
	};
}
