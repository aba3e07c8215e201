import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {ConfigError, parseConfigText} from '../../src/core/config.ts';
import {applyKeyRemaps, COMMAND_NAMES, keyNameOf} from '../../src/core/board/key-config.ts';
import {BoardCommand, helpLines, KEY_TABLE, keyWordsOf, matchBinding, type KeyBinding} from '../../src/core/board/keymap.ts';
import {applyColors, colorOf, DEFAULT_COLORS} from '../../src/core/board/palette.ts';
import {TONES} from '../../src/core/board/tone.ts';

const PATH = '/home/ana/.config/controlroom/config.json';

function tableOf(remaps: Parameters<typeof applyKeyRemaps>[0]): readonly KeyBinding[] {
	const result = applyKeyRemaps(remaps);
	if ('problem' in result) throw new Error(result.problem);
	return result.table;
}

function problemOf(remaps: Parameters<typeof applyKeyRemaps>[0]): string {
	const result = applyKeyRemaps(remaps);
	if (!('problem' in result)) throw new Error(`accepted: ${JSON.stringify(remaps)}`);
	return result.problem;
}

function refusal(text: string): string {
	try {
		parseConfigText(PATH, text);
	} catch (error) {
		expect(error).toBeInstanceOf(ConfigError);
		return (error as Error).message;
	}
	throw new Error(`accepted: ${text}`);
}

