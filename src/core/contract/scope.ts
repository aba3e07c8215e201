import {globRegExp} from '../path-glob.ts';
import {asList, type Contract} from './model.ts';

// Scope entries are what a person wrote: some are paths and globs (`src/export/`, `**/*.sql`),
// some are prose ("export query"). Only paths are compared with the files a change touched
// (docs/contracts.md, "Scope against the change").

/** An entry that names files: no spaces, and a slash, a star or a dot in it (`src/`, `*.sql`, `package.json`). */
export function isPathPattern(entry: string): boolean {
	const trimmed = entry.trim().replace(/^`|`$/g, '');
	return trimmed !== '' && !/\s/.test(trimmed) && /[/*.?]/.test(trimmed) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed);
}

/** The path entries of a scope field, as written, without surrounding backticks. */
export function pathPatterns(entries: readonly string[]): string[] {
	return entries.filter(isPathPattern).map(entry => entry.trim().replace(/^`|`$/g, ''));
}

/** Whether a repository-relative file matches any of the patterns. */
export function matchesAny(file: string, patterns: readonly string[]): string | null {
	return patterns.find(pattern => globRegExp(pattern).test(file)) ?? null;
}

/** A file a change touched that the contract did not let it touch, and why. */
export type OutsideScope = {readonly file: string; readonly reason: string};

/** The path patterns of a contract's scope and write authority. */
export type ScopeGlobs = {readonly allowed: string[]; readonly excluded: string[]; readonly mayWrite: string[]};

export function scopeGlobsOf(contract: Contract): ScopeGlobs {
	return {
		allowed: pathPatterns(asList(contract.scope?.allowed)),
		excluded: pathPatterns(asList(contract.scope?.excluded)),
		mayWrite: pathPatterns(contract.authority?.may_write ?? []),
	};
}

/** Whether the contract names any file it lets or forbids a change to touch. */
export function hasScopeGlobs(globs: ScopeGlobs): boolean {
	return globs.allowed.length + globs.excluded.length + globs.mayWrite.length > 0;
}

/**
 * The changed files outside the contract's scope: under `scope.excluded`, outside every path of
 * `scope.allowed` (when it names paths), or outside `authority.may_write` (when it names paths).
 */
export function filesOutsideScope(files: readonly string[], globs: ScopeGlobs): OutsideScope[] {
	const outside: OutsideScope[] = [];
	for (const file of files) {
		const excluded = matchesAny(file, globs.excluded);
		if (excluded !== null) outside.push({file, reason: `under scope.excluded (${excluded})`});
		else if (globs.allowed.length > 0 && matchesAny(file, globs.allowed) === null)
			outside.push({file, reason: 'not under scope.allowed'});
		else if (globs.mayWrite.length > 0 && matchesAny(file, globs.mayWrite) === null)
			outside.push({file, reason: 'not in authority.may_write'});
	}
	return outside;
}
