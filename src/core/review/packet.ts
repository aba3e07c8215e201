/** A packet never exceeds this many bytes (docs/review.md, "The packet"). */
export const PACKET_LIMIT_BYTES = 256 * 1024;
/** At most this many lines of test output go into a packet: the last ones, where runners summarise. */
export const TEST_OUTPUT_LINES = 200;

/** One changed file of the task-local diff, in the two shapes the packet can carry it. */
export type DiffFile = {
	readonly path: string;
	/** Its diff with git's three lines of unchanged context. */
	readonly withContext: string;
	/** The same diff without unchanged context (`git diff -U0`). */
	readonly withoutContext: string;
	/** Lines added and removed; null for a binary file. */
	readonly added: number | null;
	readonly removed: number | null;
};

/** Everything a reviewer is given: a packet, not a conversation. */
export type PacketInput = {
	readonly taskId: string;
	readonly title: string | null;
	readonly reviewId: string;
	readonly round: number;
	readonly maxRounds: number;
	/** The brief's path, or null with a note saying what stands in for it; with a path, a note about it (its contract changed). */
	readonly brief: {readonly path: string | null; readonly note: string | null};
	readonly report: {readonly from: string; readonly text: string} | null;
	readonly tests: {
		readonly from: string;
		readonly command: string | null;
		readonly exitCode: number | null;
		readonly output: string;
	} | null;
	readonly diff: {readonly base: string | null; readonly note: string | null; readonly files: readonly DiffFile[]};
	/** What the previous round asked for (round 2 onward), so the reviewer can check it was done. */
	readonly fixesAsked: readonly string[];
	/** The contract's acceptance lines (numbered from 1), what the reviewer judges the work against; absent or [] with no contract. */
	readonly acceptance?: readonly string[];
	/**
	 * The diff's files against the contract's scope (docs/contracts.md, "Scope against the change"):
	 * those outside it, each with why; null when the contract names no paths (nothing to compare).
	 */
	readonly scope?: {readonly outside: readonly {readonly file: string; readonly reason: string}[]} | null;
	readonly limitBytes?: number;
};

/** The trimming steps, in the order they are tried (docs/review.md). */
export const TRIM_ORDER = ['context', 'non-test bodies', 'test bodies', 'report', 'test output', 'cut'] as const;
export type TrimStep = (typeof TRIM_ORDER)[number];

export type Packet = {
	readonly text: string;
	readonly bytes: number;
	/** The steps it took to fit, in order; empty when nothing was trimmed. */
	readonly trimmed: readonly TrimStep[];
	/** Files whose diff was left out, for the reviewer to open in the working tree. */
	readonly listed: readonly string[];
};

const encoder = new TextEncoder();
const byteLength = (text: string): number => encoder.encode(text).length;

/** Test files keep their bodies longest: a reviewer judges a change by its tests first. */
export function isTestPath(path: string): boolean {
	return (
		/(^|\/)(test|tests|__tests__|spec|specs|e2e)\//.test(path) ||
		/\.(test|spec)\.[a-z0-9]+$/i.test(path) ||
		/(^|\/)test_[^/]*\.py$/.test(path) ||
		/_test\.(go|py|rb|exs?)$/.test(path)
	);
}

/** The last `limit` lines of a test run, and how many there were. */
export function lastLines(
	output: string,
	limit = TEST_OUTPUT_LINES,
): {readonly lines: readonly string[]; readonly total: number} {
	const lines = output.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
	if (output === '') return {lines: [], total: 0};
	return {lines: lines.slice(-limit), total: lines.length};
}

const counts = (file: DiffFile): string =>
	file.added === null || file.removed === null ? 'binary' : `+${file.added} −${file.removed}`;

function header(input: PacketInput): string[] {
	return [
		`# Review packet: ${input.taskId}${input.title ? ` “${input.title}”` : ''}`,
		`review ${input.reviewId}, round ${input.round} of at most ${input.maxRounds}`,
		'',
		'Answer with exactly APPROVE, or a numbered list of fixes (1. ..., 2. ...), nothing else.',
		'Any other answer is INVALID and goes to a person.',
		'',
		'## Brief',
		input.brief.path === null ? `none recorded${input.brief.note ? `: ${input.brief.note}` : ''}` : input.brief.path,
		...(input.brief.path !== null && input.brief.note ? [`Note: ${input.brief.note}`] : []),
		'',
	];
}

