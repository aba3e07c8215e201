import {renderToString} from 'ink';
import {render} from 'ink-testing-library';
import {expect, it} from 'vitest';
import {BoardView} from '../../components/BoardView.tsx';
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

it('fits ? help into the rows there are: every key on its own line at 80×24, and says how many are left out when even that is too short', () => {
	const keys = helpLines().map(line => line.keys);
	for (const [width, height] of [
		[80, 24],
		[160, 45],
		[120, 20],
	] as const) {
		const frame = renderToString(<BoardView screen={fixtureScreen({width, height}, {type: 'toggle-help'})} />, {columns: width});
		const lines = frame.split('\n');
		expect(lines.length).toBeLessThanOrEqual(height);
		// Each key starts one line or one column, and no line was drawn over another.
		for (const key of keys)
			expect(
				frame.split(/\s{2,}/).filter(cell => cell.trim() === key),
				`${key} at ${width}×${height}`,
			).toHaveLength(1);
		expect(lines.at(-1)).toContain('esc close');
	}
	const short = renderToString(<BoardView screen={fixtureScreen({width: 80, height: 16}, {type: 'toggle-help'})} />, {
		columns: 80,
	});
	expect(short.split('\n').length).toBeLessThanOrEqual(16);
	expect(short).toMatch(new RegExp(`↓ ${keys.length - 12} more keys`));
});
