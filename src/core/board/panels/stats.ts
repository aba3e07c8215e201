import {cutCells, cellWidth} from '../../cell-width.ts';
import {statsLines} from '../../stats/stats-text.ts';
import {terminalSafe} from '../../terminal-text.ts';
import {BoardCommand} from '../keymap.ts';
import type {PanelBlock} from '../screen-view.ts';
import {CONTRACTS} from './contracts.ts';
import {DECISIONS} from './decisions.ts';
import type {BoardPanel, PanelInput} from './panel.ts';

/** What the lanes keep under the panels: two rows, their headings and the detail line. */
const LANES_KEEP = 4;

/** The table's weeks the panel shows at most: the latest ones (`controlroom stats` has every week). */
const PANEL_WEEKS = 4;

/**
 * The rows the panel may take: what Needs you's band and the panels above it (Decisions, Contracts)
 * leave, the lanes keeping theirs, and never more than half the screen's.
 */
function roomOf(input: PanelInput): number {
	const above = [DECISIONS, CONTRACTS].reduce((sum, panel) => sum + (panel.rows?.(input) ?? 0), 0);
	const left = input.available - input.band.height - above - LANES_KEEP;
	return Math.min(Math.floor(input.available / 2), left);
}

/**
 * The stats panel (docs/stats.md), or null while it is hidden or has no room: the lines of
 * `controlroom stats` from the figures the feed last read, fewer weeks where rows are short, then
 * cut to the rows it may take, each line cut at the width.
 */
function statsOf(input: PanelInput): PanelBlock | null {
	const {state, width, keys} = input;
	if (!state.isStatsShown) return null;
	const room = roomOf(input);
	if (room < 2) return null;
	const key = keys[BoardCommand.stats];
	const title = `IS THE PROCESS WORKING? weeks in UTC (${key} hides, controlroom stats has every week)`;
	if (state.stats === null) {
		return {
			name: 'stats',
			title,
			lines: [{text: 'no figures on this board (controlroom stats reads them)', tone: 'muted'}],
			height: 2,
			isFocused: false,
		};
	}
	// The title, the headings, the total, three lines of figures and the note of weeks left out: the rest are weeks.
	const weeks = Math.max(0, Math.min(PANEL_WEEKS, room - 7));
	const lines = statsLines(state.stats, {weeks}).slice(0, room - 1);
	const fitted = lines.map(line => {
		const safe = terminalSafe(line);
		return {text: cellWidth(safe) <= width ? safe : cutCells(safe, width), tone: null};
	});
	return {
		name: 'stats',
		title: cellWidth(title) <= width ? title : cutCells(title, width),
		lines: fitted,
		height: fitted.length + 1,
		isFocused: false,
	};
}

/** Stats: is the process working? Verdicts, fix/approve, INVALID share, Needs you, handoffs (docs/stats.md); shown and hidden by its key. */
export const STATS: BoardPanel = {
	name: 'stats',
	commands: [BoardCommand.stats],
	rows: input => statsOf(input)?.height ?? 0,
	view(input) {
		const block = statsOf(input);
		return {view: {blocks: block ? [block] : []}};
	},
};
