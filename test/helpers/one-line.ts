import {expect} from 'vitest';
import type {CliResult} from './cli.ts';

/** Asserts what docs/cli.md promises of bad input: one line on stderr, `controlroom: ...`, the exit code, never a stack. */
export function expectOneLine(result: CliResult, code: number, pattern: RegExp): void {
	expect({status: result.status, stderr: result.stderr}).toEqual({
		status: code,
		stderr: expect.stringMatching(/^controlroom: [^\n]+\n$/),
	});
	expect(result.stderr).toMatch(pattern);
	expect(result.stderr).not.toContain('    at ');
}
