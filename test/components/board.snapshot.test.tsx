import {renderToString} from 'ink';
import {render} from 'ink-testing-library';
import {expect, it} from 'vitest';
import {BoardView} from '../../components/BoardView.tsx';
import stringWidth from 'string-width';
import {helpLines} from '../../src/core/board/keymap.ts';
import {fixtureScreen} from '../helpers/board-state.ts';

/** The whole board drawn at a terminal's size; the fixture's clock is fixed, so every digit stays put. */
function drawn(width: number, height: number): string {
	return renderToString(<BoardView screen={fixtureScreen({width, height})} />, {columns: width});
}

// The layout regression net (docs/board.md, "Tests and bench"): the whole board at a fixed now.
it('draws the full board at 100 columns the same way every time', () => {
	const {lastFrame} = render(<BoardView screen={fixtureScreen({width: 100, height: 34})} />);
	expect((lastFrame() ?? '').replace(/\d/g, '0')).toMatchSnapshot();
});

it('draws the full board at 80×24 the same way every time', () => {
	expect(drawn(80, 24)).toMatchSnapshot();
});

it('draws the full board at 160×45 the same way every time', () => {
	expect(drawn(160, 45)).toMatchSnapshot();
});

it('fits 80×24: every lane, Needs you, the detail line and the help bar in 24 lines of at most 80 columns', () => {
	const frame = renderToString(<BoardView screen={fixtureScreen({width: 80, height: 24})} />, {columns: 80});
	const lines = frame.split('\n');
	expect(lines.length).toBeLessThanOrEqual(24);
	expect(Math.max(...lines.map(line => [...line].length))).toBeLessThanOrEqual(80);
	for (const text of ['RUNNING (3)', 'NEEDS YOU (2)', '↳ ', 'sort: newest', '? help', 'q quit']) expect(frame).toContain(text);
	// What the window cannot show is named, lane by lane.
	expect(frame).toMatch(/↓ \d+ more: .*RECENTLY ENDED \d/);
});

it('reflows when the terminal grows: wide rows carry tokens and PID inline', () => {
	const frame = renderToString(<BoardView screen={fixtureScreen({width: 160, height: 45})} />, {columns: 160});
	expect(frame).toMatch(/^ {2}ID +TITLE +SOURCE +STATUS +AGE +LAST SEEN +PROGRESS +TOKENS +COST +PID$/m);
	expect(frame).toMatch(/ 1\.5k\/40M +unknown +4242$/m);
	expect(frame).not.toContain('↳ ');
	for (const lane of ['STALLED (1)', 'LOST (1)', 'UNTRACKED (1)', 'RECENTLY ENDED (3)']) expect(frame).toContain(lane);
});

/** `?` help drawn at a size, scrolled `scroll` lines down. */
function helpFrame(width: number, height: number, scroll = 0): string {
	const actions = [{type: 'toggle-help'} as const, ...(scroll > 0 ? [{type: 'scroll', delta: scroll, max: 1000} as const] : [])];
	return renderToString(<BoardView screen={fixtureScreen({width, height}, ...actions)} />, {columns: width});
}

it('fits ? help at 160×45 whole: every key on one line, what each does never cut', () => {
	const frame = helpFrame(160, 45);
	const lines = frame.split('\n');
	expect(lines.length).toBeLessThanOrEqual(45);
	expect(Math.max(...lines.map(line => stringWidth(line)))).toBeLessThanOrEqual(160);
	for (const key of helpLines().map(line => line.keys))
		expect(
			frame.split(/\s{2,}/).filter(cell => cell.trim() === key),
			key,
		).toHaveLength(1);
	// Five descriptions were cut with … at 160 columns: now they wrap onto a second line.
	expect(frame).not.toContain('…');
	expect(frame).toContain('KEYS');
	expect(frame).not.toMatch(/lines \d+–\d+ of/);
	expect(lines.at(-1)).toContain('esc close');
});

it.each([
	[80, 24],
	[120, 20],
	[80, 16],
	[40, 12],
] as const)('fits ? help at %i×%i in a window that scrolls to every key, never cut', (width, height) => {
	const seen = new Map<string, number>();
	const text: string[] = [];
	for (let scroll = 0; scroll < 80; scroll += 1) {
		const frame = helpFrame(width, height, scroll);
		const lines = frame.split('\n');
		expect(lines.length, frame).toBeLessThanOrEqual(height);
		expect(Math.max(...lines.map(line => stringWidth(line))), frame).toBeLessThanOrEqual(width);
		// The header may be cut at 40 columns; help's own lines never are.
		expect(lines.slice(1).join('\n'), frame).not.toContain('…');
		const note = frame.match(/lines (\d+)–(\d+) of (\d+)/);
		expect(note, frame).not.toBeNull();
		const [, first, last, total] = note!.map(Number);
		// The window's first line, once: the rows between help's title and its note.
		if (!seen.has(String(first))) {
			seen.set(String(first), last!);
			text.push(frame);
		}
		if (last === total) break;
	}
	// Every key shows in some window.
	const all = text.join('\n');
	for (const key of helpLines().map(line => line.keys))
		expect(
			all.split(/\s{2,}/).some(cell => cell.trim() === key),
			`${key} at ${width}×${height}`,
		).toBe(true);
	expect(helpFrame(width, height).split('\n').at(-1)).toContain('esc close');
});
