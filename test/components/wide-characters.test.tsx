import {join} from 'node:path';
import {render} from 'ink-testing-library';
import {renderToString} from 'ink';
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import {BoardView} from '../../components/BoardView.tsx';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard} from '../../src/core/board/state.ts';
import {cellWidth, cutCells, fitCells} from '../../src/core/cell-width.ts';
import {EventType, newEvent, type NewEvent} from '../../src/core/events.ts';
import {computeHumanQueue} from '../../src/core/human-queue.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {FIXED_NOW, foldTasks} from '../helpers/board-fixture.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';

// Titles as people write them: Japanese, emoji (one a ZWJ family, one a flag), combining accents,
// and an ASCII one to compare against. Each takes more or fewer cells than it has characters.
const TITLES = [
	'日本語のパーサーを直す',
	'fix 🚀 deploy 👨‍👩‍👧 for 🇯🇵',
	'naïve cafe\u0301 résumé',
	'plain ascii title',
	'長いタイトル：データベースの移行スクリプトを書き直して、全部のテストを通す、それから文書も更新する',
];
const MIN = 60_000;

function events(now: number): NewEvent[] {
	return TITLES.flatMap((title, index) => [
		newEvent(
			EventType.registered,
			{title, cwd: `/repo/${index}`},
			{taskId: `t-w${index}`, at: now - (10 + index) * MIN, source: 'wrapper'},
		),
		newEvent(
			EventType.started,
			{pid: 40_000 + index, pgid: 40_000 + index},
			{taskId: `t-w${index}`, at: now - (10 + index) * MIN, source: 'wrapper'},
		),
		// The agent wrote output a minute ago (its own sign of life: a bare heartbeat is not one).
		newEvent(EventType.heartbeat, {outputAt: now - MIN}, {taskId: `t-w${index}`, at: now - MIN, source: 'wrapper'}),
	]);
}

function screenAt(width: number, height: number) {
	const tasks = foldTasks(events(FIXED_NOW));
	const queue = computeHumanQueue({signals: [], acknowledgedAt: new Map(), successes: [], taskKeys: new Map()});
	const state = reduceBoard(initialBoardState(), {
		type: 'ledger-read',
		tasks: [...tasks.values()],
		queue,
		lastSeq: 15,
		isFull: true,
	});
	return selectScreen(state, FIXED_NOW, {width, height});
}

/** The terminal column at which `needle` starts in `line`: the cells of what comes before it. */
function cellColumn(line: string, needle: string | RegExp): number {
	const index = typeof needle === 'string' ? line.indexOf(needle) : line.search(needle);
	expect(index, `${String(needle)} in ${line}`).toBeGreaterThanOrEqual(0);
	return stringWidth(line.slice(0, index));
}

function taskLines(frame: string): string[] {
	return frame.split('\n').filter(line => /^[› ] t-w\d/.test(line));
}

describe('cell widths', () => {
	it('measures wide characters and emoji as terminals draw them, and fits text to an exact width', () => {
		expect(cellWidth('日本語')).toBe(6);
		expect(cellWidth('👨‍👩‍👧')).toBe(2);
		expect(cellWidth('🇯🇵')).toBe(2);
		expect(cellWidth('cafe\u0301')).toBe(4);
		for (const title of TITLES)
			for (const width of [1, 5, 9, 12, 40]) expect(cellWidth(fitCells(title, width)), `${title} at ${width}`).toBe(width);
		// A wide character that would straddle the edge gives way: nothing is cut in half.
		expect(fitCells('日本語', 4)).toBe('日… ');
		expect(cutCells('日本語のパーサー', 7)).toBe('日本語…');
		expect(fitCells('👨‍👩‍👧 family', 3)).toBe('👨‍👩‍👧…');
	});
});

describe('rows with wide characters keep every column where its heading is', () => {
	for (const [width, height] of [
		[160, 45],
		[100, 34],
		[80, 24],
	] as const) {
		it(`at ${width}×${height}, in the rendered frame`, () => {
			const screen = screenAt(width, height);
			const frame =
				width === 100
					? (render(<BoardView screen={screen} />).lastFrame() ?? '')
					: renderToString(<BoardView screen={screen} />, {columns: width});
			const headings = frame.split('\n').find(line => /^ {2}ID +TITLE/.test(line)) ?? '';
			expect(headings, frame).not.toBe('');
			const rows = taskLines(frame);
			expect(rows).toHaveLength(TITLES.length);
			const statusAt = cellColumn(headings, 'STATUS');
			const seenAt = cellColumn(headings, 'LAST SEEN');
			for (const line of rows) {
				expect(stringWidth(line), line).toBeLessThanOrEqual(width);
				expect(cellColumn(line, 'running/active'), line).toBe(statusAt);
				expect(cellColumn(line, / 1m ago/) + 1, line).toBe(seenAt);
			}
			if (width >= 140) {
				const pidAt = cellColumn(headings, 'PID');
				for (const [index, line] of rows.entries()) {
					// The PID is whole, under its heading, at the end of the row.
					const pid = String(40_000 + Number(/t-w(\d)/.exec(line)?.[1] ?? index));
					expect(cellColumn(line, new RegExp(`${pid}$`)), line).toBe(pidAt);
				}
			}
			// The long title is cut with … and nothing after it moved.
			expect(rows.find(line => line.includes('t-w4'))).toMatch(/長いタイトル.*… /);
		});
	}
});

describe('snapshot text with wide characters', () => {
	it('keeps every column under its heading, cuts long titles with …, and counts what the lanes hold', () => {
		const db = join(scratchDir(), 'ledger.db');
		const ledger = openLedger(db);
		try {
			ledger.writer.append(events(Date.now()));
		} finally {
			ledger.close();
		}
		const text = runCli(['snapshot', '--ledger', db]).stdout;
		const lines = text.split('\n');
		expect(lines[1]).toBe('running 5 · stalled 0 · lost 0 · untracked 0 · ended 0 · needs you 0');
		expect(lines).toContain('RUNNING (5)');
		const headings =
			lines.find(line => /^ {2}ID +TITLE +SOURCE +STATUS +AGE +LAST SEEN +PROGRESS +TOKENS +COST +PID$/.test(line)) ?? '';
		expect(headings, text).not.toBe('');
		const rows = lines.filter(line => /^ {2}t-w\d/.test(line));
		expect(rows).toHaveLength(TITLES.length);
		for (const line of rows) {
			expect(stringWidth(line)).toBeLessThanOrEqual(160);
			for (const heading of ['SOURCE', 'STATUS', 'AGE', 'LAST SEEN', 'PROGRESS', 'TOKENS', 'PID']) {
				const cell =
					heading === 'SOURCE'
						? 'wrapper'
						: heading === 'STATUS'
							? 'running/active'
							: heading === 'PROGRESS'
								? 'not reported'
								: heading === 'TOKENS'
									? 'unknown'
									: null;
				if (cell !== null) expect(cellColumn(line, ` ${cell}`) + 1, `${heading}: ${line}`).toBe(cellColumn(headings, heading));
			}
			expect(cellColumn(line, /\d{5}$/), line).toBe(cellColumn(headings, 'PID'));
		}
		for (const title of TITLES.slice(0, 4)) expect(text).toContain(title);
		expect(rows.find(line => line.includes('t-w4'))).toMatch(/長いタイトル.*… /);
	});
});
