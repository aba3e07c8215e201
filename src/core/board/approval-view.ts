import type {OrderRecord} from '../effects/fold.ts';
import {cellWidth} from '../cell-width.ts';
import {formatDuration} from '../format.ts';
import {terminalSafe, terminalSafeJson} from '../terminal-text.ts';
import type {HeldEffectRef} from './effects-view.ts';

// What the approver sees before `y` is what runs (docs/board.md, "Approving"): every call whole,
// each argument's key and value in full, escaped, wrapped over as many lines as it needs; when
// that is more than the screen holds it scrolls, and `y` waits until every line has been shown.

/** The confirmation as drawn: the lines in view, and where they sit in the whole. */
export type ApprovalView = {
	readonly lines: readonly string[];
	/** Index of the first line in view. */
	readonly start: number;
	readonly total: number;
	/** How far it scrolls: 0 when it fits. */
	readonly scrollMax: number;
};

const graphemes = new Intl.Segmenter();
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Wraps one line of printable text at `width` columns; continuation lines are indented by `indent`. */
export function wrapLine(text: string, width: number, indent = ''): string[] {
	const room = Math.max(8, width);
	// Printable ASCII is one cell a character: cut by count (a 100 KB command wraps in a millisecond,
	// not the seconds a grapheme at a time takes), with the same lines as below.
	if (PRINTABLE_ASCII.test(text) && PRINTABLE_ASCII.test(indent) && indent.length < room) {
		const lines = [text.slice(0, room)];
		const step = room - indent.length;
		for (let at = room; at < text.length; at += step) lines.push(indent + text.slice(at, at + step));
		return lines;
	}
	const lines: string[] = [];
	let current = '';
	let used = 0;
	// Every character is kept (no space is dropped at a break): what is approved is what was shown.
	// Widths are measured as terminals draw them (src/core/cell-width.ts), a grapheme at a time.
	for (const {segment} of graphemes.segment(text)) {
		const size = cellWidth(segment);
		if (used + size > room) {
			lines.push(current);
			current = indent;
			used = cellWidth(indent);
		}
		current += segment;
		used += size;
	}
	lines.push(current);
	return lines;
}

/** One held call as the person reads it before approving: a heading, then every argument whole. */
function callLines(order: OrderRecord | undefined, ref: HeldEffectRef, now: number): string[] {
	const effect = order?.effects.find(candidate => candidate.id === ref.id);
	const heading = `${terminalSafe(ref.orderId)}  ${terminalSafe(ref.id)}${
		effect
			? `  ${terminalSafe(`${effect.upstream}/${effect.tool}`)}  held ${formatDuration(now - effect.calledAt)} ago`
			: '  (not in the ledger)'
	}`;
	if (!effect) return [heading];
	const args = effect.args;
	if (args === null || typeof args !== 'object' || Array.isArray(args)) return [heading, `    ${terminalSafeJson(args ?? null)}`];
	const entries = Object.entries(args);
	if (entries.length === 0) return [heading, '    (no arguments)'];
	// The key is the agent's word as much as the value: both escaped, the value as JSON (strings quoted).
	return [heading, ...entries.map(([key, value]) => `    ${terminalSafe(key)} = ${terminalSafeJson(value ?? null)}`)];
}

/** Every line of the confirmation for `refs`, wrapped at `width`. */
export function approvalLines(
	orders: readonly OrderRecord[],
	refs: readonly HeldEffectRef[],
	now: number,
	width: number,
): string[] {
	return refs.flatMap(ref =>
		callLines(
			orders.find(order => order.id === ref.orderId),
			ref,
			now,
		).flatMap(line => wrapLine(line, width - 2, '      ')),
	);
}

/** The lines in view when the confirmation is scrolled `scroll` lines down and `visible` fit. */
export function windowApproval(lines: readonly string[], scroll: number, visible: number): ApprovalView {
	const room = Math.max(1, visible);
	const scrollMax = Math.max(0, lines.length - room);
	const start = Math.max(0, Math.min(scroll, scrollMax));
	return {lines: lines.slice(start, start + room), start, total: lines.length, scrollMax};
}
