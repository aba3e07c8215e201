import type {ToneLine} from '../screen-view.ts';
import type {BoardPanel, PanelInput} from './panel.ts';

// An empty board says what to run first, as k9s and lazygit say what an empty view needs: a person
// who opened it before any agent ran sees five lanes of `none` and no way on (docs/board.md).

/** What to run, and what it does, within 80 columns; the commands' own help says the rest. */
const STEPS: readonly (readonly [string, string])[] = [
	['controlroom hooks install', 'record every Claude Code and Codex session'],
	['controlroom run -- CMD', 'run an agent (or any command) as a recorded task'],
	['controlroom demo', 'simulated agents on a scratch ledger'],
	['controlroom doctor', 'check the install, the hooks and the ledger'],
];

/** The lanes' five lines of `none` and their headings: the rows the hint leaves them. */
const EMPTY_LANES_ROWS = 6;

/** The hint's lines fitted to the rows the lanes leave: every step, or one line, or none. */
function linesOf(input: PanelInput): readonly ToneLine[] | null {
	const {state} = input;
	if (state.tasks.size > 0 || state.contracts.length > 0 || input.openQuestions.length > 0 || state.filter.trim() !== '')
		return null;
	const room = input.available - input.band.height - EMPTY_LANES_ROWS;
	const wide = Math.max(...STEPS.map(([command]) => command.length)) + 2;
	if (room >= STEPS.length + 1) return STEPS.map(([command, what]) => ({text: `  ${command.padEnd(wide)}${what}`, tone: null}));
	if (room >= 2) return [{text: `  ${STEPS[0]?.[0] ?? ''}`, tone: null}];
	return null;
}

/** First steps: under the lanes while nothing is on the board (no task, contract or question; nothing filtered). */
export const FIRST_STEPS: BoardPanel = {
	name: 'first-steps',
	commands: [],
	rows: input => {
		const lines = linesOf(input);
		return lines === null ? 0 : lines.length + 1;
	},
	view(input) {
		const lines = linesOf(input);
		if (lines === null) return {view: {}};
		return {
			view: {
				blocks: [
					{
						name: 'first-steps',
						title: 'NO AGENT ON THE BOARD YET: to see one here, run',
						lines,
						height: lines.length + 1,
						isFocused: false,
					},
				],
			},
		};
	},
};