function scopeSection(scope: PacketInput['scope']): string[] {
	if (!scope) return [];
	if (scope.outside.length === 0) return ['## Scope', "every file the change touched is inside the contract's scope", ''];
	return [
		'## Scope',
		`${scope.outside.length} file${scope.outside.length === 1 ? '' : 's'} the change touched ${scope.outside.length === 1 ? 'is' : 'are'} outside the contract's scope: judge whether that was asked for`,
		...scope.outside.map(item => `- ${item.file}: ${item.reason}`),
		'',
	];
}

function fixesSection(fixes: readonly string[]): string[] {
	if (fixes.length === 0) return [];
	return ['## Fixes asked for in the previous round', ...fixes.map((fix, index) => `${index + 1}. ${fix}`), ''];
}

function reportSection(report: PacketInput['report'], keepBytes: number | null): string[] {
	if (report === null) return ["## Worker's report", 'none recorded', ''];
	let text = report.text.trimEnd();
	let note = '';
	if (keepBytes !== null && byteLength(text) > keepBytes) {
		text = tailBytes(text, keepBytes);
		note = ' (cut to its end to fit the packet)';
	}
	return [`## Worker's report (from ${report.from})${note}`, text, ''];
}

function testsSection(tests: PacketInput['tests'], keepLines: number): string[] {
	if (tests === null) return ['## Test output', 'none: no test command known (give `--test CMD`)', ''];
	const {lines, total} = lastLines(tests.output, keepLines);
	const exit = tests.exitCode === null ? 'exit unknown' : `exit ${tests.exitCode}`;
	const shown = total > lines.length ? `, last ${lines.length} of ${total} lines` : `, ${total} lines`;
	return [`## Test output (${tests.command ?? tests.from}: ${exit}${shown}; from ${tests.from})`, ...lines, ''];
}

function diffHeading(input: PacketInput, isContext: boolean): string[] {
	const files = input.diff.files;
	const added = files.reduce((sum, file) => sum + (file.added ?? 0), 0);
	const removed = files.reduce((sum, file) => sum + (file.removed ?? 0), 0);
	const base = input.diff.base === null ? 'no base revision' : `${input.diff.base.slice(0, 12)} → working tree`;
	const lines = [`## Diff (${base}; ${files.length} file${files.length === 1 ? '' : 's'}, +${added} −${removed})`];
	if (input.diff.note) lines.push(input.diff.note);
	if (!isContext) lines.push('(unchanged context left out to fit the packet)');
	return lines;
}

function listedSection(listed: readonly DiffFile[], limitBytes: number): string[] {
	if (listed.length === 0) return [];
	return [
		'',
		`## Files to open (their diff is left out to keep the packet within ${Math.round(limitBytes / 1024)} KB)`,
		...listed.map(file => `- ${file.path} (${counts(file)})`),
	];
}

const decoder = new TextDecoder();

/** The end of a text that fits in `bytes` (UTF-8), never starting inside a character. */
function tailBytes(text: string, bytes: number): string {
	const encoded = encoder.encode(text);
	if (encoded.length <= bytes) return text;
	let start = encoded.length - Math.max(0, bytes);
	// Continuation bytes are 10xxxxxx: move to the next character's first byte.
	while (start < encoded.length && ((encoded[start] ?? 0) & 0xc0) === 0x80) start += 1;
	return decoder.decode(encoded.subarray(start));
}

/** The start of a text that fits in `bytes` (UTF-8), never ending inside a character. */
function headBytes(text: string, bytes: number): string {
	const encoded = encoder.encode(text);
	if (encoded.length <= bytes) return text;
	let end = Math.max(0, bytes);
	while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end -= 1;
	return decoder.decode(encoded.subarray(0, end));
}

type Shape = {
	isContext: boolean;
	dropped: Set<string>;
	reportBytes: number | null;
	testLines: number;
};

