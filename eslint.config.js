// The house rules, checked by `npm run lint` in CI instead of by memory (docs/architecture.md):
// imports flow one way between the layers, nothing prints over the board, every switch over a
// union names every case, and nothing unused is left behind.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** Packages that do I/O or draw: src/core imports none of them. */
const IO_PACKAGES = ['better-sqlite3', 'pg', 'chokidar', 'execa', 'fs-ext', 'ink', 'react', 'react/*', '@modelcontextprotocol/*'];

/** `no-restricted-imports` with the given patterns, each with the message that says why. */
function restrict(...groups) {
	return ['error', {patterns: groups.map(([group, message, extra = {}]) => ({...(group ? {group} : {}), message, ...extra}))}];
}

export default tseslint.config(
	{ignores: ['dist/**', 'node_modules/**', 'test/fixtures/**', 'test/**/__snapshots__/**']},
	js.configs.recommended,
	{
		files: ['**/*.{ts,tsx}'],
		extends: [tseslint.configs.recommended],
		languageOptions: {parserOptions: {projectService: true, tsconfigRootDir: import.meta.dirname}},
		rules: {
			'@typescript-eslint/switch-exhaustiveness-check': [
				'error',
				{considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false},
			],
			'@typescript-eslint/no-unused-vars': [
				'error',
				{argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true},
			],
			'@typescript-eslint/consistent-type-imports': ['error', {fixStyle: 'inline-type-imports'}],
			'no-console': 'error',
		},
	},
	{
		files: ['src/cli/**/*.{ts,tsx}', 'test/**/*.{ts,tsx}'],
		rules: {'no-console': 'off'},
	},
	{
		files: ['components/**/*.tsx', 'hooks/**/*.ts'],
		plugins: {'react-hooks': reactHooks},
		rules: {
			'react-hooks/rules-of-hooks': 'error',
			'react-hooks/exhaustive-deps': 'error',
		},
	},
	{
		files: ['src/core/**/*.ts'],
		rules: {
			'no-restricted-imports': restrict(
				[['node:*', ...IO_PACKAGES], 'src/core is pure: no I/O and no UI (STYLE.md R1). Pass values in from an adapter.'],
				[
					null,
					'src/core imports nothing above it (STYLE.md R1).',
					{regex: '^(\\.\\./)+(ledger|producers|gates|handoff|disagreements|cli|components|hooks)/'},
				],
			),
		},
	},
	{
		files: [
			'src/ledger/**/*.ts',
			'src/producers/**/*.ts',
			'src/gates/**/*.ts',
			'src/handoff/**/*.ts',
			'src/disagreements/**/*.ts',
		],
		rules: {
			'no-restricted-imports': restrict(
				[['ink', 'react', 'react/*'], 'the ledger, producers, gates and handoff never draw: no Ink or React.'],
				[
					null,
					'the ledger, producers, gates and handoff never draw, and only src/cli turns argv into calls.',
					{regex: '^(\\.\\./)+(components|hooks|cli)/'},
				],
			),
		},
	},
	{
		files: ['src/producers/**/*.ts', 'src/gates/**/*.ts', 'src/handoff/**/*.ts', 'src/disagreements/**/*.ts'],
		rules: {
			'no-restricted-imports': restrict(
				[['better-sqlite3', 'pg'], 'All SQL lives in src/ledger: ask the store (Ledger) for a named read or write.'],
				[['ink', 'react', 'react/*'], 'producers, gates and handoff never draw: no Ink or React.'],
				[
					null,
					'producers, gates and handoff never draw, and only src/cli turns argv into calls.',
					{regex: '^(\\.\\./)+(components|hooks|cli)/'},
				],
			),
		},
	},
	{
		files: ['src/cli/**/*.{ts,tsx}'],
		rules: {
			'no-restricted-imports': restrict([
				['better-sqlite3', 'pg'],
				'All SQL lives in src/ledger: ask the store (Ledger) or the fleet ledger (src/ledger/fleet) for a named read or write.',
			]),
		},
	},
	{
		files: ['components/**/*.tsx', 'hooks/**/*.ts'],
		rules: {
			'no-restricted-imports': restrict(
				[['better-sqlite3', 'pg', 'execa', 'fs-ext'], 'components and hooks only render and dispatch; adapters live under src/.'],
				[
					null,
					'The board reaches the ledger only through its feed interface (src/ledger/board-feed.ts); everything else comes from src/core.',
					{regex: 'src/(ledger/(?!board-feed\\.ts$)|producers/|gates/|handoff/|disagreements/|cli/)'},
				],
			),
		},
	},
	{
		files: ['**/*.{js,mjs}'],
		languageOptions: {
			globals: {
				process: 'readonly',
				console: 'readonly',
				URL: 'readonly',
				Buffer: 'readonly',
				setTimeout: 'readonly',
				clearTimeout: 'readonly',
				setInterval: 'readonly',
				clearInterval: 'readonly',
				performance: 'readonly',
				AbortController: 'readonly',
				SharedArrayBuffer: 'readonly',
				Int32Array: 'readonly',
				Atomics: 'readonly',
				TextDecoder: 'readonly',
				TextEncoder: 'readonly',
				structuredClone: 'readonly',
				fetch: 'readonly',
			},
		},
	},
);
