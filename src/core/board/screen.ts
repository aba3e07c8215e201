import {type BoardCommand} from './keymap.ts';
import {frameOf} from './panels/frame.ts';
import {PANELS} from './panels/index.ts';
import {boardInput} from './panels/input.ts';
import type {PanelInput, PanelLayout, PanelPart} from './panels/panel.ts';
import type {ScreenView} from './screen-view.ts';
import type {BoardOptions} from './selectors.ts';
import type {BoardState} from './state.ts';

export {confirmStopText} from './panels/frame.ts';
export {fitHelp} from './panels/help.ts';
export type {HelpScreen, ScreenView} from './screen-view.ts';

/** One line for the column headings over the lanes. */
const HEADINGS_LINES = 1;

/** Gives each panel the rows it asks for under the lanes; the lanes take what is left. */
function layoutPanels(input: PanelInput): PanelLayout {
	const rows = new Map(PANELS.flatMap(panel => (panel.rows ? [[panel.name, panel.rows(input)] as const] : [])));
	const taken = [...rows.values()].reduce((sum, count) => sum + count, 0);
	const detailLines = input.isWideRows ? 0 : 1;
	return {rows, lanesHeight: Math.max(2, input.available - taken - detailLines - HEADINGS_LINES)};
}

/** Folds a panel's key changes into the frame's: greyed out, given back, hidden. */
function applyKeys(part: PanelPart, disabled: Set<BoardCommand>, hidden: Set<BoardCommand>): void {
	for (const command of part.keys?.off ?? []) disabled.add(command);
	for (const command of part.keys?.on ?? []) disabled.delete(command);
	for (const command of part.keys?.hidden ?? []) hidden.add(command);
}

/**
 * Builds the whole screen from the state at `now` for a `width`×`height` terminal: the panels
 * (panels/index.ts) each make their part in turn, in the room the layout gave them, and the frame
 * (header, help bar, prompt) goes round them.
 */
export function selectScreen(
	state: BoardState,
	now: number,
	size: {readonly width: number; readonly height: number},
	options: BoardOptions = {},
): ScreenView {
	const input = boardInput(state, now, size, options);
	const layout = layoutPanels(input);
	const disabled = new Set<BoardCommand>();
	const hidden = new Set<BoardCommand>();
	let parts: Partial<ScreenView> = {blocks: []};
	let scroll = {scrollMax: 0, pageSize: 1};
	for (const panel of PANELS) {
		const part = panel.view(input, layout);
		parts = {...parts, ...part.view, blocks: [...(parts.blocks ?? []), ...(part.view.blocks ?? [])]};
		scroll = {...scroll, ...part.scroll};
		applyKeys(part, disabled, hidden);
	}
	return {
		...(parts as Omit<ScreenView, keyof ReturnType<typeof frameOf>>),
		...frameOf(input, parts, {disabled, hidden}),
		...scroll,
	};
}
