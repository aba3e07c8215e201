import {renderToString} from 'ink';
import {render} from 'ink-testing-library';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {App, type BoardAdapters} from '../../components/App.tsx';
import {BoardView} from '../../components/BoardView.tsx';
import {ClockProvider} from '../../components/ClockProvider.tsx';
import {cellWidth} from '../../src/core/cell-width.ts';
import {argsHash} from '../../src/core/decisions/args-hash.ts';
import {foldDecisions, type DecisionEvent, type DecisionRecord} from '../../src/core/decisions/fold.ts';
import {questionLines} from '../../src/core/board/decisions-view.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard, type BoardState} from '../../src/core/board/state.ts';
import {EventType, newEvent} from '../../src/core/events.ts';
import {askDecision, type DecisionQuestion} from '../../src/gates/decisions.ts';
import {createBoardFeed} from '../../src/ledger/board-feed.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {boardFixtureEvents, FIXED_NOW} from '../helpers/board-fixture.ts';
import {scratchDir} from '../helpers/cli.ts';
import {KEYS, waitForFrame, waitForKeys} from '../helpers/keys.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// The board's Decisions panel and its drill-in (docs/decisions.md, "The board"): every open
// question listed with agent, tool and arguments, terminal-safe and cut to the panel; Enter shows
// one whole; `a` shows it whole again before `y` allows it; a budget asks for +N tokens.

const SEC = 1000;
/** Escape codes, an OSC 8 link, a bell, NUL and an 8-bit CSI, in a value and in a key. */
const HOSTILE_COMMAND =
	'echo \u001b]0;pwned\u0007 \u001b]8;;https://evil.example/\u001b\\click me\u001b]8;;\u001b\\ \u0000nul \u009b31m red';
const HOSTILE = {command: HOSTILE_COMMAND, '\u001b[2Jkey': 'cleared?'};
/** A 100 KB command whose end says so. */
const HUGE = {command: `${'x'.repeat(100_000)} END-OF-COMMAND`};

function question(over: Partial<DecisionQuestion> & Pick<DecisionQuestion, 'taskId' | 'tool' | 'args'>): DecisionQuestion {
	return {
		kind: 'deferred',
		agent: 'claude',
		cwd: '/srv/project',
		expiresAt: null,
		toolUseId: 'toolu_01',
		session: 'sess-1',
		waiter: null,
		budget: null,
		source: 'wrapper',
		...over,
	};
}

const QUESTIONS: DecisionQuestion[] = [
	question({taskId: 't-quiet', tool: 'Bash', args: HOSTILE, kind: 'permission', expiresAt: FIXED_NOW + 600 * SEC}),
	question({taskId: 't-progress', tool: 'Bash', args: HUGE}),
	question({
		taskId: 't-queued',
		tool: 'Bash',
		args: {command: 'echo turn3 >> turns.txt'},
		kind: 'budget',
		budget: {spent: 36_576, budget: 30_000, perTurn: 12_192},
	}),
];

/** The questions as the feed folds them, asked 30, 20 and 10 seconds before FIXED_NOW. */
function folded(): DecisionRecord[] {
	const events = QUESTIONS.map(
		(each, index) =>
			({
				...newEvent(
					EventType.decisionAsked,
					{
						decisionId: `d-00000000000${index + 1}`,
						kind: each.kind,
						agent: each.agent,
						tool: each.tool,
						args: each.args,
						argsHash: argsHash(each.args),
						cwd: each.cwd,
						expiresAt: each.expiresAt,
						toolUseId: each.toolUseId,
						session: each.session,
						waiter: each.waiter,
						budget: each.budget,
					},
					{taskId: each.taskId, at: FIXED_NOW - (3 - index) * 10 * SEC, source: each.source},
				),
				seq: index + 1,
			}) as DecisionEvent,
	);
	return [...foldDecisions(events).values()];
}

