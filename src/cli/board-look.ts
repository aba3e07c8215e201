import {applyKeyRemaps} from '../core/board/key-config.ts';
import type {KeyBinding} from '../core/board/keymap.ts';
import {applyColors} from '../core/board/palette.ts';
import type {Tone} from '../core/board/tone.ts';
import {CONFIG_EXIT, commandSettings} from './config-file.ts';
import {CliError} from './errors.ts';

// Its own module: the demo checks the keys and colours before its agents start, and loads the
// board's modules only while they do.

/** The board's keys and colours: the config file's `keys` and `colors` applied (docs/config.md, "Keys and colours"). */
export type BoardLook = {readonly keyTable: readonly KeyBinding[]; readonly palette: Readonly<Record<Tone, string>>};

/**
 * The keys and colours in force, read before the board takes the screen: a wrong name is one line
 * and exit 78 on the shell's screen (the file's check refuses it with its nearest name).
 */
export function boardLook(): BoardLook {
	const {keys, colors} = commandSettings({keys: undefined, colors: undefined});
	const table = applyKeyRemaps(keys);
	if ('problem' in table) throw new CliError(`config: ${table.problem}`, CONFIG_EXIT);
	const palette = applyColors(colors);
	if ('problem' in palette) throw new CliError(`config: ${palette.problem}`, CONFIG_EXIT);
	return {keyTable: table.table, palette: palette.palette};
}
