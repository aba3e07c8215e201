import {Table} from '@alcalzone/ink-table';
import {render} from 'ink-testing-library';
import {renderToString} from 'ink';
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import {BoardView} from '../../components/BoardView.tsx';
import {CellTable} from '../../components/CellTable.tsx';
import {helpLines} from '../../src/core/board/keymap.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard} from '../../src/core/board/state.ts';
import {trackRecordTable} from '../../src/core/board/effects-view.ts';
import {layoutTable} from '../../src/core/board/table-layout.ts';
import {foldOrders, type OrderEvent} from '../../src/core/effects/fold.ts';
import {EventType, newEvent, type EventDataOf, type EventTypeName, type NewEvent} from '../../src/core/events.ts';
import {computeHumanQueue} from '../../src/core/human-queue.ts';
import {foldTasks} from '../helpers/board-fixture.ts';

// The static tables (docs/board.md, "Static tables") are drawn by ink-table, which pads cells by
// String.length; these frames check that their cells agree with the terminal's cells instead.
const NOW = Date.UTC(2026, 11, 2, 3, 0, 0);
const MIN = 60_000;
const CJK = '日本語のパーサーを直す';
const EMOJI = 'fix 🚀 deploy 👨‍👩‍👧 for 🇯🇵';
const ANSWER = {input: 1234, cacheWrite5m: 100, cacheWrite1h: 0, cacheRead: 50, output: 42, messages: 1};

function ev<T extends EventTypeName>(taskId: string, type: T, minutesAgo: number, data: EventDataOf<T>): NewEvent {
	return newEvent(type, data, {taskId, at: NOW - minutesAgo * MIN, source: 'claude'});
}

function answers(n: number, model: string) {
	return {
		input: n * 1384,
		output: n * 42,
		byModel: {[model]: {...ANSWER, input: n * 1234, cacheWrite5m: n * 100, cacheRead: n * 50, output: n * 42, messages: n}},
	};
}

/** A session (titled in Japanese) with three helpers: one in Japanese, one with emoji, one on a model no table prices. */
function drillDown(width: number, height: number, isHelp = false) {
	const tasks = foldTasks([
		ev('c-1', EventType.registered, 30, {title: CJK, cwd: '/repo/a'}),
		ev('c-1', EventType.agentEvent, 30, {event: 'SessionStart', sessionId: 's-1'}),
		ev('c-1', EventType.agentEvent, 29, {event: 'UserPromptSubmit'}),
		ev('c-1', EventType.tokensReported, 28, answers(2, 'claude-opus-5-5')),
		ev('c-1.a', EventType.registered, 28, {source: 'claude-helper', parentId: 'c-1', title: CJK}),
		ev('c-1.a', EventType.started, 28, {}),
		ev('c-1.a', EventType.tokensReported, 27, answers(2, 'claude-opus-5-5')),
		ev('c-1.a', EventType.ended, 27, {reason: 'SubagentStop'}),
		ev('c-1.b', EventType.registered, 26, {source: 'claude-helper', parentId: 'c-1', title: EMOJI}),
		ev('c-1.b', EventType.started, 26, {}),
		ev('c-1.b', EventType.tokensReported, 1, answers(1, 'claude-haiku-5-5')),
		ev('c-1.c', EventType.registered, 25, {source: 'claude-helper', parentId: 'c-1', title: 'plain helper'}),
		ev('c-1.c', EventType.started, 25, {}),
		ev('c-1.c', EventType.tokensReported, 2, answers(3, 'claude-new-9')),
	]);
	const queue = computeHumanQueue({signals: [], acknowledgedAt: new Map(), successes: [], taskKeys: new Map()});
	const read = reduceBoard(initialBoardState(), {
		type: 'ledger-read',
		tasks: [...tasks.values()],
		queue,
		lastSeq: 20,
		isFull: true,
	});
	const state = reduceBoard(read, isHelp ? {type: 'toggle-help'} : {type: 'open-timeline', taskId: 'c-1', events: []});
	return selectScreen(state, NOW, {width, height});
}

/** The terminal column at which `needle` starts in `line`. */
function cellColumn(line: string, needle: string | RegExp): number {
	const index = typeof needle === 'string' ? line.indexOf(needle) : line.search(needle);
	expect(index, `${String(needle)} in ${line}`).toBeGreaterThanOrEqual(0);
	return stringWidth(line.slice(0, index));
}

