import {dirname, isAbsolute, join, resolve} from 'node:path';
import * as z from 'zod';
import {ConfigError} from '../core/config.ts';
import {repositoryKey, type RepositoryMap} from '../handoff/repository-map.ts';
import {CONFIG_EXIT, configPath, readSmallTextFile} from './config-file.ts';
import {CliError, USAGE_EXIT} from './errors.ts';
import {terminalSafe} from '../core/terminal-text.ts';

/**
 * Where the person's repositories are mapped to checkouts: `$CONTROLROOM_REPOSITORIES` when set and
 * not empty, else `repositories.json` beside the config file (docs/serve.md, "Repositories").
 */
export function repositoriesPath(env: NodeJS.ProcessEnv = process.env): string {
	const named = env['CONTROLROOM_REPOSITORIES'];
	return named ? resolve(named) : join(dirname(configPath(env)), 'repositories.json');
}

const fileSchema = z.record(z.string().trim().min(1), z.string().trim().min(1));

/**
 * The map in force: the file (names or URLs → checkout paths, relative ones read from the file's
 * folder), then each `--repo NAME=PATH` over it. A wrong file is one line, exit 78; a wrong flag 64.
 */
export function loadRepositories(flags: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): RepositoryMap {
	const path = repositoriesPath(env);
	const map = new Map<string, string>();
	try {
		const text = readSmallTextFile(path, 'repositories');
		if (text !== null) {
			let value: unknown;
			try {
				value = JSON.parse(text);
			} catch {
				throw new ConfigError(`repositories ${path}: not JSON`);
			}
			const parsed = fileSchema.safeParse(value);
			if (!parsed.success) throw new ConfigError(`repositories ${path}: expected {"name or URL": "checkout path", ...}`);
			for (const [name, checkout] of Object.entries(parsed.data))
				map.set(repositoryKey(name), isAbsolute(checkout) ? checkout : resolve(dirname(path), checkout));
		}
	} catch (error) {
		if (error instanceof ConfigError) throw new CliError(error.message, CONFIG_EXIT);
		throw error;
	}
	for (const flag of flags) {
		const at = flag.indexOf('=');
		if (at <= 0 || at === flag.length - 1)
			throw new CliError(`--repo: expected NAME=PATH, got '${terminalSafe(flag)}'`, USAGE_EXIT);
		map.set(repositoryKey(flag.slice(0, at)), resolve(flag.slice(at + 1)));
	}
	return map;
}
