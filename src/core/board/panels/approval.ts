import {approvalLines, windowApproval} from '../approval-view.ts';
import {BoardCommand} from '../keymap.ts';
import type {BoardPanel} from './panel.ts';

/** An approval waiting for y: every call it would run, whole, wrapped, and scrolled to what fits. */
export const APPROVAL: BoardPanel = {
	name: 'approval',
	commands: [BoardCommand.confirm, BoardCommand.cancel, BoardCommand.down, BoardCommand.up],
	view({state, now, width, available}) {
		if (state.mode !== 'confirm' || !state.approval) return {view: {approval: null}};
		// The title and, when it does not fit, a line saying where it is: the rest shows the calls.
		const lines = approvalLines(state.orders.records, state.approval, now, width);
		const approval = {...windowApproval(lines, state.approvalScroll, available - 2), count: state.approval.length};
		return {view: {approval}, scroll: {scrollMax: approval.scrollMax}};
	},
};
