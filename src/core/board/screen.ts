import {selectHeldEffects, trackRecordLine, type HeldEffectRef, type HeldEffectsLine} from './effects-view.ts';
import {fitBar, helpBar, helpLines, BoardCommand, type BarItem, type BoardMode, type HelpLine} from './keymap.ts';
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
import {selectReviews, type ReviewsView} from './reviews-view.ts';
import {terminalSafe} from '../terminal-text.ts';
import type {BoardState, Notice} from './state.ts';
import {summarizeArgs} from '../effects/view.ts';
import {formatDuration} from '../format.ts';
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
	/** Lines under the header that stay until the board is closed: the ledger file was replaced, hook events were dropped. */
	readonly alerts: readonly string[];
	/** The ledger the board shows, cut to fit, or null when the caller did not name one. */
	readonly ledger: string | null;
	readonly isWideRows: boolean;
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
	/** An approval waiting for y: the effects it would run, one line each. */
	readonly approval: readonly string[] | null;
	readonly timeline:
		| (Omit<TimelineView, 'lines'> & {
				readonly lines: readonly TimelineLineView[];
				readonly start: number;
				readonly total: number;
				/** The worker's track record, when the open id is an order or a task an order ran under. */
				readonly record: string | null;
				/** `order o-42 for worker-1` when the open id is a work order (not a task). */
				readonly order: string | null;
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

function orderHeading(state: BoardState, id: string): string | null {
	const order = state.orders.records.find(record => record.id === id);
	return order
		? `order ${order.id} for ${order.worker ?? 'unknown'}${order.parent ? `, derived from ${order.parent}` : ''}`
		: null;
}

/** One line of an approval confirmation: order, effect, arguments. */
function approvalLine(state: BoardState, ref: HeldEffectRef, now: number): string {
	const effect = state.orders.records.find(order => order.id === ref.orderId)?.effects.find(candidate => candidate.id === ref.id);
	const args = effect ? summarizeArgs(effect.args, 100) : '';
	const age = effect ? `  held ${formatDuration(now - effect.calledAt)}` : '';
	// The arguments are the agent's words: shown escaped, like every ledger text.
	return terminalSafe(`${ref.orderId}  ${ref.id}  ${args}${age}`);
}

const clockOf = (at: number): string => new Date(at).toISOString().slice(11, 19);

/** The alert lines: what the board must not let anyone miss. */
export function selectAlerts(state: Pick<BoardState, 'ledgerAlert' | 'dropped'>): string[] {
	const alerts: string[] = [];
	if (state.ledgerAlert) {
		const {kind, at, path} = state.ledgerAlert;
		alerts.push(
			terminalSafe(
				`ledger ${path} was ${kind} at ${clockOf(at)} UTC; now reading and writing the new file there (earlier events are not in it)`,
			),
		);
	}
	if (state.dropped > 0) {
		alerts.push(
			`${state.dropped} hook event${state.dropped === 1 ? ' was' : 's were'} dropped: neither ledger nor spool could be written (see controlroom doctor)`,
		);
	}
	return alerts;
}

/** Builds the whole screen from the state at `now` for a `width`×`height` terminal. */
export function selectScreen(
	state: BoardState,
	now: number,
	size: {readonly width: number; readonly height: number},
	options: BoardOptions = {},
): ScreenView {
	const {width, height} = size;
	const lanesView = selectLanes(state.tasks.values(), now, state.filter, options);
	const queue = selectQueue(state.queue, state.tasks, now);
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
	const lanesHeight = Math.max(2, available - panelsHeight - detailLines);
	const selectedId =
		state.selectedId !== null && lanesView.order.includes(state.selectedId) ? state.selectedId : (lanesView.order[0] ?? null);
	const rows = lanesView.lines.flatMap(line => (line.kind === 'row' ? [line.row] : []));
	const selected = rows.find(row => row.id === selectedId) ?? null;
	const queueItem = state.mode === 'queue' ? queue.order[state.queueIndex] : undefined;
	const disabled = new Set<BoardCommand>();
	if (!selected || selected.stopBlocked) disabled.add(BoardCommand.stop);
	if (queue.order.length === 0) disabled.add(BoardCommand.acknowledge);
	if (held.held.length === 0) {
		disabled.add(BoardCommand.approve);
		disabled.add(BoardCommand.mark);
		if (isEffectsFocused) disabled.add(BoardCommand.sendBack);
	}
	let timeline: ScreenView['timeline'] = null;
	if (state.mode === 'timeline' && state.timeline) {
		const view = selectTimeline(state.tasks.get(state.timeline.taskId), state.timeline.events, now, options.stallSeconds);
		const fixed = 4 + Math.max(1, view.contract.length) + Math.max(1, view.evidence.length);
		const windowed = windowTimeline(view.lines, state.timeline.scroll, Math.max(3, height - HEADER_LINES - FOOTER_LINES - fixed));
		timeline = {
			...view,
			lines: windowed.lines,
			start: windowed.start,
			total: view.lines.length,
			record: trackRecordLine(state.orders, state.timeline.taskId, state.tasks, now),
			order: orderHeading(state, state.timeline.taskId),
		};
	}
	const confirmTask = state.confirmTaskId === null ? undefined : state.tasks.get(state.confirmTaskId);
	const promptLabel =
		state.prompt?.kind === 'filter'
			? 'filter: '
			: `send ${state.promptTaskId ?? 'it'} back — reason (enter sends, esc cancels): `;
	return {
		width,
		height,
		mode: state.mode,
		header: selectHeader(lanesView.counts, queue.total, state.filter),
		alerts,
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
		reviews: selectReviews(state.verdicts, now),
		effects: {
			lines: held.lines,
			heldCount: held.held.length,
			markedCount: held.markedCount,
			isFocused: isEffectsFocused,
			height: isSideBySide ? panelsHeight : effectsLines,
		},
		effectOrder: held.held,
		approval: state.approval ? state.approval.map(ref => approvalLine(state, ref, now)) : null,
		timeline,
		help: state.mode === 'help' ? helpLines() : null,
		bar: fitBar(
			helpBar(state.mode, disabled).filter(item => isSideBySide || !item.isNotBuilt),
			size.width,
		),
		// A notice can quote a task title or a file name: it is ledger text too.
		notice: state.notice ? {...state.notice, text: terminalSafe(state.notice.text)} : null,
		prompt: state.prompt ? {label: promptLabel, text: terminalSafe(state.prompt.text)} : null,
		confirm: state.approval
			? `Approve ${state.approval.length} held effect${state.approval.length === 1 ? '' : 's'} listed above? y runs each once, n cancels`
			: confirmTask
				? terminalSafe(
						`Stop ${confirmTask.id} “${confirmTask.title ?? '—'}” (pid ${confirmTask.pid ?? 'unknown'})? y to stop, n to cancel`,
					)
				: null,
		order: lanesView.order,
		queueOrder: queue.order.map(item => ({taskId: item.taskId, at: item.at})),
	};
}
