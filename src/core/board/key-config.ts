import {nearestName} from '../did-you-mean.ts';
import {terminalSafe} from '../terminal-text.ts';
import {isCharacterKey, keyShown} from './key-labels.ts';
import {BOARD_MODES, BoardCommand, KEY_TABLE, type BoardMode, type KeyBinding} from './keymap.ts';

// The config file's `keys` (docs/config.md, "Keys and colours"): a board command's name and the keys
// that replace its own, `{"approve": "A", "down": ["down", "n"]}`. Every name is checked, each key
// must be one a terminal sends, and no key may come to mean two things where it did not before; the
// board then matches, helps and names keys from the table this makes (keymap.ts stays its source).

/** What the file's `keys` holds: a command's name, and a key or a list of keys. */
export type KeyRemaps = Readonly<Record<string, string | readonly string[]>>;

/** The name a command goes by in the file: the key table's own (`approve`, `sendBack`, `pageDown`). */
export type CommandName = keyof typeof BoardCommand;
export const COMMAND_NAMES = Object.keys(BoardCommand) as CommandName[];

/** The named keys the table knows (keyName in keymap.ts), besides one character and ctrl+LETTER. */
const NAMED_KEYS = [
	'up',
	'down',
	'left',
	'right',
	'pageup',
	'pagedown',
	'home',
	'end',
	'return',
	'escape',
	'space',
	'tab',
	'backspace',
] as const;

/** Other names people write for them: how help writes them (`enter`, `esc`, `PgDn`, `↓`) among them. */
const ALIASES: Readonly<Record<string, string>> = {
	enter: 'return',
	esc: 'escape',
	pgdn: 'pagedown',
	pgdown: 'pagedown',
	pgup: 'pageup',
	delete: 'backspace',
	'↑': 'up',
	'↓': 'down',
	'←': 'left',
	'→': 'right',
};

/** Control keys a terminal sends as bytes of another key: Ctrl-H is Backspace, Ctrl-I Tab, Ctrl-J and Ctrl-M Enter. */
const CTRL_TWINS: Readonly<Record<string, string>> = {h: 'backspace', i: 'tab', j: 'enter', m: 'enter'};

/** How the file best writes a named key: as help does for Enter and Esc, else the table's name. */
const FILE_NAME: Readonly<Record<string, string>> = {return: 'enter', escape: 'esc'};

const KEY_FORMS = `a key is one character (a, A, /), ctrl+LETTER, or one of ${NAMED_KEYS.map(name => FILE_NAME[name] ?? name).join(', ')}`;

/** Text from the file in a message: quoted, made safe for the terminal. */
const quoted = (text: string): string => `'${terminalSafe(text)}'`;

/** A key as the file writes it, as the table names it (`Enter` → `return`, `PgDn` → `pagedown`); or why it is none. */
export function keyNameOf(text: string): {readonly name: string} | {readonly problem: string} {
	const alias = ALIASES[text] ?? ALIASES[text.toLowerCase()];
	if (alias !== undefined) return {name: alias};
	if (text === ' ') return {name: 'space'};
	// One character a person types, as it is typed: `A` is shift+a.
	if (isCharacterKey(text) && !/\p{C}/u.test(text)) return {name: text};
	const lower = text.toLowerCase();
	if ((NAMED_KEYS as readonly string[]).includes(lower)) return {name: lower};
	const ctrl = lower.match(/^(?:ctrl|control|c)[+-](.)$/);
	if (ctrl?.[1] !== undefined && /[a-z]/.test(ctrl[1])) {
		const twin = CTRL_TWINS[ctrl[1]];
		if (twin !== undefined)
			return {problem: `${quoted(text)} reaches the board as ${twin} (a terminal sends the same byte): use ${twin}`};
		return {name: `ctrl+${ctrl[1]}`};
	}
	const shift = lower.match(/^shift[+-]([a-z])$/);
	if (shift?.[1] !== undefined) return {problem: `${quoted(text)} is written ${shift[1].toUpperCase()}`};
	const near = nearestName(text, [...NAMED_KEYS, ...Object.keys(ALIASES).filter(name => name.length > 1), 'ctrl+a']);
	const meant = near === null ? null : (ALIASES[near] ?? near);
	const said = meant === null ? '' : ` (did you mean ${FILE_NAME[meant] ?? meant}?)`;
	return {problem: `${quoted(text)} is not a key name${said}; ${KEY_FORMS}`};
}