describe('the config file’s keys', () => {
	it('leaves the key table as it is when nothing is remapped', () => {
		expect(tableOf({})).toBe(KEY_TABLE);
	});

	it('moves approve from a to A everywhere it is bound: matching, ? help and the words that name it follow', () => {
		const table = tableOf({approve: 'A'});
		for (const mode of ['list', 'effects', 'decisions', 'question'] as const) {
			expect(matchBinding('A', {}, mode, table)?.command).toBe(BoardCommand.approve);
			expect(matchBinding('a', {}, mode, table)).toBeUndefined();
		}
		const approveLine = helpLines(table).find(line => line.description.startsWith('approve held effects'));
		expect(approveLine?.keys).toBe('A');
		expect(helpLines(table).map(line => line.keys)).not.toContain('a');
		expect(keyWordsOf(table)[BoardCommand.approve]).toBe('A');
		// The built-in table is untouched.
		expect(keyWordsOf(KEY_TABLE)[BoardCommand.approve]).toBe('a');
	});

	it('takes a list of keys, and the names help writes (enter, esc, PgDn, ↓)', () => {
		const table = tableOf({down: ['down', 'J'], pageDown: 'PgDn', back: 'Esc', stop: 'ctrl+s'});
		expect(matchBinding('J', {}, 'list', table)?.command).toBe(BoardCommand.down);
		expect(matchBinding('', {downArrow: true}, 'list', table)?.command).toBe(BoardCommand.down);
		expect(matchBinding('j', {}, 'list', table)).toBeUndefined();
		expect(matchBinding('s', {ctrl: true}, 'list', table)?.command).toBe(BoardCommand.stop);
		expect(keyNameOf('↓')).toEqual({name: 'down'});
		expect(keyNameOf('Enter')).toEqual({name: 'return'});
		expect(keyNameOf(' ')).toEqual({name: 'space'});
	});

	it('refuses a command it does not know, naming the nearest', () => {
		expect(problemOf({aprove: 'A'})).toBe(
			"keys: 'aprove' is not a board command (did you mean approve?); docs/config.md lists them",
		);
		expect(problemOf({zzzzzz: 'A'})).toBe("keys: 'zzzzzz' is not a board command; docs/config.md lists them");
	});

	it('refuses a key name it does not know, naming the nearest, and says what a key is', () => {
		expect(problemOf({approve: 'entr'})).toMatch(
			/^keys\.approve: 'entr' is not a key name \(did you mean enter\?\); a key is one character/,
		);
		expect(problemOf({approve: 'F5'})).toMatch(/^keys\.approve: 'F5' is not a key name; a key is one character/);
		expect(problemOf({approve: 'shift+a'})).toBe("keys.approve: 'shift+a' is written A");
		expect(problemOf({approve: []})).toBe('keys.approve: no key given; every command keeps at least one');
	});

	it('refuses a control key a terminal cannot tell from another (ctrl+m is Enter)', () => {
		expect(problemOf({stop: 'ctrl+m'})).toBe(
			"keys.stop: 'ctrl+m' reaches the board as enter (a terminal sends the same byte): use enter",
		);
	});

	it('refuses a key that would then mean two things in one place, naming both', () => {
		expect(problemOf({approve: 's'})).toBe(
			"keys.approve: s is already stop's key in the lanes; move stop too, or pick another key",
		);
		// Moving both is fine.
		const table = tableOf({approve: 's', stop: 'Z'});
		expect(matchBinding('s', {}, 'list', table)?.command).toBe(BoardCommand.approve);
		expect(matchBinding('Z', {}, 'list', table)?.command).toBe(BoardCommand.stop);
	});

	it('refuses a letter for a key that works in a prompt, where it would be typed as text', () => {
		expect(problemOf({submit: 'e'})).toBe(
			"keys.submit: 'e' would be typed into a prompt as text; give it enter, esc, tab or ctrl+LETTER",
		);
	});

	it('names every command the table has in docs/config.md, with its built-in keys', () => {
		const docs = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');
		for (const name of COMMAND_NAMES) {
			const keys = [
				...new Set(KEY_TABLE.filter(binding => binding.command === BoardCommand[name]).flatMap(binding => binding.keys)),
			];
			expect(docs).toContain(`| \`${name}\` | ${keys.map(key => `\`${key}\``).join(' ')} |`);
		}
	});

	it('names every command the table has, and escapes what the file wrote', () => {
		expect(new Set(COMMAND_NAMES.map(name => BoardCommand[name]))).toEqual(new Set(KEY_TABLE.map(binding => binding.command)));
		expect(problemOf({'\u001B[31mred': 'A'})).not.toContain('\u001B');
	});
});

describe('the config file’s colours', () => {
	it('draws each tone in its default colour unless the file says otherwise', () => {
		expect(applyColors({})).toEqual({palette: DEFAULT_COLORS});
		expect(applyColors({warn: '#ff8800', ok: 'Blue'})).toEqual({palette: {...DEFAULT_COLORS, warn: '#ff8800', ok: 'blue'}});
		expect(Object.keys(DEFAULT_COLORS).sort()).toEqual([...TONES].sort());
	});

	it('takes the forms Ink draws: names, #rgb, rgb() and ansi256()', () => {
		for (const text of ['#f80', '#FF8800', 'rgb(255, 136, 0)', 'ansi256(208)', 'redBright', 'grey'])
			expect(colorOf(text)).not.toHaveProperty('problem');
		for (const text of ['#ff880', 'rgb(256, 0, 0)', 'ansi256(300)', '']) expect(colorOf(text)).toHaveProperty('problem');
	});

	it('refuses a colour or a tone it does not know, naming the nearest', () => {
		expect(applyColors({warn: 'orang'})).toEqual({
			problem: expect.stringMatching(/^colors\.warn: 'orang' is not a colour.*; a colour is a name/),
		});
		expect(applyColors({warn: 'yelow'})).toEqual({
			problem: expect.stringMatching(/^colors\.warn: 'yelow' is not a colour \(did you mean yellow\?\); /),
		});
		expect(applyColors({wran: 'red'})).toEqual({
			problem: "colors: 'wran' is not a tone (did you mean warn?); the tones are ok, warn, error, muted, info, accent",
		});
	});
});

describe('keys and colours in the config file', () => {
	it('are read with the other settings', () => {
		const {values} = parseConfigText(PATH, JSON.stringify({keys: {approve: 'A'}, colors: {warn: '#ff8800'}}));
		expect(values).toEqual({keys: {approve: 'A'}, colors: {warn: '#ff8800'}});
	});

	it('refuse an unknown name in one line naming the file and the nearest name', () => {
		expect(refusal(JSON.stringify({keys: {aprove: 'A'}}))).toBe(
			`config ${PATH}: keys: 'aprove' is not a board command (did you mean approve?); docs/config.md lists them`,
		);
		expect(refusal(JSON.stringify({colors: {warn: 'yelow'}}))).toMatch(
			new RegExp(`^config ${PATH}: colors\\.warn: 'yelow' is not a colour \\(did you mean yellow\\?\\); `),
		);
		expect(refusal(JSON.stringify({keys: {approve: 7}}))).toMatch(/^config .*: keys/);
		// JSON.parse makes "__proto__" an own key: refused as any unknown name, Object.prototype untouched.
		expect(refusal('{"keys": {"__proto__": "A"}}')).toMatch(/keys: '__proto__' is not a board command/);
		expect(refusal('{"colors": {"__proto__": "red"}}')).toMatch(/colors: '__proto__' is not a tone/);
		expect(({} as Record<string, unknown>)['approve']).toBeUndefined();
	});
});
