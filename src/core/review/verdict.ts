/** The four verdicts a reviewer can come to (docs/review.md, "The verdict grammar"). */
export const VERDICT_KINDS = ['APPROVE', 'FIX', 'INVALID', 'STOPPED'] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];

/** One reviewer's verdict: approved, a numbered list of fixes, an unusable answer, or no answer (ended by a signal). */
export type Verdict =
	| {readonly kind: 'APPROVE'}
	| {readonly kind: 'FIX'; readonly fixes: readonly string[]}
	| {readonly kind: 'INVALID'; readonly reason: string}
	| {readonly kind: 'STOPPED'; readonly signal: string | null};

const ITEM = /^(\d+)\. +(\S.*)$/;
const CONTINUATION = /^[ \t]+\S/;
const EXCERPT = 60;

function excerpt(line: string): string {
	const flat = line.trim();
	return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT - 1)}…` : flat;
}

function invalid(reason: string): Verdict {
	return {kind: 'INVALID', reason};
}

/**
 * Reads a reviewer's answer strictly (docs/review.md). Trimmed, it is exactly `APPROVE`, or a
 * numbered list of fixes: items `1. text`, `2. text`, ... counting from 1 without gaps, each at the
 * start of its line; a line indented under an item continues it; blank lines may separate items.
 * Anything else (prose, `Approve`, `APPROVE.`, a list in a code fence, a list after a preamble,
 * `1)` items, a skipped number) is INVALID, with the reason naming the first line that breaks the rule.
 */
export function parseVerdict(answer: string): Verdict {
	const text = answer.replace(/\r\n?/g, '\n').trim();
	if (text === '') return invalid('empty answer');
	if (text === 'APPROVE') return {kind: 'APPROVE'};
	const fixes: string[] = [];
	let isAfterBlank = false;
	const lines = text.split('\n');
	for (const [index, line] of lines.entries()) {
		const lineNumber = index + 1;
		if (line.trim() === '') {
			isAfterBlank = true;
			continue;
		}
		const item = ITEM.exec(line);
		if (item) {
			const expected = fixes.length + 1;
			if (item[1] !== String(expected)) {
				return invalid(`line ${lineNumber}: item numbered ${item[1]} where ${expected} was due`);
			}
			fixes.push((item[2] ?? '').trim());
			isAfterBlank = false;
			continue;
		}
		if (CONTINUATION.test(line) && fixes.length > 0 && !isAfterBlank) {
			fixes[fixes.length - 1] = `${fixes.at(-1) ?? ''} ${line.trim()}`;
			continue;
		}
		const what = fixes.length === 0 ? 'neither APPROVE nor a numbered fix' : 'not a numbered fix';
		return invalid(`line ${lineNumber} is ${what}: “${excerpt(line)}”`);
	}
	return {kind: 'FIX', fixes};
}

/** A verdict in one short phrase: `APPROVE`, `FIX (2)`, `INVALID`, `STOPPED (SIGTERM)`. */
export function verdictLabel(verdict: Verdict): string {
	switch (verdict.kind) {
		case 'APPROVE':
			return 'APPROVE';
		case 'FIX':
			return `FIX (${verdict.fixes.length})`;
		case 'INVALID':
			return 'INVALID';
		case 'STOPPED':
			return `STOPPED (${verdict.signal ?? 'signal'})`;
	}
}
