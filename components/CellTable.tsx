import {Table, type CellProps} from '@alcalzone/ink-table';
import {Text} from 'ink';
import type {ReactNode} from 'react';
import {cellWidth, cutCells} from '../src/core/cell-width.ts';
import type {TableView} from '../src/core/board/table-layout.ts';

type Props = {
	readonly table: TableView;
	/** The heading row; without it the table is its rows alone (the help at 80×24). */
	readonly hasHeadings?: boolean;
	/** The colour of the first column's cells (the help's keys). */
	readonly keyColor?: string;
};

/** What ink-table hands a cell: its text between the spaces it padded it with by String.length. */
function textOf(children: ReactNode): string {
	return typeof children === 'string' ? children.trim() : '';
}

/**
 * A static table drawn by ink-table, whose cells agree with the board's terminal-width measure:
 * ink-table keeps the rows and columns in order, and each cell is fitted here to the width
 * `layoutTable` measured in cells (cut with `…`, never through a wide character), because
 * ink-table pads by String.length (a Japanese title would push every later column). Its border
 * skeleton is not drawn: a rule between every row would double a table's height, where the
 * drill-down at 80×24 has few lines to give (docs/board.md, "Static tables").
 */
export function CellTable({table, hasHeadings = true, keyColor}: Props) {
	const {columns} = table;
	const fit = (text: string, index: number | undefined): string => {
		const column = index === undefined ? undefined : columns[index];
		if (!column) return text;
		const cut = cutCells(text, column.width);
		const pad = ' '.repeat(Math.max(0, column.width - cellWidth(cut)));
		return ` ${column.align === 'right' ? pad + cut : cut + pad} `;
	};
	const Cell = ({column, children}: CellProps) => (
		<Text color={column === 0 ? keyColor : undefined}>{fit(textOf(children), column)}</Text>
	);
	const Heading = ({column, children}: {readonly column?: number; readonly children?: ReactNode}) =>
		hasHeadings ? <Text bold>{fit(textOf(children), column)}</Text> : <></>;
	// Borders, rules and the joints between cells: none drawn (an empty row takes no line).
	const Skeleton = () => <></>;
	const data = table.rows.map(row => Object.fromEntries(columns.map((column, index) => [column.heading, row[index] ?? ''])));
	return (
		<Table
			data={data}
			columns={columns.map(column => ({key: column.heading, align: column.align ?? 'left'}))}
			cell={Cell}
			header={Heading}
			skeleton={Skeleton}
		/>
	);
}
