import {closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, type Stats} from 'node:fs';
import {homedir} from 'node:os';
import {isAbsolute, join, resolve} from 'node:path';
import {
	ConfigError,
	parseConfigText,
	resolveSetting,
	resolveSettings,
	type ConfigFile,
	type ResolvedSetting,
} from '../core/config.ts';
import {SETTING_KEYS, type SettingKey, type SettingValues} from '../core/settings.ts';
import {CliError} from './errors.ts';

/** Exit code for a config file or a CONTROLROOM_* variable that is wrong (EX_CONFIG; docs/config.md). */
export const CONFIG_EXIT = 78;

/** A config file is a few hundred bytes; anything past this is not one (and is not read into memory). */
export const MAX_CONFIG_BYTES = 64 * 1024;

/**
 * Where the config file is: `$CONTROLROOM_CONFIG` when set and not empty, else
 * `$XDG_CONFIG_HOME/controlroom/config.json` (an XDG_CONFIG_HOME that is not absolute is ignored, as
 * the XDG spec says), else `~/.config/controlroom/config.json`.
 */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
	const named = env['CONTROLROOM_CONFIG'];
	if (named) return resolve(named);
	const xdg = env['XDG_CONFIG_HOME'];
	return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), 'controlroom', 'config.json');
}

function kindOf(stat: Stats): string {
	if (stat.isDirectory()) return 'a folder';
	if (stat.isFIFO()) return 'a FIFO';
	if (stat.isSocket()) return 'a socket';
	if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
	return 'not a regular file';
}

/** Why the file could not be opened, in a line; null when there is simply no file (nor a link) there. */
function openProblem(path: string, error: NodeJS.ErrnoException): string | null {
	if (error.code === 'ENOENT') {
		try {
			if (lstatSync(path).isSymbolicLink()) return `a link to ${readlinkSync(path)}, which does not exist`;
		} catch {
			// Nothing at the path at all: no config file, which is fine.
		}
		return null;
	}
	if (error.code === 'ELOOP') return 'a loop of links';
	if (error.code === 'ENOTDIR') return 'part of the path is a file, not a folder';
	if (error.code === 'EACCES' || error.code === 'EPERM') return 'cannot be read (permission denied)';
	return `cannot be opened (${error.code ?? error.message})`;
}

/** Reads at most `limit` + 1 bytes, so a file that grows, or claims a size of 0, is still bounded. */
function readBounded(fd: number, limit: number): Buffer {
	const buffer = Buffer.alloc(limit + 1);
	let length = 0;
	for (;;) {
		const read = readSync(fd, buffer, length, buffer.length - length, null);
		if (read === 0 || length + read >= buffer.length) return buffer.subarray(0, length + read);
		length += read;
	}
}

/**
 * Reads a small text file an owner wrote (the config file, the price file): null when there is none.
 * The file is opened without blocking (a FIFO never waits for a writer), then checked on the open
 * descriptor to be a regular file (a link to one is followed) of at most `limit` bytes of UTF-8;
 * otherwise a ConfigError names it (`what PATH: problem`).
 */
export function readSmallTextFile(path: string, what: string, limit = MAX_CONFIG_BYTES): string | null {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
	} catch (error) {
		const problem = openProblem(path, error as NodeJS.ErrnoException);
		if (problem === null) return null;
		throw new ConfigError(`${what} ${path}: ${problem}`);
	}
	let bytes: Buffer;
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) throw new ConfigError(`${what} ${path}: ${kindOf(stat)}, not a file`);
		if (stat.size > limit) throw new ConfigError(`${what} ${path}: ${stat.size} bytes; a ${what} file is at most ${limit} bytes`);
		bytes = readBounded(fd, limit);
		if (bytes.length > limit) throw new ConfigError(`${what} ${path}: more than ${limit} bytes; a ${what} file is at most that`);
	} catch (error) {
		if (error instanceof ConfigError) throw error;
		throw new ConfigError(
			`${what} ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
		);
	} finally {
		closeSync(fd);
	}
	try {
		// A byte-order mark is dropped, as editors on Windows write one.
		return new TextDecoder('utf-8', {fatal: true}).decode(bytes);
	} catch {
		throw new ConfigError(`${what} ${path}: not UTF-8 text`);
	}
}

/**
 * Reads and checks the config file at `path`: null when there is none; a ConfigError names the file
 * and the problem when it cannot be read (readSmallTextFile) or its settings are wrong.
 */
export function readConfigFile(path: string): ConfigFile | null {
	const text = readSmallTextFile(path, 'config');
	return text === null ? null : parseConfigText(path, text);
}

/** A configuration problem as the one line `main` prints, with its exit code. */
function asCliError(error: unknown): unknown {
	return error instanceof ConfigError ? new CliError(error.message, CONFIG_EXIT) : error;
}

let loaded: {readonly file: ConfigFile | null} | {readonly error: unknown} | undefined;

/** The config file, read once per process at the first setting asked for (an edit counts at the next start). */
export function loadConfig(): ConfigFile | null {
	if (loaded === undefined) {
		try {
			loaded = {file: readConfigFile(configPath())};
		} catch (error) {
			loaded = {error: asCliError(error)};
		}
	}
	if ('error' in loaded) throw loaded.error;
	return loaded.file;
}

/** A configuration problem becomes the one line `main` prints, with exit 78. */
function withConfigExit<T>(read: () => T): T {
	try {
		return read();
	} catch (error) {
		throw asCliError(error);
	}
}

/**
 * The settings a command owns, from the flags it parsed (`undefined`: not given), the environment,
 * the config file and the built-in defaults, in that order (src/core/config.ts). A wrong file or
 * variable is one line and exit 78.
 */
export function commandSettings<K extends SettingKey>(flags: {readonly [P in K]: SettingValues[P] | undefined}): {
	readonly [P in K]: SettingValues[P];
} {
	return withConfigExit(() => resolveSettings(flags, {env: process.env, file: loadConfig()}));
}

/** Every setting as it stands in this process before any flag, and the file read (null: none there). */
export function effectiveSettings(): {
	readonly file: ConfigFile | null;
	readonly settings: readonly {readonly key: SettingKey; readonly resolved: ResolvedSetting<SettingKey>}[];
} {
	return withConfigExit(() => {
		const layers = {env: process.env, file: loadConfig()};
		return {file: layers.file, settings: SETTING_KEYS.map(key => ({key, resolved: resolveSetting(key, undefined, layers)}))};
	});
}
