/**
 * Text an agent wrote, put into a Markdown file as data (docs/handoffs.md, "Agent text is data"):
 * it can neither draw on a terminal that shows the file nor become structure in the file (a
 * heading, a list, a front-matter fence, an HTML comment that hides what follows, a link).
 */

// C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function visibleControl(character: string): string {
	const code = character.codePointAt(0) ?? 0;
	return code === 0x1b ? '\\e' : `\\u{${code.toString(16)}}`;
}

/** Control characters shown as visible escapes (`\e[31m` stays text). */
export function withoutControls(text: string): string {
	return text.replace(CONTROLS, visibleControl);
}

/** Characters Markdown reads as structure inside a line, each escaped with a backslash. */
const INLINE_MARKUP = /[\\`*_[\]<>|#!~]/g;

/**
 * One line of prose an agent wrote, safe inside a Markdown line: controls made visible, line
 * breaks shown as ` ⏎ ` (so no line of it starts a heading or a list), markup escaped.
 */
export function markdownLine(text: string): string {
	return withoutControls(text)
		.replace(/\r\n?|\n/g, ' ⏎ ')
		.replace(/\s+/g, ' ')
		.trim()
		.replace(INLINE_MARKUP, character => `\\${character}`);
}

/**
 * A command an agent ran, as an inline code span: fenced by one more backtick than its longest
 * run of backticks, one line (line breaks shown as ` ⏎ `), controls made visible.
 */
export function markdownCode(text: string): string {
	const line = withoutControls(text)
		.replace(/\r\n?|\n/g, ' ⏎ ')
		.trim();
	const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map(run => run.length));
	const fence = '`'.repeat(longest + 1);
	const pad = line.startsWith('`') || line.endsWith('`') || line === '' ? ' ' : '';
	return `${fence}${pad}${line}${pad}${fence}`;
}

/** The longest agent text quoted whole; more is cut, and the cut is said. */
export const MAX_QUOTED_CHARS = 2000;

/** `markdownLine`, cut to `max` characters (before escaping) with the cut said. */
export function markdownQuote(text: string, max: number = MAX_QUOTED_CHARS): string {
	const cut = text.length > max ? `${text.slice(0, max)} (cut: ${text.length} characters in all)` : text;
	return markdownLine(cut);
}
