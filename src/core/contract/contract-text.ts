// A contract's text as a tool call gives it (docs/serve.md): no file, no extension, written by a
// chat or an agent. Pure: what it is (Markdown or YAML), what makes it unreadable.

/** The marker a writer puts on a value it guessed, as a tool's description says it (docs/serve.md, "Guesses"; read by src/core/contract/markers.ts). */
export const GUESS_MARKER = '(guess)';

/**
 * Characters no contract holds: NUL, the C0 controls but tab, line feed and carriage return, DEL
 * and the C1 controls (ESC starts a terminal's escape codes; CSI and OSC have C1 forms too).
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** Half of a UTF-16 pair alone: text that was not valid Unicode before it was JSON. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What makes a text unreadable as a contract, in one line naming where; null when it is text. */
export function textProblem(field: string, text: string): string | null {
	const control = CONTROL.exec(text);
	if (control !== null) {
		const line = text.slice(0, control.index).split('\n').length;
		const code = control[0].codePointAt(0) ?? 0;
		const what = code === 0 ? 'a NUL byte' : code === 0x1b ? 'an escape code (ESC)' : 'a control character';
		return `${field}: holds ${what} (U+${code.toString(16).toUpperCase().padStart(4, '0')}) on line ${line}; a contract is plain text`;
	}
	if (LONE_SURROGATE.test(text)) return `${field}: is not valid Unicode text`;
	return null;
}

/**
 * The form a contract's text is in: Markdown when it opens with front matter that closes, or has a
 * section heading (`## Goal`, any level from two); otherwise YAML, whose `# comments` are single
 * hashes and whose documents may open with `---` but never close it with another.
 */
export function formatOfText(text: string): 'markdown' | 'yaml' {
	const lines = text.replace(/\r\n/g, '\n').split('\n');
	if (lines[0]?.trim() === '---' && lines.slice(1).some(line => line.trim() === '---')) return 'markdown';
	return lines.some(line => /^#{2,6}\s+\S/.test(line)) ? 'markdown' : 'yaml';
}

/**
 * The first value (or key) of a parsed contract that is not plain text, as textProblem says it,
 * with its field path; null when none is. The text itself may be clean and its values not: YAML's
 * `"\u001b"` and `"\x00"` escapes are decoded when it is read.
 */
export function valueProblem(document: unknown, path = ''): string | null {
	if (typeof document === 'string') return textProblem(path || '(document)', document)?.replace(/ on line \d+/, '') ?? null;
	if (Array.isArray(document)) {
		for (const [index, item] of document.entries()) {
			const problem = valueProblem(item, `${path}[${index}]`);
			if (problem !== null) return problem;
		}
		return null;
	}
	if (document === null || typeof document !== 'object') return null;
	for (const [key, value] of Object.entries(document)) {
		const at = path === '' ? key : `${path}.${key}`;
		const problem = valueProblem(key, at) ?? valueProblem(value, at);
		if (problem !== null) return problem;
	}
	return null;
}
