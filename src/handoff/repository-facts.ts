import {spawnSync} from 'node:child_process';
import {accessSync, constants, existsSync, readFileSync, statSync} from 'node:fs';
import {delimiter, isAbsolute, join, resolve} from 'node:path';
import {assertNever} from '../core/assert-never.ts';
import type {CommandRequirement} from '../core/contract/commands.ts';
import type {RepositoryFacts} from '../core/contract/rules.ts';

const REMOTE = /^(?:[a-z][a-z0-9+.-]*:\/\/|[^/\s]+@[^/\s]+:)/i;

function isExecutable(file: string): boolean {
	try {
		accessSync(file, constants.X_OK);
		return statSync(file).isFile();
	} catch {
		return false;
	}
}

function npmScripts(directory: string): Record<string, unknown> | null {
	try {
		const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {scripts?: Record<string, unknown>};
		return manifest.scripts ?? {};
	} catch {
		return null;
	}
}

function makeTargets(directory: string): string | null {
	for (const name of ['GNUmakefile', 'makefile', 'Makefile']) {
		const file = join(directory, name);
		if (existsSync(file)) return readFileSync(file, 'utf8');
	}
	return null;
}

function findExecutable(directory: string, name: string): boolean {
	if (name.includes('/')) return isExecutable(isAbsolute(name) ? name : join(directory, name));
	const path = [join(directory, 'node_modules', '.bin'), ...(process.env['PATH'] ?? '').split(delimiter)];
	return path.some(folder => folder !== '' && isExecutable(join(folder, name)));
}

/** Answers a contract's repository questions from the file system and git; relative paths are read from `baseDir`. */
export function createRepositoryFacts(baseDir: string): RepositoryFacts {
	const at = (repository: string) => resolve(baseDir, repository);
	return {
		repository(repository) {
			if (REMOTE.test(repository)) return 'remote';
			const directory = at(repository);
			if (!existsSync(directory) || !statSync(directory).isDirectory()) return 'missing';
			const inside = spawnSync('git', ['-C', directory, 'rev-parse', '--is-inside-work-tree'], {encoding: 'utf8'});
			return inside.status === 0 ? 'ok' : 'not-git';
		},
		revisionExists(repository, revision) {
			// `--` never separates here: cat-file takes one object, so a revision starting with '-' is refused first.
			if (revision.startsWith('-')) return false;
			return spawnSync('git', ['-C', at(repository), 'cat-file', '-e', `${revision}^{commit}`], {stdio: 'ignore'}).status === 0;
		},
		defines(repository, requirement: CommandRequirement) {
			const directory = at(repository);
			switch (requirement.kind) {
				case 'package-json':
					return npmScripts(directory) !== null;
				case 'npm-script':
					return Object.hasOwn(npmScripts(directory) ?? {}, requirement.name);
				case 'make-target': {
					const makefile = makeTargets(directory);
					if (makefile === null || requirement.name === null) return makefile !== null;
					const escaped = requirement.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
					return new RegExp(`^(?:[^\\s:#=]+\\s+)*${escaped}(?:\\s+[^\\s:#=]+)*\\s*::?(?!=)`, 'm').test(makefile);
				}
				case 'executable':
					return findExecutable(directory, requirement.name);
				default:
					return assertNever(requirement);
			}
		},
	};
}
