import {PAST_REFUSED, pastHeaderLine, STEP_OF} from '../past-moment.ts';
import type {BoardCommand} from '../keymap.ts';
import type {BoardPanel} from './panel.ts';

/**
 * A board at a past moment (`board --at`, docs/flight-recorder.md): the line under the header that
 * says it is a past view and of which moment, and the keys that act greyed out in the help bar (last
 * in the panel order, so no panel gives them back). Its row is taken under the header (input.ts);
 * on the live board it adds nothing.
 */
export const MOMENT: BoardPanel = {
	name: 'moment',
	commands: Object.keys(STEP_OF) as BoardCommand[],
	view({options, state, width}) {
		const {past} = options;
		if (past === undefined) return {view: {}};
		// At now the board follows the ledger: its newest event is the last one read.
		const view = past.isNow ? {...past, seq: state.lastSeq, latestSeq: state.lastSeq} : past;
		return {view: {past: {text: pastHeaderLine(view, width), isNow: past.isNow}}, keys: {off: PAST_REFUSED}};
	},
};
