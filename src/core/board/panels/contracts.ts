import {selectContractsPanel} from '../contracts-view.ts';
import type {BoardPanel, PanelInput} from './panel.ts';

/** The panel's block, or null while no contract is listed: at most a quarter of the rows, and never fewer than two. */
function contractsOf({state, now, available, width}: PanelInput) {
	if (state.contracts.length === 0) return null;
	const rows = Math.min(state.contracts.length + 1, Math.max(2, Math.floor(available * 0.25)));
	return selectContractsPanel(state.contracts, now, {rows, width});
}

/** Contracts: stored contracts waiting, taken and handed in, and who wrote each (docs/serve.md), full width under the others. */
export const CONTRACTS: BoardPanel = {
	name: 'contracts',
	commands: [],
	rows: input => contractsOf(input)?.height ?? 0,
	view(input) {
		const block = contractsOf(input);
		return {view: {blocks: block ? [block] : []}};
	},
};
