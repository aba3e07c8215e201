import {decisionState} from '../../decisions/fold.ts';
import {selectHeldEffects} from '../effects-view.ts';
import {keyWordsOf} from '../keymap.ts';
import {idColumnCap} from '../row-layout.ts';
import {selectLanes, selectQueue, type BoardOptions, type QueueLaneView} from '../selectors.ts';
import type {BoardState} from '../state.ts';
import {selectAlerts} from './alerts.ts';
import type {PanelInput} from './panel.ts';

/** Below this width a row shows id, title, status, idle (and progress from 100); the rest moves to a detail line. */
export const WIDE_ROW_COLUMNS = 140;
/** From this width the three panels sit side by side. */
export const SIDE_BY_SIDE_COLUMNS = 100;

const HEADER_LINES = 1;
const FOOTER_LINES = 2;

/** The header, and under it a past board's line saying which moment it shows (panels/moment.ts). */
const headerLines = (options: BoardOptions): number => HEADER_LINES + (options.past ? 1 : 0);

/** Needs you's rows: its title and every lane's heading, items and "more" line, at most a third of the rows. */
function queueHeight(lanes: readonly QueueLaneView[], available: number): number {
	const needed =
		1 +
		Math.max(
			1,
			lanes.reduce((sum, lane) => sum + 1 + lane.items.length + (lane.more > 0 ? 1 : 0), 0),
		);
	return Math.min(needed, Math.max(3, Math.floor(available * 0.35)));
}

/** Rows under the header below which a screen is short (a 40×12 terminal leaves 9). */
const SHORT_AVAILABLE_ROWS = 13;

/**
 * The band Needs you, Reviews and Held effects share. Side by side, Reviews and Held effects sit
 * beside Needs you; stacked, one line each below it, Held effects opening up while it has the focus.
 */
function bandOf(input: Pick<PanelInput, 'state' | 'queue' | 'held' | 'available' | 'isSideBySide'>): PanelInput['band'] {
	// On a short screen (40×12) Decisions with the focus takes Needs you's rows, down to its title:
	// the question is the entry being answered, and both do not fit.
	const isDecidingOnShort = input.state.mode === 'decisions' && input.available < SHORT_AVAILABLE_ROWS;
	const queueLines = isDecidingOnShort ? 1 : queueHeight(input.queue.lanes, input.available);
	const effectsNeeded = 1 + Math.max(1, input.held.lines.length);
	const panelCap = Math.max(3, Math.floor(input.available * 0.35));
	const isOpen = input.isSideBySide || input.state.mode === 'effects';
	const effectsLines = isOpen ? Math.min(effectsNeeded, panelCap) : 1;
	const height = input.isSideBySide ? Math.max(3, queueLines, effectsLines) : queueLines + 1 + effectsLines;
	return {queueLines, effectsLines, height};
}

/** What the panels of one frame read: the state, the terminal, and the selections several of them share. */
export function boardInput(
	state: BoardState,
	now: number,
	size: {readonly width: number; readonly height: number},
	options: BoardOptions,
): PanelInput {
	const {width, height} = size;
	const pending = state.pending ?? new Map<string, readonly string[]>();
	const isWideRows = width >= WIDE_ROW_COLUMNS;
	const lanes = selectLanes(
		// The map itself: what does not change with the clock is kept while it is the same map.
		state.tasks,
		now,
		{
			filter: state.filter,
			sort: state.sort,
			idCap: idColumnCap(width, isWideRows),
			...(state.openTrees ? {openTrees: state.openTrees} : {}),
		},
		options,
		pending,
	);
	const alerts = selectAlerts(state);
	const available = Math.max(4, height - headerLines(options) - alerts.length - FOOTER_LINES);
	const queue = selectQueue(state.queue, state.tasks, now, pending);
	const held = selectHeldEffects(state.orders, now, state.marked, state.effectIndex, state.mode === 'effects');
	const isSideBySide = width >= SIDE_BY_SIDE_COLUMNS;
	const keys = keyWordsOf(options.keyTable);
	const shared = {state, now, width, height, options, keys, isWideRows, isSideBySide, alerts, available, lanes, queue, held};
	return {
		...shared,
		openQuestions: state.decisions.filter(decision => decisionState(decision, now) === 'open'),
		band: bandOf(shared),
		isQuestionShown: state.mode === 'question' || (state.mode === 'confirm' && state.question?.isConfirm === true),
	};
}

/** The rows a full-body view (a timeline, a log) has between the header and the footer. */
export function bodyRows(input: PanelInput): number {
	return input.height - headerLines(input.options) - FOOTER_LINES;
}
