// The house rules, checked by `npm run lint` in CI instead of by memory (docs/architecture.md):
// imports flow one way between the layers, nothing prints over the board, every switch over a
// union names every case, and nothing unused is left behind.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import {noImportCircle} from './lint/no-import-circle.js';

/** Packages that do I/O or draw: src/core imports none of them. */
const IO_PACKAGES = [
	'better-sqlite3',
	'pg',
	'chokidar',
	'execa',
	'fs-ext-extra-prebuilt',
	'ink',
	'react',
	'react/*',
	'@modelcontextprotocol/*',
];

/** `no-restricted-imports` with the given patterns, each with the message that says why. */
function restrict(...groups) {
	return ['error', {patterns: groups.map(([group, message, extra = {}]) => ({...(group ? {group} : {}), message, ...extra}))}];
}

/**
 * The floors between src/core and src/cli, bottom up (docs/architecture.md), each with the folders
 * it may not import: those above it, and for producers, handoff and otel (one floor) each other.
 */
const MIDDLE_FLOORS = {
	ledger: ['producers', 'handoff', 'otel', 'gates', 'disagreements', 'fleet'],
	producers: ['handoff', 'otel', 'gates', 'disagreements', 'fleet'],
	handoff: ['producers', 'otel', 'gates', 'disagreements', 'fleet'],
	otel: ['producers', 'handoff', 'gates', 'disagreements', 'fleet'],
	gates: ['disagreements', 'fleet'],
	disagreements: ['fleet'],
	fleet: [],
};

/** A middle floor's rules: it never draws, never parses argv, imports nothing above it, and only src/ledger speaks SQL. */
function middleFloor(floor, ...extra) {
	const above = MIDDLE_FLOORS[floor];
	return restrict(
		[['ink', 'react', 'react/*'], `src/${floor} never draws: no Ink or React.`],
		[null, `src/${floor} never draws, and only src/cli turns argv into calls.`, {regex: '^(\\.\\./)+(components|hooks|cli)/'}],
		...(floor === 'ledger'
			? []
			: [[['better-sqlite3', 'pg'], 'All SQL lives in src/ledger: ask the store (Ledger) for a named read or write.']]),
		...(above.length === 0
			? []
			: [
					[
						null,
						`src/${floor} imports nothing above it or beside it (${above.map(name => `src/${name}`).join(', ')}): move the code up, or pass what it needs in as a parameter.`,
						{regex: `^(\\.\\./)+(${above.join('|')})/`},
					],
				]),
		...extra,
	);
}

/** What the board's components and hooks may not import: they render and dispatch, from src/core and the feed interface. */
function uiRules(...extra) {
	return restrict(
		[
			['better-sqlite3', 'pg', 'execa', 'fs-ext-extra-prebuilt'],
			'components and hooks only render and dispatch; adapters live under src/.',
		],
		[
			null,
			'The board reaches the ledger only through its feed interface (src/ledger/board-feed.ts); everything else comes from src/core (and never src/otel).',
			{regex: 'src/(ledger/(?!board-feed\\.ts$)|producers/|gates/|handoff/|otel/|disagreements/|fleet/|cli/)'},
		],
		...extra,
	);
}

/** Only src/fleet and src/cli reach the PostgreSQL store (src/ledger/fleet). */
const NO_PG_STORE = [
	null,
	'Only src/fleet and src/cli import the PostgreSQL store (src/ledger/fleet): move the code to src/fleet, or pass what it needs in.',
	{regex: '^((\\.\\./)+ledger/|\\./)fleet/'},
];

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
			// zod's `z` bound as a value keeps all of zod in the chunk every command loads (docs/architecture.md, "Build").
			'no-restricted-syntax': [
				'error',
				{
					selector:
						"ImportDeclaration[importKind='value'][source.value=/^zod/] > ImportSpecifier[imported.name='z'][importKind='value']",
					message: "Import zod as a namespace (import * as z from 'zod'): the bundle then keeps only what is used.",
				},
			],
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
				[
					['node:*', ...IO_PACKAGES],
					'src/core is pure: no I/O and no UI (docs/architecture.md, "Layers"). Pass values in from an adapter.',
				],
				[
					null,
					'src/core imports nothing above it (docs/architecture.md, "Layers").',
					{regex: '^(\\.\\./)+(ledger|producers|otel|gates|handoff|disagreements|fleet|cli|components|hooks)/'},
				],
			),
		},
	},
	// The board's rules stay small enough to read whole: a panel is a module (docs/architecture.md, "A panel").
	{files: ['src/core/board/**/*.ts'], rules: {'max-lines-per-function': ['error', {max: 60}]}},
	{files: ['src/ledger/**/*.ts'], rules: {'no-restricted-imports': middleFloor('ledger')}},
	// The local store (src/ledger itself, not its fleet folder) never reaches the PostgreSQL one.
	{files: ['src/ledger/*.ts'], rules: {'no-restricted-imports': middleFloor('ledger', NO_PG_STORE)}},
	{files: ['src/producers/**/*.ts'], rules: {'no-restricted-imports': middleFloor('producers', NO_PG_STORE)}},
	{files: ['src/handoff/**/*.ts'], rules: {'no-restricted-imports': middleFloor('handoff', NO_PG_STORE)}},
	{files: ['src/otel/**/*.ts'], rules: {'no-restricted-imports': middleFloor('otel', NO_PG_STORE)}},
	{files: ['src/gates/**/*.ts'], rules: {'no-restricted-imports': middleFloor('gates', NO_PG_STORE)}},
	{files: ['src/disagreements/**/*.ts'], rules: {'no-restricted-imports': middleFloor('disagreements', NO_PG_STORE)}},
	{files: ['src/fleet/**/*.ts'], rules: {'no-restricted-imports': middleFloor('fleet')}},
	{
		files: ['src/cli/**/*.{ts,tsx}'],
		rules: {
			'no-restricted-imports': restrict([
				['better-sqlite3', 'pg'],
				'All SQL lives in src/ledger: ask the store (Ledger) or the fleet ledger (src/ledger/fleet) for a named read or write.',
			]),
		},
	},
	{files: ['components/**/*.tsx'], rules: {'no-restricted-imports': uiRules()}},
	// hooks/ sits under components/: a hook never imports a component.
	{
		files: ['hooks/**/*.ts'],
		rules: {
			'no-restricted-imports': uiRules([
				null,
				'hooks/ is the floor under components/: a hook never imports a component (pass what it needs in).',
				{regex: '^(\\.\\./)+components/'},
			]),
		},
	},
	// No import circle anywhere in src/, components/ and hooks/ (lint/no-import-circle.js).
	{
		files: ['src/**/*.{ts,tsx}', 'components/**/*.tsx', 'hooks/**/*.ts'],
		plugins: {controlroom: {rules: {'no-import-circle': noImportCircle}}},
		rules: {'controlroom/no-import-circle': 'error'},
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
