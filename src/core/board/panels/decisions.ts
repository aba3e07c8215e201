import {selectDecisionsPanel} from '../decisions-view.ts';
import {BoardCommand, type KeyWords} from '../keymap.ts';
import type {BoardPanel, PanelInput} from './panel.ts';

/** Below this many rows the panel is drawn only with the focus. */
const SHORT_SCREEN_ROWS = 16;

/** The Decisions panel, or null while no question is open: its title and a line a question, at most a quarter of the rows. */
function decisionsOf({state, now, width, height, available, openQuestions, keys, options}: PanelInput) {
	const isFocused = state.mode === 'decisions';
	// A short screen (40×12) leaves it out until d or tab gives it the focus: its questions are in
	// Needs you's decisions lane, and its rows would push Needs you's title off the screen.
	if (openQuestions.length === 0 || (height < SHORT_SCREEN_ROWS && !isFocused)) return null;
	const rows = Math.min(openQuestions.length, Math.max(1, Math.floor(available * 0.25)));
	const panel = selectDecisionsPanel(openQuestions, now, state.decisionIndex, isFocused, width, rows);
	return {...panel, hint: hintOf(keys, isFocused, options.isReadOnly === true)};
}

/** The title's words: its keys while it has the focus, or the key that gives it the focus. */
function hintOf(keys: KeyWords, isFocused: boolean, isReadOnly: boolean): string {
	const [open, allow, deny, go] = [BoardCommand.open, BoardCommand.approve, BoardCommand.sendBack, BoardCommand.decisions].map(
		command => keys[command],
	);
	if (isReadOnly) return isFocused ? ` — ${open} shows it whole` : ` (${go} to read)`;
	return isFocused ? ` — ${open} shows it whole, ${allow} allows, ${deny} denies` : ` (${go} to answer)`;
}

/** Decisions: every question a person can answer, full width under the others while one is open. */
export const DECISIONS: BoardPanel = {
	name: 'decisions',
	commands: [BoardCommand.approve, BoardCommand.sendBack, BoardCommand.open, BoardCommand.decisions],
	rows: input => decisionsOf(input)?.height ?? 0,
	view(input) {
		return {
			view: {decisions: decisionsOf(input), decisionOrder: input.openQuestions.map(decision => decision.id)},
			keys: {
				on: input.state.mode === 'decisions' ? [BoardCommand.approve, BoardCommand.sendBack] : [],
				// d goes to Decisions: said in the bar only while a question waits there.
				hidden: input.openQuestions.length === 0 ? [BoardCommand.decisions] : [],
			},
		};
	},
};
