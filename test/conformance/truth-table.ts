import type {Reporter, TestModule} from 'vitest/node';
import type {ConformanceRow} from './table.ts';

/** Cuts a cell to `width` characters, with … where it was cut. */
function cell(text: string, width: number): string {
	const flat = text.replace(/\s+/g, ' ');
	return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat.padEnd(width);
}

/**
 * `npm run conformance`: after the suite, one line per row of test/conformance: the row, whether it
 * was false before (and must now hold) or held, whether it is true now, what the board and the
 * snapshot answered, and the claim; then how many rows are true.
 */
export default class TruthTable implements Reporter {
	onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
		const rows: {row: ConformanceRow; isTrue: boolean}[] = [];
		for (const module of modules) {
			for (const test of module.children.allTests()) {
				const row = test.meta().conformance;
				if (row) rows.push({row, isTrue: test.result().state === 'passed'});
			}
		}
		rows.sort((a, b) => a.row.id.localeCompare(b.row.id, undefined, {numeric: true}));
		const lines = [
			'',
			`${cell('row', 5)} ${cell('was', 6)} ${cell('now', 6)} ${cell('board', 36)} ${cell('snapshot', 36)} claim`,
			...rows.map(
				({row, isTrue}) =>
					`${cell(row.id, 5)} ${cell(row.was, 6)} ${cell(isTrue ? 'TRUE' : 'FALSE', 6)} ${cell(row.board, 36)} ${cell(row.snapshot, 36)} ${row.claim}`,
			),
			'',
			`${rows.filter(entry => entry.isTrue).length} of ${rows.length} rows true` +
				` (${rows.filter(entry => entry.row.was === 'false').length} were false, ${rows.filter(entry => entry.row.was === 'held').length} held)`,
			'',
		];
		process.stdout.write(`${lines.join('\n')}\n`);
	}
}