/** How a mode is named in a message. */
const MODE_WORDS: Readonly<Record<BoardMode, string>> = {
	list: 'the lanes',
	queue: 'Needs you',
	effects: 'Held effects',
	timeline: 'a timeline',
	log: 'the log view',
	help: '? help',
	confirm: 'a question',
	input: 'a prompt',
	decisions: 'Decisions',
	question: 'a question shown whole',
};

const nameOf = (command: BoardCommand): CommandName =>
	COMMAND_NAMES.find(name => BoardCommand[name] === command) ?? (command as CommandName);

/** Each key that means two commands in a mode, as `mode key a b` (the table's order); one shared by one command is fine. */
function sharedKeys(table: readonly KeyBinding[]): Map<string, readonly [BoardMode, string, BoardCommand, BoardCommand]> {
	const shared = new Map<string, readonly [BoardMode, string, BoardCommand, BoardCommand]>();
	for (const mode of BOARD_MODES) {
		const first = new Map<string, BoardCommand>();
		for (const binding of table.filter(each => each.modes.includes(mode)))
			for (const key of binding.keys) {
				const before = first.get(key);
				if (before === undefined) first.set(key, binding.command);
				else if (before !== binding.command)
					shared.set(`${mode} ${key} ${before} ${binding.command}`, [mode, key, before, binding.command]);
			}
	}
	return shared;
}

/** The built-in table's shared keys (k in Needs you): meant, and kept when a remap leaves them as they are. */
const MEANT = sharedKeys(KEY_TABLE);

/** Reads one command's entry: its keys as the table names them, or what is wrong with it. */
function keysOfEntry(
	name: CommandName,
	value: string | readonly string[],
): {readonly keys: string[]} | {readonly problem: string} {
	const texts = typeof value === 'string' ? [value] : value;
	if (texts.length === 0) return {problem: `keys.${name}: no key given; every command keeps at least one`};
	const keys: string[] = [];
	for (const text of texts) {
		const read = keyNameOf(text);
		if ('problem' in read) return {problem: `keys.${name}: ${read.problem}`};
		if (!keys.includes(read.name)) keys.push(read.name);
	}
	const typed = keys.find(key => isCharacterKey(key) || key === 'space' || key === 'backspace');
	const binding = KEY_TABLE.find(each => each.command === BoardCommand[name]);
	if (typed !== undefined && binding?.modes.includes('input'))
		return {
			problem: `keys.${name}: ${quoted(typed)} would be typed into a prompt as text; give it enter, esc, tab or ctrl+LETTER`,
		};
	return {keys};
}

/**
 * The key table with the file's `keys` applied: each named command's keys replaced (every binding
 * of it: `x` sends back in Held effects and elsewhere), or the first thing wrong, as one line
 * naming the field (`keys.approve: 'F5' is not a key name ...`).
 */
export function applyKeyRemaps(remaps: KeyRemaps): {readonly table: readonly KeyBinding[]} | {readonly problem: string} {
	const replaced = new Map<BoardCommand, readonly string[]>();
	for (const [name, value] of Object.entries(remaps)) {
		if (!(COMMAND_NAMES as readonly string[]).includes(name)) {
			const near = nearestName(name, COMMAND_NAMES);
			return {
				problem: `keys: ${quoted(name)} is not a board command${near === null ? '' : ` (did you mean ${near}?)`}; docs/config.md lists them`,
			};
		}
		const read = keysOfEntry(name as CommandName, value);
		if ('problem' in read) return read;
		replaced.set(BoardCommand[name as CommandName], read.keys);
	}
	if (replaced.size === 0) return {table: KEY_TABLE};
	const table = KEY_TABLE.map(binding => {
		const keys = replaced.get(binding.command);
		return keys === undefined ? binding : {...binding, keys};
	});
	for (const [id, [mode, key, first, second]] of sharedKeys(table)) {
		if (MEANT.has(id)) continue;
		const [moved, other] = replaced.has(second) ? [second, first] : [first, second];
		return {
			problem: `keys.${nameOf(moved)}: ${keyShown(key)} is already ${nameOf(other)}'s key in ${MODE_WORDS[mode]}; move ${nameOf(other)} too, or pick another key`,
		};
	}
	return {table};
}