/** The acceptance lines, numbered as accept and send-back --line name them (docs/review.md). */
function acceptanceSection(lines: readonly string[]): string[] {
	if (lines.length === 0) return [];
	return ['## Acceptance lines', ...lines.map((line, index) => `${index + 1}. ${line}`), ''];
}

function render(input: PacketInput, shape: Shape, limitBytes: number): string {
	const kept = input.diff.files.filter(file => !shape.dropped.has(file.path));
	const listed = input.diff.files.filter(file => shape.dropped.has(file.path));
	const lines = [
		...header(input),
		...acceptanceSection(input.acceptance ?? []),
		...scopeSection(input.scope),
		...fixesSection(input.fixesAsked),
		...reportSection(input.report, shape.reportBytes),
		...testsSection(input.tests, shape.testLines),
		...diffHeading(input, shape.isContext),
	];
	if (input.diff.files.length === 0) lines.push('no changes since the base revision');
	for (const file of kept) lines.push((shape.isContext ? file.withContext : file.withoutContext).trimEnd());
	lines.push(...listedSection(listed, limitBytes));
	return `${lines.join('\n')}\n`;
}

/**
 * Builds the packet within its limit. When it does not fit, it is trimmed in this order until it
 * does: unchanged context dropped from every diff; non-test file bodies dropped, largest first,
 * and their paths listed for the reviewer to open; test file bodies likewise; the worker's report
 * cut to its end; the test output cut to its last lines; and, only if all that is not enough
 * (thousands of changed paths), the text cut at the limit with a line saying so.
 */
export function buildPacket(input: PacketInput): Packet {
	const limit = input.limitBytes ?? PACKET_LIMIT_BYTES;
	const shape: Shape = {isContext: true, dropped: new Set(), reportBytes: null, testLines: TEST_OUTPUT_LINES};
	const trimmed: TrimStep[] = [];
	const size = (): number => byteLength(render(input, shape, limit));
	let bytes = size();
	if (bytes > limit && input.diff.files.some(file => file.withContext !== file.withoutContext)) {
		shape.isContext = false;
		trimmed.push('context');
		bytes = size();
	}
	for (const [step, isTest] of [
		['non-test bodies', false],
		['test bodies', true],
	] as const) {
		if (bytes <= limit) break;
		const candidates = input.diff.files
			.filter(file => isTestPath(file.path) === isTest && !shape.dropped.has(file.path))
			.map(file => ({file, size: byteLength(file.withoutContext)}))
			.sort((a, b) => b.size - a.size);
		if (candidates.length === 0) continue;
		trimmed.push(step);
		// Each body dropped saves its size and costs one listed line: estimate, and render to be sure
		// once the estimate fits.
		for (const candidate of candidates) {
			shape.dropped.add(candidate.file.path);
			bytes -= candidate.size - byteLength(`- ${candidate.file.path} (${counts(candidate.file)})\n`);
			if (bytes <= limit) bytes = size();
			if (bytes <= limit) break;
		}
		bytes = size();
	}
	if (bytes > limit && input.report !== null) {
		trimmed.push('report');
		shape.reportBytes = Math.max(0, byteLength(input.report.text) - (bytes - limit) - 256);
		bytes = size();
	}
	if (bytes > limit && input.tests !== null) {
		trimmed.push('test output');
		// Fewer lines each pass, by the overflow over the average line (at least one line a pass).
		const perLine = Math.max(1, byteLength(input.tests.output) / Math.max(1, lastLines(input.tests.output).total));
		while (bytes > limit && shape.testLines > 0) {
			shape.testLines = Math.max(0, shape.testLines - Math.max(1, Math.ceil((bytes - limit) / perLine)));
			bytes = size();
		}
	}
	let text = render(input, shape, limit);
	if (bytes > limit) {
		trimmed.push('cut');
		const marker = `\n[packet cut at ${limit} bytes: open the working tree for the rest]\n`;
		text = headBytes(text, limit - byteLength(marker)) + marker;
		bytes = byteLength(text);
	}
	return {
		text,
		bytes,
		trimmed,
		listed: input.diff.files.filter(file => shape.dropped.has(file.path)).map(file => file.path),
	};
}
