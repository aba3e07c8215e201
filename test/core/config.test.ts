import {describe, expect, it} from 'vitest';
import {
	closestSetting,
	ConfigError,
	parseConfigText,
	resolveSetting,
	resolveSettings,
	type ConfigFile,
} from '../../src/core/config.ts';
import {
	builtInOf,
	envOf,
	SETTING_KEYS,
	SETTINGS,
	settingInFile,
	type SettingKey,
	type SettingValues,
} from '../../src/core/settings.ts';

const PATH = '/home/ana/.config/controlroom/config.json';

function refusal(text: string): string {
	try {
		parseConfigText(PATH, text);
	} catch (error) {
		expect(error).toBeInstanceOf(ConfigError);
		return (error as Error).message;
	}
	throw new Error(`accepted: ${text}`);
}

/** A value of each kind other than its built-in default, as the file writes it and as it reads. */
const SAMPLES: Record<string, {file: unknown; value: unknown; text: string}> = {
	count: {file: 7, value: 7, text: '7'},
	seconds: {file: 2.5, value: 2.5, text: '2.5'},
	duration: {file: '90m', value: 90 * 60_000, text: '90m'},
	names: {file: ['aider', 'goose'], value: ['aider', 'goose'], text: 'aider, goose'},
	onOff: {file: false, value: false, text: 'false'},
	// Objects live in the file only: no variable sets them (text is never read).
	keys: {file: {approve: 'A'}, value: {approve: 'A'}, text: ''},
	colors: {file: {warn: '#ff8800'}, value: {warn: '#ff8800'}, text: ''},
	collisions: {file: {'*': 'hold', '/src/app': 'warn'}, value: {'*': 'hold', '/src/app': 'warn'}, text: ''},
	approvals: {file: 'passkey', value: 'passkey', text: 'passkey'},
	requirements: {
		file: ['authority', 'trace:exception'],
		value: ['authority', 'trace:exception'],
		text: 'authority, trace:exception',
	},
};

function sample(key: SettingKey): {file: unknown; value: unknown; text: string} {
	return SAMPLES[SETTINGS[key].kind]!;
}

