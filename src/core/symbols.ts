import {cellWidth} from './cell-width.ts';

// The symbols controlroom draws, each with the ASCII character it becomes where the terminal cannot
// draw it: a C or POSIX locale (LANG=C, LC_ALL=C), a locale of another charset, or TERM=dumb. One
// table, for the board and every printed text alike (docs/snapshot.md, "Symbols on an ASCII terminal"). Each ASCII form
// takes the one cell its symbol takes, so columns laid out for one stay in place for the other.

/** Each symbol controlroom draws, with what it means, and its one-cell ASCII form. */
export const SYMBOLS = {
	unseen: {unicode: '●', ascii: '*'},
	bullet: {unicode: '•', ascii: '*'},
	separator: {unicode: '·', ascii: '|'},
	cut: {unicode: '…', ascii: '~'},
	dash: {unicode: '—', ascii: '-'},
	enDash: {unicode: '–', ascii: '-'},
	minus: {unicode: '−', ascii: '-'},
	cursor: {unicode: '›', ascii: '>'},
	folded: {unicode: '▸', ascii: '>'},
	opened: {unicode: '▾', ascii: 'v'},
	play: {unicode: '▶', ascii: '>'},
	helper: {unicode: '└', ascii: '`'},
	nested: {unicode: '⎿', ascii: '`'},
	then: {unicode: '↳', ascii: '`'},
	right: {unicode: '→', ascii: '>'},
	left: {unicode: '←', ascii: '<'},
	up: {unicode: '↑', ascii: '^'},
	down: {unicode: '↓', ascii: 'v'},
	upDown: {unicode: '↕', ascii: '|'},
	barFull: {unicode: '█', ascii: '#'},
	barEmpty: {unicode: '░', ascii: '.'},
	times: {unicode: '×', ascii: 'x'},
	notEqual: {unicode: '≠', ascii: '#'},
	warning: {unicode: '⚠', ascii: '!'},
	heart: {unicode: '♥', ascii: '<'},
	openQuote: {unicode: '“', ascii: '"'},
	closeQuote: {unicode: '”', ascii: '"'},
	apostrophe: {unicode: '’', ascii: "'"},
	euro: {unicode: '€', ascii: 'E'},
} as const;

export type SymbolName = keyof typeof SYMBOLS;
/** Which form a terminal gets. */
export type SymbolSet = 'unicode' | 'ascii';

/**
 * Which symbols the terminal can draw, from its environment: ASCII for TERM=dumb, and for a locale
 * (the first of LC_ALL, LC_CTYPE, LANG that is set, as the C library reads them) whose charset is
 * not UTF-8: `C`, `POSIX`, `en_US.ISO-8859-1`. With none set, Unicode: the terminals people use
 * draw it, and a container's shell, which sets none, is most often read through one of them.
 */
export function symbolSetFor(env: Readonly<Record<string, string | undefined>>): SymbolSet {
	if (env['TERM'] === 'dumb') return 'ascii';
	const locale = [env['LC_ALL'], env['LC_CTYPE'], env['LANG']].find(value => value !== undefined && value !== '');
	if (locale === undefined) return 'unicode';
	return /utf-?8/i.test(locale) ? 'unicode' : 'ascii';
}

/** Every symbol in one set's form: `symbols('ascii').unseen` is `*`. */
export function symbols(set: SymbolSet): Readonly<Record<SymbolName, string>> {
	return Object.fromEntries(Object.entries(SYMBOLS).map(([name, forms]) => [name, forms[set]])) as Record<SymbolName, string>;
}

const ASCII_OF: ReadonlyMap<string, string> = new Map(Object.values(SYMBOLS).map(forms => [forms.unicode, forms.ascii]));
const segmenter = new Intl.Segmenter();

/**
 * Text as an ASCII terminal can show it, cell for cell: each symbol of the table becomes its ASCII
 * form, any other character outside ASCII (an agent's title in Japanese, an emoji) a `?` for each
 * cell it took (none for a combining mark), so the columns after it do not move.
 */
export function asciiText(text: string): string {
	// eslint-disable-next-line no-control-regex -- the test is for characters outside ASCII
	if (/^[\x00-\x7f]*$/.test(text)) return text;
	let result = '';
	for (const {segment} of segmenter.segment(text)) {
		// eslint-disable-next-line no-control-regex -- as above
		if (/^[\x00-\x7f]+$/.test(segment)) result += segment;
		else result += ASCII_OF.get(segment) ?? '?'.repeat(cellWidth(segment));
	}
	return result;
}

/**
 * JSON text with every character outside ASCII written as `\uXXXX`: the same JSON to a parser
 * (outside strings JSON has none), and bytes an ASCII terminal or log shows as they are.
 */
export function asciiJson(json: string): string {
	return json.replace(/[\u0080-\uffff]/g, char => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
