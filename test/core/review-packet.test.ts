import {describe, expect, it} from 'vitest';
import {buildPacket, isTestPath, lastLines, type DiffFile, type PacketInput} from '../../src/core/review/packet.ts';

const bytes = (text: string): number => Buffer.byteLength(text);

/** A file whose diff has `changed` changed lines and `context` lines of unchanged context each. */
function file(path: string, changed: number, context = 0, width = 60): DiffFile {
	const line = (sign: string, index: number) => `${sign}${`${path} line ${index} `.padEnd(width, 'x')}`;
	const body = Array.from({length: changed}, (_, index) => line('+', index));
	const around = Array.from({length: context}, (_, index) => line(' ', index));
	const head = `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@`;
	return {
		path,
		withContext: [head, ...around, ...body, ...around].join('\n'),
		withoutContext: [head, ...body].join('\n'),
		added: changed,
		removed: 0,
	};
}

function input(files: DiffFile[], patch: Partial<PacketInput> = {}): PacketInput {
	return {
		taskId: 'w-1',
		title: 'fix export',
		reviewId: 'r-1',
		round: 1,
		maxRounds: 2,
		brief: {path: '/repo/task.yaml', note: null},
		report: {from: "the worker's stdout", text: 'I fixed the export filter.'},
		tests: {from: '--test', command: 'npm test', exitCode: 0, output: '12 passed'},
		diff: {base: 'a'.repeat(40), note: null, files},
		fixesAsked: [],
		...patch,
	};
}

