import {nearestName} from '../did-you-mean.ts';
import {terminalSafe} from '../terminal-text.ts';
import {TONES, type Tone} from './tone.ts';

// The board's colours by tone (docs/config.md, "Keys and colours"): the view models carry tones,
// components/theme.ts draws each in its colour, and the config file's `colors` changes a tone's
// colour, checked here: a tone the board has, and a colour Ink can draw.

/** Each tone's colour unless the config file says otherwise. */
export const DEFAULT_COLORS: Readonly<Record<Tone, string>> = {
	ok: 'green',
	warn: 'yellow',
	error: 'red',
	muted: 'gray',
	info: 'cyan',
	accent: 'magenta',
};

/** The colour names Ink's colour library knows (its foreground colours). */
const NAMED = [
	'black',
	'red',
	'green',
	'yellow',
	'blue',
	'magenta',
	'cyan',
	'white',
	'gray',
	'grey',
	'blackBright',
	'redBright',
	'greenBright',
	'yellowBright',
	'blueBright',
	'magentaBright',
	'cyanBright',
	'whiteBright',
] as const;

const COLOR_FORMS =
	'a colour is a name (red, green, yellow, blue, magenta, cyan, white, gray, black, or redBright and the like), #rrggbb, #rgb, rgb(R, G, B) or ansi256(N)';

/** A colour as Ink draws it (`Red` → `red`, `#FF8800` as it is), or why it is none. */
export function colorOf(text: string): {readonly color: string} | {readonly problem: string} {
	const named = NAMED.find(name => name.toLowerCase() === text.toLowerCase());
	if (named !== undefined) return {color: named};
	if (/^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(text)) return {color: text};
	const rgb = text.match(/^rgb\(\s?(\d{1,3}),\s?(\d{1,3}),\s?(\d{1,3})\s?\)$/);
	if (rgb && rgb.slice(1).every(part => Number(part) <= 255)) return {color: text};
	const ansi = text.match(/^ansi256\(\s?(\d{1,3})\s?\)$/);
	if (ansi && Number(ansi[1]) <= 255) return {color: text};
	const near = nearestName(text, NAMED);
	return {
		problem: `'${terminalSafe(text)}' is not a colour${near === null ? '' : ` (did you mean ${near}?)`}; ${COLOR_FORMS}`,
	};
}

/**
 * The tones' colours with the file's `colors` applied, or the first thing wrong, as one line
 * naming the field (`colors.warn: 'orang' is not a colour ...`).
 */
export function applyColors(
	colors: Readonly<Record<string, string>>,
): {readonly palette: Readonly<Record<Tone, string>>} | {readonly problem: string} {
	const palette: Record<Tone, string> = {...DEFAULT_COLORS};
	for (const [tone, text] of Object.entries(colors)) {
		if (!(TONES as readonly string[]).includes(tone)) {
			const near = nearestName(tone, TONES);
			return {
				problem: `colors: '${terminalSafe(tone)}' is not a tone${near === null ? '' : ` (did you mean ${near}?)`}; the tones are ${TONES.join(', ')}`,
			};
		}
		const read = colorOf(text);
		if ('problem' in read) return {problem: `colors.${tone}: ${read.problem}`};
		palette[tone as Tone] = read.color;
	}
	return {palette};
}
