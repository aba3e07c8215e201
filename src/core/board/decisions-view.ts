import {cutCells} from '../cell-width.ts';
import type {DecisionRecord} from '../decisions/fold.ts';
import {summarizeArgs} from '../effects/view.ts';
import {formatDuration} from '../format.ts';
import {terminalSafe, terminalSafeJson} from '../terminal-text.ts';
import {wrapLine, windowApproval, type ApprovalView} from './approval-view.ts';

// The board's Decisions panel and its drill-in (docs/decisions.md, "The board"): every question a
// person can answer, oldest first, one line each cut to the panel's width; Enter shows one whole,
// and `a` shows the same lines as the confirmation before `y` allows it.

/** One line of the panel. */
export type DecisionPanelLine = {readonly id: string; readonly text: string; readonly isSelected: boolean};

/** The panel as drawn: the lines in view (a window around the cursor) and how many there are. */
export type DecisionsPanelView = {
	readonly lines: readonly DecisionPanelLine[];
	readonly count: number;
	/** Index of the first question in view. */
	readonly start: number;
	readonly isFocused: boolean;
	readonly height: number;
};

const clockOf = (at: number): string => `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** A budget question's figures in words: `36576 spent of 30000, 12192 a turn`. */
export function budgetWords(decision: DecisionRecord): string {
	const figures = decision.budget;
	if (!figures) return 'budget crossed';
	return `${figures.spent ?? 'unknown'} spent of ${figures.budget ?? 'unknown'}, ${figures.perTurn ?? 'unknown'} a turn`;
}

/**
 * One question on one line: id, how long it waited, who asks and in what way, the tool and its
 * arguments, the task; everything the agent wrote made terminal-safe, cut at `width` cells.
 */
export function decisionPanelText(decision: DecisionRecord, now: number, width: number): string {
	const who = terminalSafe(decision.agent ?? 'an agent');
	const what =
		decision.kind === 'budget'
			? `budget: ${budgetWords(decision)}; held ${terminalSafe(decision.tool)} ${summarizeArgs(decision.args, Math.max(8, width))}`
			: `${terminalSafe(decision.tool)} ${summarizeArgs(decision.args, Math.max(8, width))}`;
	// The arguments before the task: at 80 columns they are what the person decides on (the drill-in names the task).
	const line = `${decision.id}  ${formatDuration(now - decision.askedAt)}  ${who} (${decision.kind})  ${what}  · ${terminalSafe(decision.taskId)}`;
	return cutCells(line, Math.max(1, width));
}

/** The panel's lines for `rows` rows under its title, the cursor's question always among them. */
export function selectDecisionsPanel(
	decisions: readonly DecisionRecord[],
	now: number,
	cursor: number,
	isFocused: boolean,
	width: number,
	rows: number,
): DecisionsPanelView {
	const room = Math.max(1, rows);
	const index = Math.max(0, Math.min(cursor, decisions.length - 1));
	const start = Math.min(Math.max(0, index - room + 1), Math.max(0, decisions.length - room));
	const lines = decisions.slice(start, start + room).map((decision, offset) => ({
		id: decision.id,
		text: decisionPanelText(decision, now, width - 3),
		isSelected: isFocused && start + offset === index,
	}));
	return {lines, count: decisions.length, start, isFocused, height: 1 + lines.length};
}

/** Every argument of a question whole: its key and its value as JSON, each escaped for the terminal. */
function argumentLines(args: unknown): string[] {
	if (args === null || typeof args !== 'object' || Array.isArray(args)) return [`    ${terminalSafeJson(args ?? null)}`];
	const entries = Object.entries(args);
	if (entries.length === 0) return ['    (no arguments)'];
	return entries.map(([key, value]) => `    ${terminalSafe(key)} = ${terminalSafeJson(value ?? null)}`);
}

// A 100 KB command is wrapped once per question and width, not at every frame (the clock ticks each
// second, and every read of the ledger folds the questions into new records).
const wrapped = new Map<string, readonly string[]>();
const WRAPPED_KEPT = 16;

function wrappedArguments(decision: DecisionRecord, width: number): readonly string[] {
	const key = `${decision.id} ${decision.argsHash} ${width}`;
	const known = wrapped.get(key);
	if (known) return known;
	const lines = argumentLines(decision.args).flatMap(line => wrapLine(line, width, '      '));
	if (wrapped.size >= WRAPPED_KEPT) wrapped.delete(wrapped.keys().next().value ?? '');
	wrapped.set(key, lines);
	return lines;
}

/**
 * A question whole, as the drill-in and the allow confirmation show it: what kind, who asks, when
 * it was asked, how long it waited, when it expires, the task and session, the SHA-256 the answer
 * is bound to, and every argument in full, wrapped at `width`.
 */
export function questionLines(decision: DecisionRecord, now: number, width: number): string[] {
	const room = Math.max(8, width - 2);
	const expires =
		decision.expiresAt === null
			? 'never: it waits until a person answers'
			: decision.expiresAt > now
				? `${clockOf(decision.expiresAt)} (in ${formatDuration(decision.expiresAt - now)})`
				: `${clockOf(decision.expiresAt)} (passed)`;
	const facts = [
		`${decision.id}  ${decision.kind} question from ${terminalSafe(decision.agent ?? 'an agent')}`,
		`  tool       ${terminalSafe(decision.tool)}`,
		`  asked at   ${clockOf(decision.askedAt)}  (waited ${formatDuration(now - decision.askedAt)})`,
		`  expires    ${expires}`,
		`  task       ${terminalSafe(decision.taskId)}`,
		`  session    ${terminalSafe(decision.session ?? 'none recorded')}`,
		...(decision.toolUseId === null ? [] : [`  call id    ${terminalSafe(decision.toolUseId)}`]),
		...(decision.cwd === null ? [] : [`  folder     ${terminalSafe(decision.cwd)}`]),
		...(decision.kind === 'budget' ? [`  budget     ${budgetWords(decision)}`] : []),
		`  sha-256    ${terminalSafe(decision.argsHash)}  (the answer is bound to these arguments)`,
		`  arguments`,
	].flatMap(line => wrapLine(line, room, '             '));
	return [...facts, ...wrappedArguments(decision, room)];
}

/** The drill-in (or confirmation) windowed to `visible` lines, scrolled `scroll` lines down. */
export function windowQuestion(lines: readonly string[], scroll: number, visible: number): ApprovalView {
	return windowApproval(lines, scroll, visible);
}

/** Tokens a budget approval adds when the person types none: what is over, and two more turns at this rate, to the next thousand. */
export function defaultHeadroom(decision: DecisionRecord): number {
	const figures = decision.budget;
	const budget = figures?.budget ?? null;
	const perTurn = figures?.perTurn ?? null;
	const over = Math.max(0, (figures?.spent ?? 0) - (budget ?? 0));
	const wanted = perTurn !== null && perTurn > 0 ? over + 2 * perTurn : (budget ?? 10_000);
	return Math.max(1000, Math.ceil(wanted / 1000) * 1000);
}

/**
 * What the headroom prompt's text means: empty takes the default; `+20000`, `20000`, `20k` or
 * `20,000` are tokens. Returns the tokens, or why not (one line for the status line).
 */
export function parseHeadroom(
	text: string,
	fallback: number,
): {readonly ok: true; readonly tokens: number} | {readonly ok: false; readonly why: string} {
	// Only nothing typed takes the default: a lone `+` is a number not finished.
	if (text.trim() === '') return {ok: true, tokens: fallback};
	const typed = text
		.trim()
		.replace(/^\+/, '')
		.replace(/[,_\s]/g, '');
	const match = /^(\d+)(k?)$/i.exec(typed);
	const tokens = match ? Number(match[1]) * (match[2] === '' ? 1 : 1000) : Number.NaN;
	if (!Number.isSafeInteger(tokens) || tokens <= 0) {
		return {ok: false, why: `expected a whole number of tokens above 0 (+20000), got '${terminalSafe(text.trim())}'`};
	}
	return {ok: true, tokens};
}
