import {terminalSafe} from '../../terminal-text.ts';
import {budgetWords, defaultHeadroom} from '../decisions-view.ts';
import {bindingsShown, BoardCommand, fitBar, helpBar, KEY_TABLE, keyTableFor, type KeyWords} from '../keymap.ts';
import type {ScreenView} from '../screen-view.ts';
import {ledgerHeaderLabel, selectHeader} from '../selectors.ts';
import {SORT_LABELS} from '../sort.ts';
import type {BoardState} from '../state.ts';
import type {PanelInput} from './panel.ts';

/** The narrowest the ledger's name is shown in the header: below it, the name gives way to the counts. */
const MIN_HEADER_LEDGER = 16;

/** Cuts `text` to `width` characters, marking the cut with `…`. */
function cut(text: string, width: number): string {
	const chars = [...text];
	return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/**
 * The stop question, fitted to the status line: the title gives way first, then the words, so the
 * id, the PID and the keys are always on screen.
 */
export function confirmStopText(
	task: {readonly id: string; readonly host?: string; readonly title: string | null; readonly pid: number | null},
	width: number,
	keys: {readonly yes: string; readonly no: string} = {yes: 'y', no: 'n'},
): string {
	const room = Math.max(20, width - 1);
	const {yes, no} = keys;
	const pid = `(pid ${task.pid ?? 'unknown'})`;
	// On a fleet board the host is named: the stop is carried out there.
	const id = task.host === undefined ? task.id : `${task.id} on ${task.host}`;
	for (const keys of [`${yes} to stop, ${no} to cancel`, `${yes} stop · ${no} no`, `${yes}/${no}`]) {
		const bare = `Stop ${id} ${pid}? ${keys}`;
		const titleRoom = room - bare.length - 3;
		if (task.title && titleRoom >= 6) return `Stop ${id} “${cut(task.title, titleRoom)}” ${pid}? ${keys}`;
		if (bare.length <= room) return bare;
	}
	return cut(`Stop ${id}? ${yes}/${no}`, room);
}

/** The header: counts, the burn rate where the width leaves it room (docs/tree-and-cost.md), and the ledger's name in what is left. */
function headerOf({state, width, lanes, queue, options}: PanelInput): Pick<ScreenView, 'header' | 'ledger'> {
	const counted = selectHeader(lanes.counts, queue.total, SORT_LABELS[state.sort], width, lanes.hosts, lanes.unseen);
	const header = {...counted, burn: width >= 120 ? (lanes.burn ?? null) : null};
	if (options.ledgerLabel === undefined) return {header, ledger: null};
	// The counts and the sort order always show whole; the ledger's name takes what they leave.
	const room = width - 'controlroom '.length - header.counts.length - header.sort.length - 4;
	return {
		header,
		ledger: room < MIN_HEADER_LEDGER ? null : ledgerHeaderLabel(options.ledgerLabel, Math.min(Math.floor(width / 3), room)),
	};
}

/** The prompt's words before what is typed: the filter's `/`, a headroom, a deny's reason, a send-back's reason. */
function promptLabel(state: BoardState, w: KeyWords): string {
	const prompt = state.prompt;
	const [enter, esc] = [w[BoardCommand.submit], w[BoardCommand.back]];
	if (prompt?.kind === 'filter') return '/';
	if (prompt?.kind === 'headroom') {
		const decision = state.decisions.find(candidate => candidate.id === prompt.decisionId);
		return `allow ${prompt.decisionId ?? ''} — ${decision ? terminalSafe(budgetWords(decision)) : 'budget'}; tokens to add (${enter} alone: +${decision ? defaultHeadroom(decision) : '?'}, ${esc} cancels): `;
	}
	if (prompt?.kind === 'message')
		return `message to ${state.promptTaskId ?? 'it'}, given at its next turn boundary (${enter} sends, ${esc} cancels): `;
	if (prompt?.decisionId !== undefined)
		return `deny ${prompt.decisionId} — reason the agent reads (${enter} denies, ${esc} cancels): `;
	return `send ${state.promptTaskId ?? 'it'} back — reason (${enter} sends, ${esc} cancels): `;
}

/** The status line's question: allow a question, approve held effects (each read whole first), or stop a task. */
function confirmText(state: BoardState, width: number, parts: Partial<ScreenView>, w: KeyWords): string | null {
	const {question, approval} = parts;
	const [yes, no, more] = [
		w[BoardCommand.confirm],
		w[BoardCommand.cancel],
		`${w[BoardCommand.down]} or ${w[BoardCommand.pageDown]}`,
	];
	if (question?.isConfirm) {
		return state.question !== null && state.question.seen < question.scrollMax
			? `Allow ${question.id}? Read it whole first: ${more} shows the rest (${question.total - (state.question.seen + question.lines.length)} more lines); ${no} cancels`
			: `Allow ${question.id} exactly as shown above? ${yes} allows this call once, ${no} cancels`;
	}
	if (state.approval) {
		const count = `${state.approval.length} held effect${state.approval.length === 1 ? '' : 's'}`;
		return approval && state.approvalSeen < approval.scrollMax
			? `Approve ${count}? Read them whole first: ${more} shows the rest (${approval.total - (state.approvalSeen + approval.lines.length)} more lines); ${no} cancels`
			: `Approve ${count} listed above? ${yes} runs each once, ${no} cancels`;
	}
	const task = state.confirmTaskId === null ? undefined : state.tasks.get(state.confirmTaskId);
	return task ? terminalSafe(confirmStopText(task, width, {yes, no})) : null;
}

/** The help bar: the mode's keys, greyed where they cannot act now; tab says where it goes. */
function barOf(input: PanelInput, disabled: ReadonlySet<BoardCommand>, hidden: Set<BoardCommand>): ScreenView['bar'] {
	const {state, width, openQuestions, options} = input;
	if (state.mode === 'list' && state.filter === '') hidden.add(BoardCommand.back);
	// A stop's question has nothing to scroll.
	if (state.mode === 'confirm' && !state.approval) hidden.add(BoardCommand.up);
	// While a question is open, tab from Held effects goes on to Decisions, not back to the lanes.
	const table = bindingsShown(keyTableFor(options.past !== undefined, options.keyTable ?? KEY_TABLE), options.isReadOnly);
	const items = helpBar(state.mode, disabled, table, hidden).map(item =>
		item.command === BoardCommand.focus && state.mode === 'effects' && openQuestions.length > 0
			? {...item, label: 'decisions'}
			: item,
	);
	return fitBar(items, width, state.mode);
}

/** What frames the panels: the header and its alerts, the help bar, the notice, filter, prompt and question lines. */
export function frameOf(
	input: PanelInput,
	parts: Partial<ScreenView>,
	changes: {readonly disabled: ReadonlySet<BoardCommand>; readonly hidden: Set<BoardCommand>},
): Pick<
	ScreenView,
	| 'width'
	| 'height'
	| 'mode'
	| 'header'
	| 'ledger'
	| 'alerts'
	| 'bar'
	| 'notice'
	| 'filter'
	| 'prompt'
	| 'confirm'
	| 'keys'
	| 'isReadOnly'
> {
	const {state, width, height, keys} = input;
	return {
		width,
		height,
		mode: state.mode,
		...headerOf(input),
		alerts: input.alerts,
		bar: barOf(input, changes.disabled, changes.hidden),
		// A notice can quote a task title or a file name: it is ledger text too.
		notice: state.notice ? {...state.notice, text: terminalSafe(state.notice.text)} : null,
		filter: state.filter.trim() === '' || state.prompt?.kind === 'filter' ? null : terminalSafe(state.filter.trim()),
		prompt: state.prompt ? {label: promptLabel(state, keys), text: terminalSafe(state.prompt.text)} : null,
		confirm: confirmText(state, width, parts, keys),
		keys,
		isReadOnly: input.options.isReadOnly === true,
	};
}
