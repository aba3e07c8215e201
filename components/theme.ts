import {createContext, useContext} from 'react';
import {DEFAULT_COLORS} from '../src/core/board/palette.ts';
import type {Tone} from '../src/core/board/tone.ts';

/**
 * The board's colours: one per named tone, so meaning never depends on a colour picked in a
 * component. The config file's `colors` changes a tone's colour (src/core/board/palette.ts); the
 * board provides what it read, and without a provider (a test) each tone has its default.
 */
export const ThemeContext = createContext<Readonly<Record<Tone, string>>>(DEFAULT_COLORS);

/** The colour of each tone in force. */
export function useToneColor(): (tone: Tone) => string {
	const palette = useContext(ThemeContext);
	return tone => palette[tone];
}
