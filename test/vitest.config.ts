import {fileURLToPath} from 'node:url';
import {defineConfig} from 'vitest/config';

export default defineConfig({
	root: fileURLToPath(new URL('..', import.meta.url)),
	test: {
		include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
		globalSetup: ['test/helpers/global-setup.ts'],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		// Tests spawn real processes and hold real locks; two workers match the CI machine.
		maxWorkers: 2,
		env: {FORCE_COLOR: '0'},
	},
});
