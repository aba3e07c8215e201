import {formatDuration} from '../format.ts';
import type {ReviewMeasures, Stats, WeekMeasures} from './measures.ts';

/** A ratio with two decimals, or `–` when there is nothing to divide by. */
export function ratioText(value: number | null): string {
	return value === null ? '–' : value.toFixed(2);
}

/** A share as a whole percentage (one decimal under 10%), or `–`. */
export function shareText(value: number | null): string {
	if (value === null) return '–';
	const percent = value * 100;
	return `${percent < 10 && percent !== 0 ? percent.toFixed(1) : Math.round(percent)}%`;
}

/** `Q …`: Needs you (the queue) that week: the most entries it held, and how long it held more than five. */
const HEADINGS = ['WEEK', 'APPROVE', 'FIX', 'INVALID', 'STOP', 'FIX/APPROVE', 'INVALID%', 'Q MAX', 'Q>5 FOR'] as const;

function cells(label: string, measures: ReviewMeasures, max: number, overFiveMs: number): string[] {
	return [
		label,
		String(measures.approve),
		String(measures.fix),
		String(measures.invalid),
		String(measures.stopped),
		ratioText(measures.fixPerApprove),
		shareText(measures.invalidShare),
		String(max),
		overFiveMs === 0 ? '0' : formatDuration(overFiveMs),
	];
}

/** Rows as columns two cells apart, the first left-aligned and the rest right-aligned under their headings. */
function columns(rows: readonly (readonly string[])[]): string[] {
	const widths = HEADINGS.map((_, index) => Math.max(...rows.map(row => (row[index] ?? '').length)));
	return rows.map(row =>
		row
			.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0)))
			.join('  ')
			.trimEnd(),
	);
}

/**
 * The measures as lines (docs/stats.md): a row a week (the last `weeks` of them when given, the
 * older counted) and the window's total, then Needs you, handoffs and passes back. `controlroom
 * stats` prints them; the board's stats panel shows them. The table is at most 76 cells wide (a
 * week's time over five in days), so it fits 80 columns inside a panel's border.
 */
export function statsLines(stats: Stats, options: {readonly weeks?: number} = {}): string[] {
	const shown = options.weeks === undefined ? stats.weeks : stats.weeks.slice(stats.weeks.length - Math.max(0, options.weeks));
	const hidden = stats.weeks.length - shown.length;
	const rows = [
		[...HEADINGS],
		...shown.map((week: WeekMeasures) => cells(week.week, week, week.needsYouMax, week.needsYouOverFiveMs)),
		cells('total', stats.verdicts, stats.needsYou.max, stats.needsYou.overFiveMs),
	];
	const table = columns(rows);
	const {handoffs, passesBack} = stats;
	const most = passesBack.byContract
		.slice(0, 3)
		.map(entry => `${entry.contract} ${entry.passes}`)
		.join(', ');
	return [
		...table.slice(0, 1 + shown.length),
		...(hidden > 0 ? [`(${hidden} earlier week${hidden === 1 ? '' : 's'} in controlroom stats)`] : []),
		...table.slice(1 + shown.length),
		`Needs you (Q; needs, reviews, failures): ${stats.needsYou.now} now, at most ${stats.needsYou.max}, ${stats.needsYou.overFiveMs === 0 ? 'never over five' : `over five for ${formatDuration(stats.needsYou.overFiveMs)}`}`,
		`Handoffs: ${handoffs.taken} taken, ${handoffs.cameBackMissingInfo} came back for missing information (${stats.missingInfoNeeds} missing_info need${stats.missingInfoNeeds === 1 ? '' : 's'})`,
		`Passes back: ${passesBack.total} over ${passesBack.contracts} contract${passesBack.contracts === 1 ? '' : 's'}, at most ${passesBack.max} of one${most === '' ? '' : ` (${most})`}`,
	];
}
