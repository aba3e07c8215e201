import {fileURLToPath} from 'node:url';
import {defineConfig} from 'vitest/config';

export default defineConfig({
	root: fileURLToPath(new URL('..', import.meta.url)),
	test: {
		include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
		globalSetup: ['test/helpers/global-setup.ts'],
		// The closing `N passed, N failed` line (.ci/run and people read it; docs/testing.md).
		reporters: ['default', './test/helpers/count-reporter.ts'],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		// Tests spawn real processes and hold real locks; two workers match the CI machine.
		maxWorkers: 2,
		// A config file of the person running the tests (~/.config/controlroom/config.json) must not
		// change what the commands under test do: every test runs with none, unless it names its own.
		env: {FORCE_COLOR: '0', CONTROLROOM_CONFIG: fileURLToPath(new URL('fixtures/config/none-here.json', import.meta.url))},
	},
});
