import {BoardCommand} from '../keymap.ts';
import {windowLog} from '../log-view.ts';
import type {LogScreen} from '../screen-view.ts';
import {toRowView} from '../selectors.ts';
import {bodyRows} from './input.ts';
import type {BoardPanel} from './panel.ts';

/** The log view's own lines: its title, where the lines come from, and the position line. */
const LOG_CHROME_LINES = 3;

/** A task's output, live (for an agent session, its last messages), scrolled from the end. */
export const LOG: BoardPanel = {
	name: 'log',
	commands: [BoardCommand.log, BoardCommand.back, BoardCommand.top, BoardCommand.bottom],
	view(input) {
		const {state, now, options} = input;
		if (state.mode !== 'log' || !state.log) return {view: {log: null}};
		const task = state.tasks.get(state.log.taskId);
		const row = task ? toRowView(task, now, options.stallSeconds) : null;
		const visible = Math.max(1, bodyRows(input) - LOG_CHROME_LINES);
		const view = state.log.view;
		const log: LogScreen = {
			...windowLog(view?.lines ?? [], state.log.fromEnd, visible),
			row,
			origin: view?.origin ?? null,
			note: view?.note ?? null,
			source: view?.source ?? null,
		};
		return {
			view: {log},
			keys: !row || row.stopBlocked ? {off: [BoardCommand.stop]} : {on: [BoardCommand.stop]},
			scroll: {scrollMax: Math.max(0, (view?.lines.length ?? 0) - visible), pageSize: Math.max(1, visible - 1)},
		};
	},
};
