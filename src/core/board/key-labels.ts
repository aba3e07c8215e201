// How `?` help, the help bar and the status line write a key of the key table (keymap.ts), from the
// key's name: the names are what the table and the config file's `keys` hold, these are what a
// person reads (docs/board.md, "Keys").

/** Each named key as it is written on the board; a character is written as itself, `ctrl+x` as it is. */
const SHOWN: Readonly<Record<string, string>> = {
	up: '↑',
	down: '↓',
	right: '→',
	left: '←',
	pageup: 'PgUp',
	pagedown: 'PgDn',
	home: 'Home',
	end: 'End',
	return: 'enter',
	escape: 'esc',
	space: 'space',
	tab: 'tab',
	backspace: 'backspace',
};

/** A key as the board writes it: `↓`, `PgDn`, `enter`, `a`, `ctrl+c`. */
export function keyShown(name: string): string {
	return SHOWN[name] ?? name;
}

/** Whether a key name is one character (`a`, `G`, `/`), not a named key. */
export function isCharacterKey(name: string): boolean {
	return [...name].length === 1;
}

/** A binding's keys as the board writes them, characters first (`j` before `↓`), each once. */
export function keysShown(keys: readonly string[]): string[] {
	const ordered = [...keys.filter(isCharacterKey), ...keys.filter(name => !isCharacterKey(name))];
	return [...new Set(ordered.map(keyShown))];
}

/** Keys written together: `j/↓`; with `/` among them, spaces instead, so `/` stays one key (`/ f`). */
export function joinKeys(shown: readonly string[]): string {
	return shown.length > 1 && shown.includes('/') ? shown.join(' ') : shown.join('/');
}

/** A binding's keys in one word: `j/↓`, `g/Home`, `enter`. */
export function labelOf(keys: readonly string[]): string {
	return joinKeys(keysShown(keys));
}