function boardWithQuestions(): BoardState {
	return reduceBoard(initialBoardState(), {
		type: 'ledger-read',
		tasks: [],
		queue: {lanes: [], total: 0},
		lastSeq: 3,
		isFull: true,
		decisions: folded(),
	});
}

const frameOf = (state: BoardState, width: number, height: number): string =>
	renderToString(<BoardView screen={selectScreen(state, FIXED_NOW, {width, height})} />, {columns: width});

/** Nothing a terminal would act on: no ESC, BEL, NUL or 8-bit CSI reached the frame. */
function expectInert(frame: string): void {
	for (const raw of ['\u001b', '\u0007', '\u0000', '\u009b']) expect(frame.includes(raw), JSON.stringify(raw)).toBe(false);
}

describe('the Decisions panel, drawn', () => {
	it.each([
		[160, 45],
		[80, 24],
	])(
		'at %ix%i lists every open question oldest first, with agent, tool, arguments and waited time, each line inside the width',
		(width, height) => {
			const frame = frameOf(boardWithQuestions(), width, height);
			const lines = frame.split('\n');
			const panel = lines.findIndex(line => line.startsWith('DECISIONS (3)'));
			expect(panel, frame).toBeGreaterThan(0);
			const rows = lines.slice(panel + 1, panel + 4);
			expect(rows[0]).toMatch(/^ {3}d-000000000001 {2}30s {2}claude \(permission\) {2}Bash command="echo \\u001b\]0;pwned/);
			expect(rows[1]).toMatch(/d-000000000002 {2}20s {2}claude \(deferred\) {2}Bash command="xxxx/);
			expect(rows[2]).toContain('d-000000000003  10s  claude (budget)  budget: 36576 spent');
			if (width >= 160) {
				expect(rows[0]).toContain('\\u001b]8;;https://ev… \\e[2Jkey="cleared?"  · t-quiet');
				expect(rows[2]).toContain(
					'budget: 36576 spent of 30000, 12192 a turn; held Bash command="echo turn3 >> turns.txt"  · t-queued',
				);
			}
			for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(width);
			expect(frame).not.toContain('END-OF-COMMAND');
			expectInert(frame);
		},
	);

	it('is not drawn while no question is open', () => {
		const state = reduceBoard(boardWithQuestions(), {
			type: 'ledger-read',
			tasks: [],
			queue: {lanes: [], total: 0},
			lastSeq: 4,
			isFull: false,
			decisions: [],
		});
		expect(frameOf(state, 160, 45)).not.toContain('DECISIONS');
	});

	it.each([160, 80])(
		'shows a question whole on drill-in at %i columns: every argument, its SHA-256, kind, times, task and session',
		width => {
			const state = reduceBoard(boardWithQuestions(), {type: 'open-question', id: 'd-000000000001'});
			const frame = frameOf(state, width, 45);
			const joined = frame
				.split('\n')
				.map(line => line.trim())
				.join('');
			expect(frame).toContain('QUESTION d-000000000001');
			expect(frame).toContain('permission question from claude');
			expect(frame).toMatch(/asked at {3}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC {2}\(waited 30s\)/);
			expect(frame).toMatch(/expires {4}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in 10m\)/);
			expect(frame).toContain('task       t-quiet');
			expect(frame).toContain('session    sess-1');
			expect(joined).toContain(argsHash(HOSTILE));
			// Every argument whole, escaped: the value as JSON, the key made visible.
			expect(joined).toContain(`command = ${JSON.stringify(HOSTILE_COMMAND).replace('\u009b', '\\u009b')}`);
			expect(joined).toContain('\\e[2Jkey = "cleared?"');
			expectInert(frame);
		},
	);

	it('shows a 100 KB command whole, every character, scrolled; y waits until every line was on screen', () => {
		const [, huge] = folded();
		const lines = questionLines(huge as DecisionRecord, FIXED_NOW, 160);
		expect(lines.join('').replace(/\s+/g, '')).toContain(`"${'x'.repeat(100_000)}END-OF-COMMAND"`);
		const state = reduceBoard(boardWithQuestions(), {type: 'ask-allow', id: 'd-000000000002'});
		const screen = selectScreen(state, FIXED_NOW, {width: 160, height: 45});
		expect(screen.question?.scrollMax).toBeGreaterThan(600);
		expect(screen.confirm).toMatch(/^Allow d-000000000002\? Read it whole first: j or PgDn shows the rest \(\d+ more lines\)/);
		const scrolled = reduceBoard(state, {type: 'scroll-to', edge: 'last', max: screen.question?.scrollMax ?? 0});
		const end = selectScreen(scrolled, FIXED_NOW, {width: 160, height: 45});
		expect(end.question?.lines.join('').replace(/\s+/g, '')).toContain('END-OF-COMMAND"');
		expect(end.confirm).toBe('Allow d-000000000002 exactly as shown above? y allows this call once, n cancels');
	});
});

const open: {ledger: Ledger; unmount: () => void}[] = [];
afterEach(() => {
	for (const item of open.splice(0)) {
		item.unmount();
		item.ledger.close();
	}
});

type Answer = {id: string; answer: 'allow' | 'deny'; reason: string | null; headroom: number | undefined};

/**
 * The board on a ledger holding the three questions; its decide adapter records each answer and
 * writes it as the gate does once it found a person (the gate's own check needs a real terminal,
 * and is tested with the board in tmux).
 */
async function renderBoard(): Promise<ReturnType<typeof render> & {ledger: Ledger; answers: Answer[]; ids: string[]}> {
	const ledger = openLedger(join(scratchDir('cr-decisions-'), 'ledger.db'));
	const now = Date.now();
	ledger.writer.append(boardFixtureEvents(now));
	const ids = QUESTIONS.map(
		(each, index) =>
			askDecision(ledger, {
				...each,
				at: now - (3 - index) * 10 * SEC,
				expiresAt: each.expiresAt === null ? null : now + 600 * SEC,
			}).decisionId,
	);
	const answers: Answer[] = [];
	const adapters: BoardAdapters = {
		feed: createBoardFeed(ledger),
		ledgerFiles: [ledger.path, `${ledger.path}-wal`],
		spoolDir: null,
		options: {},
		decide: (id, answer, reason, headroom) => {
			answers.push({id, answer, reason, headroom});
			ledger.writer.append([
				{
					taskId: 'w-any',
					type: EventType.decisionAnswered,
					at: Date.now(),
					source: 'board',
					data: {decisionId: id, answer, reason, by: 'tester', argsHash: '', headroom: headroom ?? null},
				},
			]);
			return Promise.resolve({isAnswered: true, message: `${answer === 'allow' ? 'allowed' : 'denied'} ${id}`});
		},
	};
	const instance = render(
		<ClockProvider intervalMs={1000}>
			<App adapters={adapters} />
		</ClockProvider>,
	);
	open.push({ledger, unmount: instance.unmount});
	await waitForFrame(instance, 'DECISIONS (3)');
	await waitForKeys(instance);
	return {...instance, ledger, answers, ids};
}

/** Tab from the lanes to the Decisions panel: Needs you, Held effects, Decisions. */
async function focusDecisions(board: Awaited<ReturnType<typeof renderBoard>>): Promise<void> {
	board.stdin.write(KEYS.tab);
	await waitForFrame(board, 'k acknowledges');
	board.stdin.write(KEYS.tab);
	await waitForFrame(board, 'a approve  space mark');
	board.stdin.write(KEYS.tab);
	await waitForFrame(board, 'enter shows it whole, a allows, x denies');
}

describe('answering from the Decisions panel', () => {
	it('a shows the call whole before y allows it; n cancels and nothing is allowed', async () => {
		const board = await renderBoard();
		await focusDecisions(board);
		board.stdin.write('a');
		await waitForFrame(board, `ALLOW ${board.ids[0]}: the agent runs exactly this call, once`);
		expect(board.lastFrame()).toContain('command = "echo \\u001b]0;pwned');
		await waitForFrame(board, `Allow ${board.ids[0]} exactly as shown above? y allows this call once, n cancels`);
		board.stdin.write('n');
		await waitForFrame(board, `a: cancelled; ${board.ids[0]} still waits, nothing was allowed`);
		expect(board.answers).toEqual([]);
		board.stdin.write('a');
		await waitForFrame(board, 'exactly as shown above?');
		board.stdin.write('y');
		await waitForFrame(board, `allowed ${board.ids[0]}`);
		expect(board.answers).toEqual([{id: board.ids[0], answer: 'allow', reason: null, headroom: undefined}]);
		// Answered, it leaves the panel at the next read.
		await waitForFrame(board, 'DECISIONS (2)');
	});

	it('Enter shows a question whole, Enter again its task; a from the drill-in still asks first', async () => {
		const board = await renderBoard();
		await focusDecisions(board);
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, `QUESTION ${board.ids[0]}`);
		await waitForFrame(board, 'sha-256');
		board.stdin.write(KEYS.escape);
		await waitForFrame(board, 'enter shows it whole, a allows, x denies');
		board.stdin.write('j');
		await waitForFrame(board, `› ${board.ids[1]}`);
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, `QUESTION ${board.ids[1]}`);
		board.stdin.write('a');
		await waitForFrame(board, 'Read it whole first');
		const more = Number(/\((\d+) more lines\)/.exec(board.lastFrame() ?? '')?.[1]);
		// y before the whole call was on screen allows nothing; the question says how much is left.
		board.stdin.write('y');
		board.stdin.write('j');
		await waitForFrame(board, `(${more - 1} more lines)`);
		expect(board.answers).toEqual([]);
		board.stdin.write('n');
		await waitForFrame(board, `QUESTION ${board.ids[1]}`);
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, 'TIMELINE t-progress');
	});

	it('x denies with the reason typed; an empty reason denies nothing', async () => {
		const board = await renderBoard();
		await focusDecisions(board);
		board.stdin.write('x');
		await waitForFrame(board, `deny ${board.ids[0]} — reason the agent reads`);
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, 'x: not denied: a reason is required');
		board.stdin.write('x');
		await waitForFrame(board, `deny ${board.ids[0]}`);
		board.stdin.write('not in this folder');
		await waitForFrame(board, 'not in this folder');
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, `denied ${board.ids[0]}`);
		expect(board.answers).toEqual([{id: board.ids[0], answer: 'deny', reason: 'not in this folder', headroom: undefined}]);
	});

	it('a on a budget question asks for +N tokens, showing the spend and a default, and answers with it', async () => {
		const board = await renderBoard();
		await focusDecisions(board);
		board.stdin.write('j');
		board.stdin.write('j');
		await waitForFrame(board, `› ${board.ids[2]}`);
		board.stdin.write('a');
		// 6576 over, and two turns of 12192: 30960, to the next thousand
		await waitForFrame(board, 'spent of 30000, 12192 a turn; tokens to add (enter alone: +31000, esc cancels)');
		board.stdin.write('lots');
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, "a: not allowed: expected a whole number of tokens above 0 (+20000), got 'lots'");
		board.stdin.write('a');
		await waitForFrame(board, 'tokens to add');
		board.stdin.write('+20000');
		await waitForFrame(board, '+20000');
		board.stdin.write(KEYS.enter);
		await waitForFrame(board, `allowed ${board.ids[2]}`);
		expect(board.answers).toEqual([{id: board.ids[2], answer: 'allow', reason: null, headroom: 20_000}]);
		await waitFor(() => board.lastFrame()?.includes('DECISIONS (2)'), {
			what: 'the budget question to leave the panel',
			on: [onLedgerChange(board.ledger.path)],
			explain: () => board.lastFrame() ?? '',
		});
	});
});
