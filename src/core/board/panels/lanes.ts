import {BoardCommand} from '../keymap.ts';
import {layoutColumns, layoutHeadings} from '../row-layout.ts';
import {windowLines} from '../selectors.ts';
import type {BoardPanel} from './panel.ts';

/** The lanes: every task in its lane (running, stalled, lost, untracked, recently ended), the cursor on one. */
export const LANES: BoardPanel = {
	name: 'lanes',
	commands: [BoardCommand.down, BoardCommand.up, BoardCommand.openTree, BoardCommand.closeTree, BoardCommand.stop],
	view({state, width, isWideRows, lanes}, layout) {
		// The cursor stays on its task; when that task has left the list, it stays at the same place.
		const order = lanes.order;
		const listed = state.selectedId === null ? -1 : order.indexOf(state.selectedId);
		const selectedIndex = listed >= 0 ? listed : Math.max(0, Math.min(state.selectedIndex, order.length - 1));
		const selectedId = order[selectedIndex] ?? null;
		const rows = lanes.lines.flatMap(line => (line.kind === 'row' ? [line.row] : []));
		const selected = rows.find(row => row.id === selectedId) ?? null;
		const columns = layoutColumns(rows, width, isWideRows, lanes.idWidth, lanes.hosts > 1);
		const window = windowLines(lanes.lines, selectedId, layout.lanesHeight);
		return {
			view: {
				isWideRows,
				showHost: lanes.hosts > 1,
				lanes: {...window, height: layout.lanesHeight, columns, headings: layoutHeadings(columns)},
				selectedId,
				selectedIndex,
				selected,
				order,
			},
			keys: {off: !selected || selected.stopBlocked ? [BoardCommand.stop] : []},
			scroll: {pageSize: Math.max(1, layout.lanesHeight - 2)},
		};
	},
};
