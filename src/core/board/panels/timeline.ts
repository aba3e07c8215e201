import {cutCells} from '../../cell-width.ts';
import {shippedPriceTable} from '../../price-table.ts';
import {terminalSafe} from '../../terminal-text.ts';
import {trackRecordTable} from '../effects-view.ts';
import {whyLine} from '../explain-view.ts';
import {BoardCommand} from '../keymap.ts';
import type {ScreenView} from '../screen-view.ts';
import {stopBlockedReason, toRowView} from '../selectors.ts';
import {spendTables} from '../spend-view.ts';
import {selectTimeline, windowTimeline} from '../timeline-view.ts';
import {bodyRows} from './input.ts';
import type {BoardPanel, PanelInput} from './panel.ts';

/** `order o-42 for worker-1` when the open id is a work order (not a task). */
function orderHeading(state: PanelInput['state'], id: string): string | null {
	const order = state.orders.records.find(record => record.id === id);
	return order
		? terminalSafe(`order ${order.id} for ${order.worker ?? 'unknown'}${order.parent ? `, derived from ${order.parent}` : ''}`)
		: null;
}

/** The worker's track record and what the task's tree spent, by model and by helper. */
function tablesOf({state, now, height, width, options, lanes}: PanelInput, taskId: string) {
	const record = trackRecordTable(state.orders, taskId, state.tasks, now, width);
	// Each table a title line, its heading and its rows (at 80×24 three each, so events still show).
	const tableRows = Math.max(2, Math.floor((height - 12) / 4));
	const statusOf = (task: Parameters<typeof toRowView>[0]) =>
		lanes.rows?.get(task.id)?.status ?? toRowView(task, now, options.stallSeconds).status;
	const spend = spendTables(taskId, state.tasks, statusOf, options.prices ?? shippedPriceTable(), now, width, tableRows);
	const lines = [record, spend.byModel, spend.byHelper].reduce(
		(sum, table) => sum + (table ? 2 + table.rows.length + (table.more > 0 ? 1 : 0) : 0),
		0,
	);
	return {record, spend, lines};
}

/** A task's timeline (or a work order's): its events, contract, evidence, tables and the why line, scrolled. */
export const TIMELINE: BoardPanel = {
	name: 'timeline',
	commands: [BoardCommand.open, BoardCommand.log, BoardCommand.back, BoardCommand.top, BoardCommand.bottom],
	view(input) {
		const {state, now, width, options, lanes} = input;
		if (state.mode !== 'timeline' || !state.timeline) return {view: {timeline: null}};
		const {taskId, events, scroll} = state.timeline;
		const task = state.tasks.get(taskId);
		const selected = selectTimeline(task, events, now, options.stallSeconds, width);
		// The row as the lanes show it: the tree's tokens and cost, its burn rate.
		const view = {...selected, row: lanes.rows?.get(taskId) ?? selected.row};
		const tables = tablesOf(input, taskId);
		const fixed =
			5 +
			Math.max(1, view.contract.length) +
			Math.max(1, view.evidence.length) +
			view.worktree.length +
			view.acceptance.length +
			tables.lines;
		const visible = Math.max(3, bodyRows(input) - fixed);
		const windowed = windowTimeline(view.lines, scroll, visible);
		// Cut in cells here: Ink's own cut let a wide character at the edge wrap `…` onto a line of its own.
		const why = task
			? cutCells(terminalSafe(whyLine(task, events, state.queue, now, options.stallSeconds)), width - 'why: '.length)
			: null;
		const timeline: ScreenView['timeline'] = {
			...view,
			lines: windowed.lines,
			start: windowed.start,
			total: view.lines.length,
			record: tables.record,
			spend: tables.spend,
			order: orderHeading(state, taskId),
			why,
		};
		const isStoppable = task !== undefined && !stopBlockedReason(task);
		return {
			view: {timeline},
			keys: isStoppable ? {on: [BoardCommand.stop]} : {off: [BoardCommand.stop]},
			scroll: {scrollMax: Math.max(0, view.lines.length - visible), pageSize: Math.max(1, visible - 1)},
		};
	},
};
