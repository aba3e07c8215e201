import {spawnSync} from 'node:child_process';
import {accessSync, constants, existsSync, lstatSync, readFileSync, realpathSync, statSync} from 'node:fs';
import {delimiter, isAbsolute, join, relative, resolve, sep} from 'node:path';
import {assertNever} from '../core/assert-never.ts';
import type {CommandRequirement} from '../core/contract/commands.ts';
import {contextMapOf, type Contract} from '../core/contract/model.ts';
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

function gitOut(directory: string, args: readonly string[]): string | null {
	const result = spawnSync('git', ['-C', directory, ...args], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']});
	return result.status === 0 ? result.stdout : null;
}

/** A scope entry as a git pathspec: globs with git's own glob magic (`*` stays in a folder, `**` crosses them). */
function pathspec(pattern: string): string {
	const path = pattern.replace(/^\.\//, '').replace(/^\/+/, '');
	return /[*?[]/.test(path) ? `:(glob)${path}` : path;
}

function isInside(path: string, folder: string): boolean {
	const gap = relative(folder, path);
	return gap === '' || (!gap.startsWith(`..${sep}`) && gap !== '..' && !isAbsolute(gap));
}

/** Answers a contract's repository questions from the file system and git; relative paths are read from `baseDir`. */
export function createRepositoryFacts(baseDir: string): RepositoryFacts {
	const at = (repository: string) => resolve(baseDir, repository);
	return {
		defaultRepository() {
			return gitOut(baseDir, ['rev-parse', '--show-toplevel'])?.trim() || null;
		},
		newestChange(repository, base, paths) {
			if (base.startsWith('-')) return null;
			const log = gitOut(at(repository), [
				'log',
				'-1',
				'--format=%h',
				'--name-only',
				`${base}..HEAD`,
				'--',
				...paths.map(pathspec),
			]);
			const [commit, ...files] = (log ?? '').split('\n').filter(line => line.trim() !== '');
			return commit === undefined ? null : {commit, file: files[0] ?? '(a file in scope)'};
		},
		fileInRepository(repository, path) {
			const root = at(repository);
			const target = resolve(root, path);
			if (!isInside(target, root)) return 'outside';
			try {
				lstatSync(target);
			} catch {
				return 'missing';
			}
			try {
				// A link inside that leads out of the repository points outside it.
				return isInside(realpathSync(target), realpathSync(root)) ? 'yes' : 'outside';
			} catch {
				return 'missing';
			}
		},
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

/**
 * The folder of a contract's repository on this machine: `context.repository` from `baseDir` (the
 * contract's folder), else the git work tree the contract sits in; null for a remote one.
 */
export function repositoryDir(baseDir: string, contract: Contract): string | null {
	const named = contextMapOf(contract)?.repository;
	if (named !== undefined) return REMOTE.test(named) ? null : resolve(baseDir, named);
	return gitOut(baseDir, ['rev-parse', '--show-toplevel'])?.trim() || null;
}

/** Whether a revision is a commit in the repository. */
export function commitExists(repository: string, revision: string): boolean {
	if (revision.startsWith('-')) return false;
	return spawnSync('git', ['-C', repository, 'cat-file', '-e', `${revision}^{commit}`], {stdio: 'ignore'}).status === 0;
}

/** The files that differ between two commits, relative to the repository's top, or null when git cannot say. */
export function changedFiles(repository: string, base: string, patch: string): string[] | null {
	if (base.startsWith('-') || patch.startsWith('-')) return null;
	const out = gitOut(repository, ['diff', '--name-only', '--no-renames', '-z', base, patch, '--']);
	return out === null ? null : out.split('\0').filter(Boolean);
}
