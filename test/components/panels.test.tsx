import {renderToString, Text} from 'ink';
import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';
import {Footer} from '../../components/Footer.tsx';
import {HeldEffectsPanel} from '../../components/HeldEffectsPanel.tsx';
import {HelpPanel} from '../../components/HelpPanel.tsx';
import {LanesPanel} from '../../components/LanesPanel.tsx';
import {NeedsYouPanel} from '../../components/NeedsYouPanel.tsx';
import {ReviewsPanel} from '../../components/ReviewsPanel.tsx';
import {TaskDetail, TaskRow} from '../../components/TaskRow.tsx';
import {TimelinePanel} from '../../components/TimelinePanel.tsx';
import {ThemeContext, useToneColor} from '../../components/theme.ts';
import {applyColors} from '../../src/core/board/palette.ts';
import {TONES} from '../../src/core/board/tone.ts';
import {helpLines} from '../../src/core/board/keymap.ts';
import {queueLines} from '../../src/core/board/panels/needs-you.ts';
import {fitHelp} from '../../src/core/board/screen.ts';
import {selectReviews} from '../../src/core/board/reviews-view.ts';
import {layoutColumns} from '../../src/core/board/row-layout.ts';
import {toRowView} from '../../src/core/board/selectors.ts';
import type {VerdictRecord} from '../../src/core/review/reviews.ts';
import {boardFixtureEvents, FIXED_NOW, foldTasks} from '../helpers/board-fixture.ts';
import {fixtureScreen} from '../helpers/board-state.ts';

const tasks = foldTasks(boardFixtureEvents());

describe('LanesPanel', () => {
	it('shows every lane with its count and every task id', () => {
		const screen = fixtureScreen({width: 100, height: 40});
		const frame = render(<LanesPanel lanes={screen.lanes} selectedId="t-lost" isFocused />).lastFrame() ?? '';
		for (const title of ['RUNNING (3)', 'STALLED (1)', 'LOST (1)', 'UNTRACKED (1)', 'RECENTLY ENDED (3)'])
			expect(frame).toContain(title);
		expect(frame).toContain('› t-lost');
		expect(frame).toMatch(/^ {2}ID +TITLE +STATUS +LAST SEEN +PROGRESS$/m);
		expect(frame).toContain('not reported');
	});

	it('says what the hidden lines hold when the lanes do not fit', () => {
		const screen = fixtureScreen({width: 100, height: 16});
		const frame = render(<LanesPanel lanes={screen.lanes} selectedId={null} isFocused />).lastFrame() ?? '';
		expect(frame).toMatch(/↓ \d+ more: .*RECENTLY ENDED \d/);
	});

	it('writes “none” beside an empty lane', () => {
		const screen = fixtureScreen(
			{width: 100, height: 40},
			{type: 'start-prompt', kind: 'filter'},
			{type: 'prompt-input', text: 'csv'},
			{type: 'prompt-commit'},
		);
		const frame = render(<LanesPanel lanes={screen.lanes} selectedId={null} isFocused />).lastFrame() ?? '';
		expect(frame).toContain('LOST (0)  none');
	});
});

describe('TaskRow', () => {
	it('shows every cell on a wide screen: unknown tokens and PID, no progress', () => {
		// ink-testing-library's stdout is 100 columns; a wide row needs 140 or more.
		const row = toRowView(tasks.get('t-quiet')!, FIXED_NOW);
		const frame = renderToString(<TaskRow row={row} isSelected={false} columns={layoutColumns([row], 160, true, 10)} />, {
			columns: 160,
		});
		expect(frame).toMatch(/write the changelog +wrapper +\S.* 1m ago +not reported +unknown +unknown +unknown$/m);
	});

	it('moves age, tokens and PID to the detail line on a narrow screen', () => {
		const row = toRowView(tasks.get('t-progress')!, FIXED_NOW);
		const narrow = render(<TaskRow row={row} isSelected columns={layoutColumns([row], 80, false, 10)} />).lastFrame() ?? '';
		expect(narrow).not.toContain('4242');
		const detail = render(<TaskDetail row={row} />).lastFrame() ?? '';
		expect(detail).toContain('tokens 1.5k/40M');
		expect(detail).toContain('pid 4242');
		expect(detail).toContain('2/4');
	});

	it('keeps a readable title under 70 columns (a phone page): LAST SEEN goes, a long status is cut', () => {
		const row = toRowView(tasks.get('t-progress')!, FIXED_NOW);
		const at80 = layoutColumns([row], 80, false, 14);
		expect(at80.shown).toContain('seen');
		const at52 = layoutColumns([{...row, status: 'vanished (outcome unknown)'}], 52, false, 14);
		expect(at52.shown).toEqual(['id', 'title', 'status']);
		expect(at52.widths.status).toBe(14);
		// 52 - the marker (2) - id (14 + 1) - status (14 + 1) - the free edge (2)
		expect(at52.widths.title).toBe(18);
		const frame = renderToString(<TaskRow row={row} isSelected={false} columns={at52} />, {columns: 52});
		expect(Math.max(...frame.split('\n').map(line => line.length))).toBeLessThanOrEqual(52);
	});
});

