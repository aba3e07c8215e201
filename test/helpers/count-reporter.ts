import type {Reporter, TestModule} from 'vitest/node';

/**
 * Closes every run with the one line CI and people read, `N passed, N failed` (`, N skipped` after
 * it, and each skipped test named above it: nothing is skipped silently). A file that failed before
 * any test ran (an import error, a failing beforeAll) counts as one failure.
 */
export default class CountReporter implements Reporter {
	onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
		let passed = 0;
		let failed = unhandledErrors.length;
		const skipped: string[] = [];
		for (const module of testModules) {
			let tests = 0;
			for (const test of module.children.allTests()) {
				tests += 1;
				const state = test.result().state;
				if (state === 'passed') passed += 1;
				else if (state === 'failed') failed += 1;
				else skipped.push(`${module.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}`);
			}
			if (tests === 0 && module.state() === 'failed') failed += 1;
		}
		for (const name of skipped) process.stdout.write(`skipped: ${name}\n`);
		process.stdout.write(`${passed} passed, ${failed} failed${skipped.length > 0 ? `, ${skipped.length} skipped` : ''}\n`);
	}
}
