// zod/mini: snapshot and timeline load only the mini API (src/ledger/payload-schema.ts); the
// classic one would add about 20 ms to their start for one small object.
import * as z from 'zod/mini';
import {applyKeyRemaps} from './board/key-config.ts';
import {applyColors} from './board/palette.ts';
import {POLICY_TOKENS} from './contract/policy-values.ts';
import {parseDuration} from './duration.ts';
import {
	belowMinimum,
	builtInOf,
	envOf,
	EXPECTED,
	SETTING_KEYS,
	SETTINGS,
	settingFromText,
	type SettingKey,
	type SettingKind,
	type SettingValues,
} from './settings.ts';

/** A configuration problem, as one line that names the file or variable and the field. */
export class ConfigError extends Error {}

const duration = z.pipe(
	z.string().check(z.refine(text => parseDuration(text) !== null)),
	z.transform(text => parseDuration(text) ?? 0),
);

/** Each kind as the file holds it: JSON numbers, a duration as text, names as a list, true or false. */
const KIND_SCHEMAS = {
	count: z.number().check(z.int(), z.positive()),
	seconds: z.number().check(z.positive()),
	duration,
	names: z.array(z.string().check(z.trim(), z.minLength(1))).check(z.minLength(1)),
	onOff: z.boolean(),
	keys: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
	colors: z.record(z.string(), z.string()),
	requirements: z.array(z.string().check(z.refine(value => POLICY_TOKENS.includes(value)))),
	approvals: z.enum(['terminal', 'passkey']),
	collisions: z.record(z.string().check(z.refine(root => root === '*' || root.startsWith('/'))), z.enum(['hold', 'warn', 'off'])),
} as const satisfies Record<SettingKind, z.ZodMiniType>;

/** What a value of each kind looks like in the file, for the line that refuses one. */
const FILE_EXPECTED: Readonly<Record<SettingKind, string>> = {
	...EXPECTED,
	duration: 'a duration like "90m", "24h" or "7d"',
	names: 'a list of process names like ["claude", "codex"]',
	requirements: `a list of policy values like ["authority", "trace"] (${POLICY_TOKENS.join(', ')})`,
	approvals: '"terminal" or "passkey"',
};

type FileShape = {[K in SettingKey]: z.ZodMiniOptional<(typeof KIND_SCHEMAS)[(typeof SETTINGS)[K]['kind']]>};

/** The config file: one JSON object whose keys are settings (src/core/settings.ts), each optional; no other key. */
export const configFileSchema = z.strictObject(
	Object.fromEntries(SETTING_KEYS.map(key => [key, z.optional(KIND_SCHEMAS[SETTINGS[key].kind])])) as FileShape,
);

/** A config file read: where it is and the settings it sets. */
export type ConfigFile = {readonly path: string; readonly values: Partial<SettingValues>};