describe('NeedsYouPanel', () => {
	it('lists the queue by lane with the reason', () => {
		const screen = fixtureScreen();
		const frame = render(<NeedsYouPanel queue={screen.queue} width={60} />).lastFrame() ?? '';
		expect(frame).toContain('NEEDS YOU (2)');
		expect(frame).toContain('failed (1)');
		expect(frame).toContain('which branch should I target?');
	});

	it('says so when nothing needs the person', () => {
		const frame = render(
			<NeedsYouPanel
				queue={{lanes: [], lines: [], total: 0, selectedTaskId: null, isFocused: false, height: 4, hint: ''}}
				width={60}
			/>,
		).lastFrame();
		expect(frame).toContain('nothing needs you');
	});

	it('counts what is beyond five a lane', () => {
		const items = Array.from({length: 5}, (_, index) => ({
			taskId: `t-${index}`,
			title: '',
			reason: 'r',
			age: 'waiting 1m',
			at: index,
			lane: 'needs',
			text: `t-${index}  r  1m ago`,
		}));
		const lanes = [{name: 'needs', items, more: 4}];
		const frame = render(
			<NeedsYouPanel
				queue={{lanes, lines: queueLines(lanes, null, 9), total: 9, selectedTaskId: null, isFocused: false, height: 10, hint: ''}}
				width={60}
			/>,
		).lastFrame();
		expect(frame).toContain('+4 more');
	});

	it('says what it left out when its lanes are taller than its rows (a 40×12 board)', () => {
		const item = (lane: string, index: number) => ({
			taskId: `${lane}-${index}`,
			title: '',
			reason: 'r',
			age: 'waiting 1m',
			at: index,
			lane,
			text: `${lane}-${index}  r`,
		});
		const lanes = [
			{name: 'reviews', items: [item('reviews', 0)], more: 0},
			{name: 'needs', items: [item('needs', 0), item('needs', 1)], more: 3},
		];
		const lines = queueLines(lanes, null, 2);
		expect(lines.map(line => line.text)).toEqual(['reviews-0  r', '+5 more: needs 5']);
		expect(queueLines(lanes, null, 3).map(line => line.text)).toEqual(['reviews (1)', 'reviews-0  r', '+5 more: needs 5']);
		// Never a heading at the bottom edge with its entries left out.
		expect(queueLines(lanes, null, 4).map(line => line.text)).toEqual(['reviews (1)', 'reviews-0  r', '+5 more: needs 5']);
		// The entry under the cursor stays in the window.
		const around = queueLines(lanes, 'needs-1', 3).map(line => line.text);
		expect(around).toContain('needs-1  r');
		expect(around.at(-1)).toMatch(/^\+\d+ more: /);
		const frame = render(
			<NeedsYouPanel queue={{lanes, lines, total: 6, selectedTaskId: null, isFocused: false, height: 3, hint: ''}} width={40} />,
		).lastFrame();
		expect(frame).toContain('reviews-0  r');
		expect(frame).toContain('+5 more: needs 5');
		// With no row under its title (Decisions has the focus on a short screen), its title alone.
		expect(queueLines(lanes, null, 0)).toEqual([]);
		const titleOnly = render(
			<NeedsYouPanel
				queue={{lanes, lines: [], total: 6, selectedTaskId: null, isFocused: false, height: 1, hint: ''}}
				width={40}
			/>,
		).lastFrame();
		expect(titleOnly).toBe('NEEDS YOU (6)');
	});
});

describe('Reviews and Held effects panels', () => {
	const verdict = (patch: Partial<VerdictRecord>): VerdictRecord => ({
		taskId: 'w-1',
		reviewId: 'r-1',
		round: 1,
		reviewer: 1,
		command: 'echo APPROVE',
		reviewerTaskId: 'w-r1',
		verdict: 'APPROVE',
		fixes: [],
		reason: null,
		signal: null,
		at: FIXED_NOW - 60_000,
		seq: 1,
		isDisagreement: false,
		...patch,
	});

	it('say plainly when there is nothing yet', () => {
		expect(
			render(<ReviewsPanel reviews={selectReviews([], FIXED_NOW)} width={40} height={3} isCompact={false} />).lastFrame(),
		).toContain('no verdicts yet');
		const none = {lines: [], heldCount: 0, markedCount: 0, isFocused: false, height: 3, hint: ''};
		expect(render(<HeldEffectsPanel effects={none} width={40} isCompact />).lastFrame()).toContain('HELD EFFECTS (0): none');
		expect(render(<HeldEffectsPanel effects={none} width={40} isCompact={false} />).lastFrame()).toContain('nothing held');
	});

	it('shows each verdict with task, round, reviewer and age; INVALID and STOPPED as such; a disagreement labelled', () => {
		const reviews = selectReviews(
			[
				verdict({verdict: 'FIX', fixes: ['a', 'b'], reviewer: 2, command: 'claude -p', round: 2, isDisagreement: true, seq: 4}),
				verdict({verdict: 'APPROVE', round: 2, isDisagreement: true, seq: 3}),
				verdict({taskId: 'w-2', verdict: 'INVALID', reason: 'prose', seq: 2}),
				verdict({taskId: 'w-3', verdict: 'STOPPED', signal: 'SIGTERM', seq: 1}),
			],
			FIXED_NOW,
		);
		const frame = render(<ReviewsPanel reviews={reviews} width={90} height={6} isCompact={false} />).lastFrame() ?? '';
		expect(frame).toContain('REVIEWS (4)');
		expect(frame).toContain('w-1  FIX 2  round 2  #2 claude -p  1m ago  ≠ disagree');
		expect(frame).toContain('w-1  APPROVE  round 2  #1 echo APPROVE  1m ago  ≠ disagree');
		expect(frame).toContain('w-2  INVALID  round 1');
		expect(frame).toContain('w-3  STOPPED SIGTERM  round 1');
		const compact = render(<ReviewsPanel reviews={reviews} width={120} height={1} isCompact />).lastFrame() ?? '';
		expect(compact).toContain('REVIEWS (4) w-1  FIX 2');
		expect(compact).toContain('+3 more');
	});
});