describe('the review packet', () => {
	it('carries the brief path, the report, the test output and the whole diff when it fits', () => {
		const packet = buildPacket(input([file('src/export.ts', 3, 3), file('test/export.test.ts', 2, 3)]));
		expect(packet.trimmed).toEqual([]);
		expect(packet.listed).toEqual([]);
		expect(packet.text).toContain('## Brief\n/repo/task.yaml');
		expect(packet.text).toContain("## Worker's report (from the worker's stdout)\nI fixed the export filter.");
		expect(packet.text).toContain('## Test output (npm test: exit 0, 1 lines; from --test)\n12 passed');
		expect(packet.text).toContain('## Diff (aaaaaaaaaaaa → working tree; 2 files, +5 −0)');
		expect(packet.text).toContain(' src/export.ts line 0 ');
		expect(packet.text).toContain('Answer with exactly APPROVE, or a numbered list of fixes');
		expect(packet.bytes).toBe(bytes(packet.text));
	});

	it('says what stands in for a missing brief, report and test output', () => {
		const packet = buildPacket(input([], {brief: {path: null, note: 'the worker ran `sh fix.sh`'}, report: null, tests: null}));
		expect(packet.text).toContain('## Brief\nnone recorded: the worker ran `sh fix.sh`');
		expect(packet.text).toContain("## Worker's report\nnone recorded");
		expect(packet.text).toContain('## Test output\nnone: no test command known');
		expect(packet.text).toContain('no changes since the base revision');
	});

	it("lists the contract's acceptance lines, numbered as accept --line names them", () => {
		const packet = buildPacket(input([], {acceptance: ['`npm test` passes', 'the CSV header keeps its order']}));
		expect(packet.text).toContain('## Acceptance lines\n1. `npm test` passes\n2. the CSV header keeps its order\n');
		expect(buildPacket(input([])).text).not.toContain('## Acceptance lines');
	});

	it('lists the fixes the previous round asked for', () => {
		const packet = buildPacket(input([], {round: 2, fixesAsked: ['add a test', 'rename x']}));
		expect(packet.text).toContain('## Fixes asked for in the previous round\n1. add a test\n2. rename x');
	});

	it('keeps at most the last 200 lines of test output', () => {
		const output = Array.from({length: 350}, (_, index) => `line ${index + 1}`).join('\n');
		const packet = buildPacket(input([], {tests: {from: 'evidence', command: null, exitCode: 1, output}}));
		expect(packet.text).toContain('last 200 of 350 lines');
		expect(packet.text).toContain('line 151\n');
		expect(packet.text).not.toContain('line 150\n');
		expect(packet.text).toContain('line 350');
	});

	it('drops unchanged context first', () => {
		const files = [file('src/a.ts', 100, 1000), file('test/a.test.ts', 100, 1000)];
		const packet = buildPacket(input(files, {limitBytes: 64 * 1024}));
		expect(packet.trimmed).toEqual(['context']);
		expect(packet.listed).toEqual([]);
		expect(packet.text).toContain('(unchanged context left out to fit the packet)');
		expect(packet.text).toContain('+src/a.ts line 99');
		expect(packet.bytes).toBeLessThanOrEqual(64 * 1024);
	});

	it('then drops non-test file bodies, largest first, and lists their paths', () => {
		const files = [file('src/big.ts', 1500, 3), file('src/small.ts', 300), file('src/tiny.ts', 10), file('test/a.test.ts', 1000)];
		const packet = buildPacket(input(files, {limitBytes: 128 * 1024}));
		expect(packet.trimmed).toEqual(['context', 'non-test bodies']);
		expect(packet.listed).toEqual(['src/big.ts']);
		expect(packet.text).toContain('## Files to open (their diff is left out to keep the packet within 128 KB)');
		expect(packet.text).toContain('- src/big.ts (+1500 −0)');
		expect(packet.text).toContain('+src/small.ts line 299');
		expect(packet.text).toContain('+test/a.test.ts line 999');
		expect(packet.bytes).toBeLessThanOrEqual(128 * 1024);
	});

	it('drops test file bodies only after every non-test body', () => {
		const files = [file('src/a.ts', 500), file('src/b.ts', 500), file('test/a.test.ts', 2000), file('test/b.test.ts', 100)];
		const packet = buildPacket(input(files, {limitBytes: 64 * 1024}));
		expect(packet.trimmed).toEqual(['non-test bodies', 'test bodies']);
		expect(packet.listed).toEqual(['src/a.ts', 'src/b.ts', 'test/a.test.ts']);
		expect(packet.text).toContain('+test/b.test.ts line 99');
		expect(packet.bytes).toBeLessThanOrEqual(64 * 1024);
	});

	it('then cuts the report to its end, then the test output, and as a last resort the text', () => {
		const report = `start of report\n${'r'.repeat(100_000)}\nend of report`;
		const withReport = buildPacket(
			input([file('src/a.ts', 10)], {limitBytes: 32 * 1024, report: {from: 'stdout', text: report}}),
		);
		expect(withReport.trimmed).toEqual(['non-test bodies', 'report']);
		expect(withReport.text).toContain('(cut to its end to fit the packet)');
		expect(withReport.text).toContain('end of report');
		expect(withReport.text).not.toContain('start of report');
		expect(withReport.bytes).toBeLessThanOrEqual(32 * 1024);

		const output = Array.from({length: 200}, (_, index) => `test line ${index} ${'t'.repeat(300)}`).join('\n');
		const withTests = buildPacket(
			input([], {limitBytes: 16 * 1024, report: null, tests: {from: 'x', command: 'npm test', exitCode: 1, output}}),
		);
		expect(withTests.trimmed).toEqual(['test output']);
		expect(withTests.text).toContain('test line 199');
		expect(withTests.bytes).toBeLessThanOrEqual(16 * 1024);

		const many = Array.from({length: 3000}, (_, index) => file(`src/f${index}.ts`, 1));
		const cut = buildPacket(input(many, {limitBytes: 16 * 1024}));
		expect(cut.trimmed.at(-1)).toBe('cut');
		expect(cut.text).toMatch(/\[packet cut at 16384 bytes: open the working tree for the rest\]\n$/);
		expect(cut.bytes).toBeLessThanOrEqual(16 * 1024);
	});

	it('never splits a character when it cuts', () => {
		const report = 'é'.repeat(40_000);
		const packet = buildPacket(input([], {limitBytes: 8 * 1024, report: {from: 'stdout', text: report}}));
		expect(packet.text).not.toContain('\uFFFD');
		expect(packet.bytes).toBe(bytes(packet.text));
		expect(packet.bytes).toBeLessThanOrEqual(8 * 1024);
	});

	it.each([
		['test/export.test.ts', true],
		['src/__tests__/a.ts', true],
		['spec/models/user_spec.rb', true],
		['pkg/server_test.go', true],
		['tests/test_export.py', true],
		['src/export.spec.tsx', true],
		['e2e/login.ts', true],
		['src/export.ts', false],
		['src/testing-utils.ts', false],
		['docs/testing.md', false],
	])('tells a test file by its path: %s → %s', (path, isTest) => {
		expect(isTestPath(path)).toBe(isTest);
	});

	it('counts test output lines without a trailing newline, and none in empty output', () => {
		expect(lastLines('a\nb\n')).toEqual({lines: ['a', 'b'], total: 2});
		expect(lastLines('')).toEqual({lines: [], total: 0});
		expect(lastLines('a\r\nb', 1)).toEqual({lines: ['b'], total: 2});
	});
});
