import {describe, expect, it} from 'vitest';
import {filesOutsideScope, hasScopeGlobs, isPathPattern, scopeGlobsOf} from '../../src/core/contract/scope.ts';
import {globRegExp} from '../../src/core/path-glob.ts';
import type {Contract} from '../../src/core/contract/model.ts';

// The files a change touched against a contract's scope and write authority (docs/contracts.md,
// "Scope against the change"): only entries that name paths are compared; prose is for people.

const task = (fields: Partial<Extract<Contract, {kind: 'task'}>>): Contract => ({
	kind: 'task',
	goal: 'the export has a discount column',
	acceptance: {checks: ['`npm test -- export` passes']},
	...fields,
});

describe('scope entries', () => {
	it('tells paths and globs from prose', () => {
		expect(['src/export/', '`db/migrations/`', '**/*.sql', 'package.json', 'src/a?.ts'].map(isPathPattern)).toEqual([
			true,
			true,
			true,
			true,
			true,
		]);
		expect(['export query', 'authentication', 'https://example.com/x', ''].map(isPathPattern)).toEqual([
			false,
			false,
			false,
			false,
		]);
	});

	it('matches folders, names and globs over repository-relative paths', () => {
		expect(globRegExp('src/export/').test('src/export/columns.ts')).toBe(true);
		expect(globRegExp('src/export').test('src/export/deep/columns.ts')).toBe(true);
		expect(globRegExp('src/export/').test('src/exporter.ts')).toBe(false);
		expect(globRegExp('**/*.sql').test('db/migrations/0042.sql')).toBe(true);
		expect(globRegExp('**/*.sql').test('top.sql')).toBe(true);
		expect(globRegExp('src/*.ts').test('src/a/b.ts')).toBe(false);
		expect(globRegExp('./package.json').test('package.json')).toBe(true);
	});
});

describe('files outside the scope', () => {
	const contract = task({
		scope: {allowed: ['src/export/', 'test/export/', 'the export query'], excluded: ['db/migrations/', 'authentication']},
		authority: {may_write: ['src/', 'test/', 'db/']},
	});
	const globs = scopeGlobsOf(contract);

	it('reads only the path entries of scope and authority.may_write', () => {
		expect(globs).toEqual({
			allowed: ['src/export/', 'test/export/'],
			excluded: ['db/migrations/'],
			mayWrite: ['src/', 'test/', 'db/'],
		});
	});

	it('names each file outside, with why: excluded first, then not allowed, then not writable', () => {
		expect(
			filesOutsideScope(
				['src/export/columns.ts', 'test/export/columns.test.ts', 'db/migrations/0042.sql', 'src/billing/tax.ts', 'README.md'],
				globs,
			),
		).toEqual([
			{file: 'db/migrations/0042.sql', reason: 'under scope.excluded (db/migrations/)'},
			{file: 'src/billing/tax.ts', reason: 'not under scope.allowed'},
			{file: 'README.md', reason: 'not under scope.allowed'},
		]);
	});

	it('holds a change to authority.may_write when the scope names no paths', () => {
		const onlyAuthority = scopeGlobsOf(task({scope: {allowed: 'the export query'}, authority: {may_write: ['src/export/']}}));
		expect(filesOutsideScope(['src/export/a.ts', 'package.json'], onlyAuthority)).toEqual([
			{file: 'package.json', reason: 'not in authority.may_write'},
		]);
	});

	it('compares nothing when the contract names no path', () => {
		const prose = scopeGlobsOf(task({scope: {allowed: ['the export query'], excluded: ['authentication']}}));
		expect(hasScopeGlobs(prose)).toBe(false);
		expect(filesOutsideScope(['anything.ts'], prose)).toEqual([]);
	});
});
