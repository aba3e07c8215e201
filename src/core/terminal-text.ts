// Text the ledger holds came from agents, prompts and payloads: anyone can put an escape sequence
// in it. A terminal interprets such bytes (a window title, a cleared screen, colours, the clipboard
// through OSC 52), so every ledger text goes through here before it reaches one.

/**
 * What a terminal may act on: C0 controls and DEL, C1 controls (8-bit CSI, OSC…), the bidi
 * controls that reorder what is shown (Trojan Source), the line and paragraph separators, and lone
 * surrogates (not a character at all).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is this module's purpose
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|\p{Cs}/gu;
const UNSAFE_ONE = new RegExp(UNSAFE.source, 'u');

const NAMED: Readonly<Record<string, string>> = {
	'\n': '\\n',
	'\r': '\\r',
	'\t': '\\t',
	'\u001b': '\\e',
	'\u0007': '\\a',
	'\b': '\\b',
};

function escapeOne(char: string): string {
	const named = NAMED[char];
	if (named) return named;
	const code = char.codePointAt(0) ?? 0;
	return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * Shows `text` safely on a terminal: every control character and escape introducer becomes visible
 * escaped text (`\e]0;evil\a`, `\n`, `\x9b`, `\u{202e}`), so nothing is interpreted and one value
 * stays on one line. Everything else, including other Unicode, is left as it is.
 */
export function terminalSafe(text: string): string {
	return UNSAFE_ONE.test(text) ? text.replace(UNSAFE, escapeOne) : text;
}

/** JSON's own escapes cover C0; these it leaves raw, and a terminal may still act on them. */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * JSON for a terminal: exactly `JSON.stringify`'s data (a parser reads back the same values), with
 * the characters JSON leaves raw that a terminal acts on written as `\uXXXX` escapes.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
	const json = JSON.stringify(value, null, indent);
	return json.replace(JSON_UNSAFE, char => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
