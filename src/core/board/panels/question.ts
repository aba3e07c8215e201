import {questionLines, windowQuestion} from '../decisions-view.ts';
import {BoardCommand} from '../keymap.ts';
import type {BoardPanel} from './panel.ts';

/** A question shown whole: its drill-in, or the allow confirmation `y` waits on. */
export const QUESTION: BoardPanel = {
	name: 'question',
	commands: [BoardCommand.approve, BoardCommand.sendBack, BoardCommand.open, BoardCommand.back],
	view({state, now, width, available, isQuestionShown}) {
		if (!isQuestionShown) return {view: {question: null}};
		const keys = {on: [BoardCommand.approve, BoardCommand.sendBack]};
		const pageSize = Math.max(1, available - 3);
		if (!state.question) return {view: {question: null}, keys, scroll: {pageSize}};
		const {id, scroll, isConfirm} = state.question;
		const decision = state.decisions.find(candidate => candidate.id === id);
		const lines = decision
			? questionLines(decision, now, width)
			: [`${id} no longer waits for an answer: answered, withdrawn, or its hook is gone (controlroom snapshot --all says which)`];
		// The title and the position line; the rest shows the question.
		const question = {...windowQuestion(lines, scroll, available - 2), id, isConfirm};
		return {
			view: {question},
			keys,
			scroll: {scrollMax: question.scrollMax, pageSize},
		};
	},
};