describe('the config file schema', () => {
	it('reads every setting from the file, each in its unit (a duration as text, names as a list)', () => {
		const file = Object.fromEntries(SETTING_KEYS.map(key => [key, sample(key).file]));
		const {values} = parseConfigText(PATH, JSON.stringify(file));
		expect(values).toEqual(Object.fromEntries(SETTING_KEYS.map(key => [key, sample(key).value])));
	});

	it('reads back every built-in default as `controlroom config` writes it', () => {
		const file = Object.fromEntries(SETTING_KEYS.map(key => [key, settingInFile(SETTINGS[key].kind, builtInOf(key))]));
		expect(file['endedWindow']).toBe('24h');
		const {values} = parseConfigText(PATH, JSON.stringify(file));
		expect(values).toEqual(Object.fromEntries(SETTING_KEYS.map(key => [key, builtInOf(key)])));
	});

	it('writes a duration in its largest whole unit, a day as 24h', () => {
		const shown = (text: string) =>
			settingInFile('duration', parseConfigText(PATH, JSON.stringify({endedWindow: text})).values.endedWindow!);
		expect(['24h', '7d', '36h', '90m', '45s', '1.5', '2w', '0'].map(shown)).toEqual([
			'24h',
			'7d',
			'36h',
			'90m',
			'45s',
			'1.5s',
			'14d',
			'0s',
		]);
	});

	it('trims process names, and refuses a blank one', () => {
		expect(parseConfigText(PATH, '{"agentNames": [" aider ", "goose"]}').values.agentNames).toEqual(['aider', 'goose']);
		expect(refusal('{"agentNames": ["aider", " "]}')).toMatch(/agentNames: expected a list of process names/);
	});

	it('takes an empty file, or one of white space, as setting nothing', () => {
		expect(parseConfigText(PATH, '')).toEqual({path: PATH, values: {}});
		expect(parseConfigText(PATH, ' \n\t\n')).toEqual({path: PATH, values: {}});
		expect(parseConfigText(PATH, '{}')).toEqual({path: PATH, values: {}});
	});

	it('refuses a value of the wrong kind in one line naming the file, the key and what it should be', () => {
		expect(refusal('{"stallSeconds": "600"}')).toBe(`config ${PATH}: stallSeconds: expected a positive whole number, got "600"`);
		expect(refusal('{"stallSeconds": 0}')).toBe(`config ${PATH}: stallSeconds: expected a positive whole number, got 0`);
		expect(refusal('{"stallSeconds": 1.5}')).toBe(`config ${PATH}: stallSeconds: expected a positive whole number, got 1.5`);
		expect(refusal('{"reconcileIntervalSeconds": -1}')).toBe(
			`config ${PATH}: reconcileIntervalSeconds: expected a positive number of seconds, got -1`,
		);
		expect(refusal('{"endedWindow": "soon"}')).toBe(
			`config ${PATH}: endedWindow: expected a duration like "90m", "24h" or "7d", got "soon"`,
		);
		expect(refusal('{"endedWindow": 3600}')).toBe(
			`config ${PATH}: endedWindow: expected a duration like "90m", "24h" or "7d", got 3600`,
		);
		expect(refusal('{"agentNames": []}')).toBe(
			`config ${PATH}: agentNames: expected a list of process names like ["claude", "codex"], got []`,
		);
		expect(refusal('{"agentNames": "claude,codex"}')).toMatch(/agentNames: expected a list of process names/);
		expect(refusal('{"bell": "no"}')).toBe(`config ${PATH}: bell: expected true or false, got "no"`);
		expect(refusal('{"slots": null}')).toBe(`config ${PATH}: slots: expected a positive whole number, got null`);
	});

	it('names an unknown key, with the setting it most likely meant', () => {
		expect(refusal('{"stalSeconds": 900}')).toBe(
			`config ${PATH}: stalSeconds: not a setting (did you mean stallSeconds?); controlroom config lists them`,
		);
		expect(refusal('{"StallSeconds": 900}')).toMatch(/StallSeconds: not a setting \(did you mean stallSeconds\?\)/);
		expect(refusal('{"colour": "red"}')).toBe(
			`config ${PATH}: colour: not a setting (did you mean colors?); controlroom config lists them`,
		);
		expect(refusal('{"theme": "dark"}')).toBe(`config ${PATH}: theme: not a setting; controlroom config lists them`);
		// JSON.parse makes "__proto__" an own key: refused like any other, and Object.prototype is untouched.
		expect(refusal('{"__proto__": {"polluted": 1}}')).toMatch(/__proto__: not a setting/);
		expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
	});

	it('says how many more problems there are after the first', () => {
		expect(refusal('{"stallSeconds": "x", "slots": 0, "bell": 1}')).toBe(
			`config ${PATH}: stallSeconds: expected a positive whole number, got "x" (and 2 more problems)`,
		);
	});

	it('refuses text that is not JSON, or not an object, saying where', () => {
		expect(refusal('{"stallSeconds": 900,}')).toBe(
			`config ${PATH}: not valid JSON: Expected double-quoted property name at line 1, column 22`,
		);
		expect(refusal('{\n  "stallSeconds": 900\n  "slots": 3\n}')).toBe(
			`config ${PATH}: not valid JSON: Expected ',' or '}' after property value at line 3, column 3`,
		);
		// V8's message quotes the text; the line does not repeat the file.
		expect(refusal('{"a": }')).toBe(`config ${PATH}: not valid JSON: Unexpected token '}'`);
		expect(refusal('# a comment\n{}')).toMatch(/^config \S+: not valid JSON: /);
		expect(refusal('[]')).toBe(`config ${PATH}: expected a JSON object of settings like {"stallSeconds": 900}, got a list`);
		expect(refusal('null')).toMatch(/got null$/);
		expect(refusal('"stallSeconds"')).toMatch(/got a string$/);
	});

	it('keeps a long wrong value short in the line', () => {
		const message = refusal(JSON.stringify({endedWindow: 'x'.repeat(5000)}));
		expect(message.length).toBeLessThan(200);
		expect(message).toMatch(/got "x+\.\.\.$/);
	});

	it('suggests only keys that are close', () => {
		expect(closestSetting('slot')).toBe('slots');
		expect(closestSetting('budget')).toBeNull();
		expect(closestSetting('heartbeatSecond')).toBe('heartbeatSeconds');
	});
});

describe('the order of precedence: flag, environment, file, built-in default', () => {
	const file = (values: Partial<SettingValues>): ConfigFile => ({path: PATH, values});

	it.each(SETTING_KEYS)('applies the same order to %s', key => {
		const spec = {env: envOf(key)};
		const {value, text} = sample(key);
		const flag = value as SettingValues[typeof key];
		const fromFile = file({[key]: value});
		const env = spec.env === undefined ? {} : {[spec.env]: text};
		// Nothing set: the built-in default.
		expect(resolveSetting(key, undefined, {env: {}, file: null})).toEqual({
			value: builtInOf(key),
			source: 'default',
			origin: null,
		});
		// The file over the default.
		expect(resolveSetting(key, undefined, {env: {}, file: fromFile})).toEqual({value, source: 'file', origin: PATH});
		// The environment over the file, where the setting has a variable.
		const other = file({[key]: builtInOf(key)});
		if (spec.env !== undefined)
			expect(resolveSetting(key, undefined, {env, file: other})).toEqual({value, source: 'environment', origin: spec.env});
		// The flag over everything.
		const otherEnv = spec.env === undefined ? {} : {[spec.env]: String(builtInOf(key))};
		expect(resolveSetting(key, flag, {env: otherEnv, file: other})).toEqual({value, source: 'flag', origin: null});
	});

	it('reads each variable only for its own setting: CONTROLROOM_SLOTS sets no stall threshold', () => {
		expect(resolveSetting('stallSeconds', undefined, {env: {CONTROLROOM_SLOTS: '5'}, file: null}).value).toBe(600);
		expect(resolveSetting('stallSeconds', undefined, {env: {CONTROLROOM_STALL_SECONDS: '20'}, file: null})).toMatchObject({
			value: 20,
			source: 'environment',
		});
	});

	it('takes an empty variable, or a names list with no name, as not set', () => {
		const layers = {file: file({slots: 4, agentNames: ['aider']})};
		expect(resolveSetting('slots', undefined, {...layers, env: {CONTROLROOM_SLOTS: ''}})).toMatchObject({
			value: 4,
			source: 'file',
		});
		expect(resolveSetting('agentNames', undefined, {...layers, env: {CONTROLROOM_AGENT_NAMES: ' , '}})).toMatchObject({
			value: ['aider'],
			source: 'file',
		});
	});

	it('refuses a bad variable naming it, but only when it would be used', () => {
		const env = {CONTROLROOM_SLOTS: 'many', CONTROLROOM_HEARTBEAT_SECONDS: '0'};
		expect(() => resolveSetting('slots', undefined, {env, file: null})).toThrow(
			new ConfigError("CONTROLROOM_SLOTS: expected a positive whole number, got 'many'"),
		);
		expect(() => resolveSetting('heartbeatSeconds', undefined, {env, file: null})).toThrow(
			"CONTROLROOM_HEARTBEAT_SECONDS: expected a positive number of seconds, got '0'",
		);
		// A flag wins without the variable being read.
		expect(resolveSetting('slots', 3, {env, file: null}).value).toBe(3);
	});

	it('resolves the settings a command names, and only those', () => {
		const layers = {env: {CONTROLROOM_SLOTS: 'many'}, file: file({stallSeconds: 900})};
		expect(resolveSettings({stallSeconds: undefined, bell: false}, layers)).toEqual({stallSeconds: 900, bell: false});
	});
});