/** The lines of the table under `title`: its heading, then its rows, up to the next blank-started line. */
function tableUnder(frame: string, title: string): string[] {
	const lines = frame.split('\n');
	const start = lines.findIndex(line => line.startsWith(title));
	expect(start, frame).toBeGreaterThanOrEqual(0);
	const rest = lines.slice(start + 1);
	const end = rest.findIndex(line => !line.startsWith(' ') || /^ +\+\d+ more$/.test(line));
	return end < 0 ? rest : rest.slice(0, end);
}

function frameAt(width: number, height: number): string {
	const screen = drillDown(width, height);
	return width === 100
		? (render(<BoardView screen={screen} />).lastFrame() ?? '')
		: renderToString(<BoardView screen={screen} />, {columns: width});
}

describe('the drill-down spend tables keep their columns with Japanese and emoji', () => {
	for (const [width, height] of [
		[160, 45],
		[100, 34],
		[80, 24],
	] as const) {
		it(`at ${width}×${height}`, () => {
			const frame = frameAt(width, height);
			expect(frame.split('\n').length, frame).toBeLessThanOrEqual(height);
			for (const line of frame.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(width);

			const [heading = '', ...helpers] = tableUnder(frame, 'spend by helper:');
			expect(heading).toMatch(/^ ID +TITLE +STATUS +TOKENS +COST$/);
			// The task's own row first, then its helpers in the order they started; at 80×24 three rows and `+1 more`.
			const ids = ['c-1', 'c-1.a', 'c-1.b', 'c-1.c'].slice(0, height < 30 ? 3 : 4);
			expect(helpers.map(line => /c-1(\.\w)?/.exec(line)?.[0])).toEqual(ids);
			if (height < 30) expect(frame).toMatch(/^ +\+1 more$/m);
			const titleAt = cellColumn(heading, 'TITLE');
			const statusAt = cellColumn(heading, 'STATUS');
			for (const line of helpers) {
				expect(stringWidth(line), line).toBe(stringWidth(heading));
				expect(cellColumn(line, /(?<=c-1(\.\w)? +)\S/), line).toBe(titleAt);
				expect(cellColumn(line, /(running|done|active)/), line).toBe(statusAt);
			}
			// Ink drops the spaces at the end of a line: each line ends where the heading's right-aligned COST ends.
			// Each helper's own cost; the one on an unpriced model is unknown, never 0.
			if (height >= 30) expect(helpers.find(line => line.includes('c-1.c'))).toMatch(/ 4\.3k +unknown$/);
			expect(helpers.find(line => line.includes('c-1.a'))).toMatch(/\$\d\.\d+$/);
			// Whole titles, even at 80 columns (76 cells: the table is as wide as its cells).
			expect(helpers.find(line => line.includes('c-1.a'))).toContain(CJK);
			expect(helpers.find(line => line.includes('c-1.b'))).toContain(EMOJI);

			const [modelHeading = '', ...models] = tableUnder(frame, 'spend by model:');
			expect(modelHeading).toMatch(/^ MODEL +ANSWERS +INPUT +CACHE WRITE +CACHE READ +OUTPUT +COST$/);
			expect(models.map(line => line.trim().split(/ +/)[0])).toEqual(['claude-haiku-5-5', 'claude-new-9', 'claude-opus-5-5']);
			const answersEnd = cellColumn(modelHeading, /(?<=ANSWERS)/);
			for (const line of models) {
				expect(stringWidth(line), line).toBe(stringWidth(modelHeading));
				expect(cellColumn(line, /(?<=^ \S+ +\d+)(?= )/), line).toBe(answersEnd);
			}
			// Four answers of Opus in the tree (the session's two and helper a's two), 4 × 1234 in.
			expect(models.find(line => line.includes('claude-opus'))).toMatch(/ 4 +4\.9k +400 +200 +168 +\$/);
			expect(models.find(line => line.includes('claude-new-9'))).toMatch(/ unknown$/);
		});
	}
});

describe('CellTable against the plain ink-table', () => {
	const rows = [
		['a', CJK, 'done'],
		['b', EMOJI, 'running'],
		['c', 'plain', 'done'],
	];
	const statusColumns = (frame: string) =>
		frame
			.split('\n')
			.filter(line => /\b(done|running)\b/.test(line))
			.map(line => cellColumn(line, /\b(done|running)\b/));

	it('puts the column after a Japanese or emoji cell where its heading is; ink-table alone does not', () => {
		const table = layoutTable([{heading: 'ID'}, {heading: 'TITLE', grows: true}, {heading: 'STATUS'}], rows, 160);
		const fitted = statusColumns(renderToString(<CellTable table={table} />, {columns: 160}));
		expect(new Set(fitted).size).toBe(1);
		const data = rows.map(([id = '', title = '', status = '']) => ({ID: id, TITLE: title, STATUS: status}));
		const plain = statusColumns(renderToString(<Table data={data} />, {columns: 160}));
		// String.length: the Japanese title (11 characters, 22 cells) pushes its status 11 cells right.
		expect(new Set(plain).size).toBeGreaterThan(1);
	});

	it('fits a table to the width it is given, cutting the growing column with …', () => {
		const table = layoutTable([{heading: 'ID'}, {heading: 'TITLE', grows: true}, {heading: 'STATUS'}], rows, 24);
		const frame = renderToString(<CellTable table={table} />, {columns: 80});
		for (const line of frame.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(24);
		expect(new Set(statusColumns(frame)).size).toBe(1);
		expect(frame).toMatch(/日本語.*…/);
	});
});

describe("the help overlay's key table", () => {
	for (const [width, height] of [
		[160, 45],
		[80, 24],
	] as const) {
		it(`lines every key's words up in one column at ${width}×${height}`, () => {
			const frame = renderToString(<BoardView screen={drillDown(width, height, true)} />, {columns: width});
			const keys = new Set(helpLines().map(line => line.keys));
			const rows = frame.split('\n').filter(line => keys.has(line.trim().split(/ {2,}/)[0] ?? ''));
			// At 80×24 help is a window that scrolls: what a key does wraps, so fewer keys show at once.
			expect(rows.length, frame).toBeGreaterThan(width >= 160 ? 15 : 8);
			// A description's next lines start where its first did.
			const wrapped = frame.split('\n').filter(line => /^ {6,}\S/.test(line) && !line.includes('lines '));
			const starts = new Set([
				...rows.map(line => cellColumn(line, /(?<=^ \S+ +)\S/)),
				...wrapped.map(line => cellColumn(line, /\S/)),
			]);
			expect(starts.size, frame).toBe(1);
			for (const line of frame.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(width);
			if (width >= 160)
				expect(cellColumn(frame.split('\n').find(line => line.includes('WHAT IT DOES')) ?? '', 'WHAT IT DOES')).toBe(
					[...starts][0],
				);
		});
	}
});

describe("the worker's track record", () => {
	it('is a table whose figures sit under their headings, for a worker named in Japanese, at 160 and 80 columns', () => {
		const worker = '作業者-🚀';
		const order = (id: string, seq: number, type: OrderEvent['type'], data: Record<string, unknown>): OrderEvent =>
			({...newEvent(type, data as never, {taskId: id, at: NOW - 10 * MIN + seq, source: 'gateway'}), seq}) as OrderEvent;
		const records = [
			...foldOrders([
				order('o-1', 1, 'order.opened', {
					worker,
					budgetCalls: 10,
					expiresMs: 60_000,
					file: '/o.yaml',
					digest: 'd',
					workerTask: 't-1',
				}),
				order('o-2', 2, 'order.opened', {
					worker,
					budgetCalls: 5,
					expiresMs: 60_000,
					file: '/p.yaml',
					digest: 'e',
					workerTask: 't-2',
				}),
			]).values(),
		];
		for (const width of [160, 80]) {
			const table = trackRecordTable({records, deadApprovers: []}, 'o-1', new Map(), NOW, width);
			expect(table).not.toBeNull();
			const frame = renderToString(<CellTable table={table!} />, {columns: width});
			const [heading = '', row = ''] = frame.split('\n');
			expect(heading).toMatch(/^ WORKER +ORDERS +APPROVED +REWORK +FAILED +EXPIRED +REFUSED +CALLS +TOKENS$/);
			expect(row).toContain(worker);
			// Right-aligned figures: each ends where its heading ends; the row is as wide as the heading.
			expect(cellColumn(row, /(?<=🚀 +2)(?= )/)).toBe(cellColumn(heading, /(?<=ORDERS)/));
			expect(cellColumn(row, /(?<= 0\/15)(?= )/)).toBe(cellColumn(heading, /(?<=CALLS)/));
			expect(stringWidth(row)).toBe(stringWidth(heading));
		}
	});
});
