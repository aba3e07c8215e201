import type {Tone} from '../src/core/board/tone.ts';

/** The board's colours: one per named tone, so meaning never depends on a colour picked in a component. */
export const THEME: Readonly<Record<Tone, string>> = {
	ok: 'green',
	warn: 'yellow',
	error: 'red',
	muted: 'gray',
	info: 'cyan',
	accent: 'magenta',
};

/** The colour of a tone. */
export function toneColor(tone: Tone): string {
	return THEME[tone];
}