describe('TimelinePanel', () => {
	it('shows the task, its contract and evidence lines, and the events with heartbeats folded', () => {
		const events = boardFixtureEvents().map((event, index) => ({...event, seq: index + 1}));
		const screen = fixtureScreen(
			{width: 100, height: 30},
			{type: 'open-timeline', taskId: 't-stalled', events: events.filter(event => event.taskId === 't-stalled')},
		);
		const frame = render(<TimelinePanel timeline={screen.timeline!} />).lastFrame() ?? '';
		expect(frame).toContain('TIMELINE t-stalled');
		expect(frame).toContain('contract: none recorded');
		expect(frame).toContain('evidence: none recorded');
		expect(frame).toContain('3 heartbeats over 10m');
		expect(frame).toContain('started pid 5151');
	});
});

describe('HelpPanel and Footer', () => {
	it('lists every key of the table', () => {
		const frame = render(<HelpPanel help={fitHelp(helpLines(), 40, 100)} />).lastFrame() ?? '';
		for (const text of [
			'j/↓',
			'enter',
			'esc',
			'PgDn',
			'g/Home',
			'G/End',
			'stop the task',
			'acknowledge',
			'mark or unmark',
			'Held effects',
			'quit',
		])
			expect(frame).toContain(text);
		expect(frame.split('\n').filter(line => line.trimStart().startsWith('j/↓'))).toHaveLength(1);
	});

	it('draws the help bar from the table and shows the confirmation when asked', () => {
		const bar = render(<Footer screen={fixtureScreen()} />).lastFrame() ?? '';
		expect(bar).toContain('j/k move');
		expect(bar).toContain('q quit');
		const confirm =
			render(<Footer screen={fixtureScreen(undefined, {type: 'ask-stop', taskId: 't-progress'})} />).lastFrame() ?? '';
		expect(confirm).toContain('Stop t-progress');
		expect(confirm).toContain('y yes');
	});

	it('keeps the filter in force on the status line, beside a notice', () => {
		const screen = fixtureScreen(
			{width: 60, height: 24},
			{type: 'start-prompt', kind: 'filter'},
			{type: 'prompt-input', text: 'csv'},
			{type: 'prompt-commit'},
			{type: 'notify', notice: {tone: 'warn', text: 's: cannot stop t-quiet: its PID is unknown'}},
		);
		const frame = renderToString(<Footer screen={screen} />, {columns: 60});
		expect(frame.split('\n')[0]).toMatch(/^\/csv \(esc clears\) {2}s: cannot stop/);
	});

	it('gives a refusal wider than the screen both footer lines, so it is read whole at 80 columns', () => {
		const text = 'x: cannot send c-4f2a9b1c0d3e back: it was not started by controlroom run, so there is no command to run again';
		const screen = fixtureScreen({width: 80, height: 24}, {type: 'notify', notice: {tone: 'warn', text}});
		const frame = renderToString(<Footer screen={screen} />, {columns: 80});
		expect(frame.split('\n')).toHaveLength(2);
		expect(frame.replace(/\n/g, ' ').replace(/ +/g, ' ')).toContain(text);
	});
});

describe('the colours in force (the config file’s colors)', () => {
	function ToneProbe() {
		const toneColor = useToneColor();
		return <Text>{TONES.map(tone => `${tone}=${toneColor(tone)}`).join(' ')}</Text>;
	}

	it('draws each tone in the colour the board provides, and in its default without one', () => {
		const palette = applyColors({warn: '#ff8800'});
		if ('problem' in palette) throw new Error(palette.problem);
		const given = render(
			<ThemeContext.Provider value={palette.palette}>
				<ToneProbe />
			</ThemeContext.Provider>,
		).lastFrame();
		expect(given).toContain('warn=#ff8800');
		expect(given).toContain('ok=green');
		expect(render(<ToneProbe />).lastFrame()).toContain('warn=yellow');
	});
});