/** A JSON value in a message: short, whatever the file holds. */
function shown(value: unknown): string {
	const text = JSON.stringify(value) ?? String(value);
	return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function jsonKind(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return `a ${typeof value}`;
}

/** The edits (insert, delete, replace) that turn one word into another. */
function editDistance(from: string, to: string): number {
	let previous = Array.from({length: to.length + 1}, (_, index) => index);
	for (let row = 1; row <= from.length; row += 1) {
		const current = [row];
		for (let column = 1; column <= to.length; column += 1) {
			const cost = from[row - 1] === to[column - 1] ? 0 : 1;
			current.push(Math.min((previous[column] ?? 0) + 1, (current[column - 1] ?? 0) + 1, (previous[column - 1] ?? 0) + cost));
		}
		previous = current;
	}
	return previous[to.length] ?? 0;
}

/** The setting an unknown key most likely meant, if one is close: `stalSeconds` → `stallSeconds`. */
export function closestSetting(key: string): SettingKey | null {
	const lower = key.toLowerCase();
	let best: {key: SettingKey; distance: number} | null = null;
	for (const candidate of SETTING_KEYS) {
		const distance = editDistance(lower, candidate.toLowerCase());
		if (distance <= Math.max(2, Math.floor(candidate.length / 4)) && (best === null || distance < best.distance))
			best = {key: candidate, distance};
	}
	return best?.key ?? null;
}

/** JSON.parse's complaint in a line: its position as line and column, without its copy of the text. */
function describeJsonError(error: unknown, text: string): string {
	const message = (error instanceof Error ? error.message : String(error)).replace(/, ".*" is not valid JSON$/s, '');
	const position = message.match(/ at position (\d+)/);
	if (!position) return message;
	const before = text.slice(0, Number(position[1]));
	const line = before.split('\n').length;
	const column = before.length - before.lastIndexOf('\n');
	return `${message.replace(/ in JSON at position \d+.*$/, '')} at line ${line}, column ${column}`;
}

/** The first problem zod found, as `key: what is wrong`, and how many more there are. */
function describeIssues(issues: readonly z.core.$ZodIssue[], raw: Readonly<Record<string, unknown>>): string {
	const [first] = issues;
	const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
	if (first?.code === 'unrecognized_keys') {
		const key = first.keys[0] ?? '';
		const meant = closestSetting(key);
		return `${key}: not a setting${meant ? ` (did you mean ${meant}?)` : ''}; controlroom config lists them${more}`;
	}
	const key = String(first?.path[0] ?? '') as SettingKey;
	const kind = SETTINGS[key]?.kind;
	if (kind === undefined) return `${first?.message ?? 'not valid'}${more}`;
	return `${key}: expected ${FILE_EXPECTED[kind]}, got ${shown(raw[key])}${more}`;
}

/**
 * Reads a config file's text (already decoded) into its settings, or throws a ConfigError naming the
 * file and the field: not JSON, not an object, a key that is not a setting, a value of the wrong
 * kind. A file of only white space sets nothing.
 */
export function parseConfigText(path: string, text: string): ConfigFile {
	const where = `config ${path}`;
	if (text.trim() === '') return {path, values: {}};
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch (error) {
		throw new ConfigError(`${where}: not valid JSON: ${describeJsonError(error, text)}`);
	}
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
		throw new ConfigError(`${where}: expected a JSON object of settings like {"stallSeconds": 900}, got ${jsonKind(raw)}`);
	const parsed = configFileSchema.safeParse(raw);
	if (!parsed.success) throw new ConfigError(`${where}: ${describeIssues(parsed.error.issues, raw as Record<string, unknown>)}`);
	const values = parsed.data as Partial<SettingValues>;
	// The board's keys and colours are read as the board reads them: a name it does not know is refused
	// here, with the nearest. They are checked as JSON.parse gave them (the same shape, as the schema
	// passed): a "__proto__" there is an own name to refuse, where the schema's copy would drop it.
	const given = raw as Partial<SettingValues>;
	const keys = given.keys === undefined ? null : applyKeyRemaps(given.keys);
	if (keys !== null && 'problem' in keys) throw new ConfigError(`${where}: ${keys.problem}`);
	const colors = given.colors === undefined ? null : applyColors(given.colors);
	if (colors !== null && 'problem' in colors) throw new ConfigError(`${where}: ${colors.problem}`);
	return {path, values};
}

/** Where a setting's value came from, strongest first. */
export type SettingSource = 'flag' | 'environment' | 'file' | 'default';

/** A setting's value and where it came from; `origin` names the variable or the file. */
export type ResolvedSetting<K extends SettingKey> = {
	readonly value: SettingValues[K];
	readonly source: SettingSource;
	readonly origin: string | null;
};

/** What a setting is read from besides the command's own flag. */
export type SettingLayers = {
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly file: ConfigFile | null;
};

/**
 * A setting's value: the command's flag, else its environment variable (set and not empty), else
 * the config file, else the built-in default (docs/config.md). The one place that order is written.
 */
export function resolveSetting<K extends SettingKey>(
	key: K,
	flag: SettingValues[K] | undefined,
	layers: SettingLayers,
): ResolvedSetting<K> {
	if (flag !== undefined) return {value: flag, source: 'flag', origin: null};
	const {kind} = SETTINGS[key];
	const env = envOf(key);
	const text = env === undefined ? undefined : layers.env[env];
	if (env !== undefined && text !== undefined && text !== '') {
		const value = settingFromText(kind, text);
		if (value === null) throw new ConfigError(`${env}: expected ${EXPECTED[kind]}, got '${text}'`);
		const low = belowMinimum(key, value);
		if (low !== null) throw new ConfigError(`${env}: ${low}`);
		if (value !== undefined) return {value: value as SettingValues[K], source: 'environment', origin: env};
	}
	const fromFile = layers.file?.values[key];
	const low = belowMinimum(key, fromFile);
	if (low !== null) throw new ConfigError(`config ${layers.file?.path ?? ''}: ${key}: ${low}`);
	if (fromFile !== undefined) return {value: fromFile as SettingValues[K], source: 'file', origin: layers.file?.path ?? null};
	return {value: builtInOf(key), source: 'default', origin: null};
}

/** The values of the settings a command owns, from the flags it parsed (`undefined`: not given). */
export function resolveSettings<K extends SettingKey>(
	flags: {readonly [P in K]: SettingValues[P] | undefined},
	layers: SettingLayers,
): {readonly [P in K]: SettingValues[P]} {
	const keys = Object.keys(flags) as K[];
	return Object.fromEntries(keys.map(key => [key, resolveSetting(key, flags[key], layers).value])) as {
		readonly [P in K]: SettingValues[P];
	};
}
