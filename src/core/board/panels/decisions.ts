import {selectDecisionsPanel} from '../decisions-view.ts';
import {BoardCommand} from '../keymap.ts';
import type {BoardPanel, PanelInput} from './panel.ts';

/** The Decisions panel, or null while no question is open: its title and a line a question, at most a quarter of the rows. */
function decisionsOf({state, now, width, available, openQuestions}: PanelInput) {
	if (openQuestions.length === 0) return null;
	const rows = Math.min(openQuestions.length, Math.max(1, Math.floor(available * 0.25)));
	return selectDecisionsPanel(openQuestions, now, state.decisionIndex, state.mode === 'decisions', width, rows);
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
